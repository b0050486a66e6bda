// heartbench reviews: progressive enhancement only; the forms work by typing as well.
(function () {
  "use strict";

  // Selecting text inside one profile field copies it, with the field, into the
  // change-request form (App. B.3: "identify the affected field or passage").
  function copySelection() {
    const selection = window.getSelection();
    if (!selection || selection.isCollapsed) return;
    const text = selection.toString().trim();
    if (!text) return;
    const start = selection.anchorNode && selection.anchorNode.parentElement;
    const end = selection.focusNode && selection.focusNode.parentElement;
    const field = start && start.closest("[data-profile-field]");
    if (!field || !end || end.closest("[data-profile-field]") !== field) return;
    const form = document.getElementById("change-request-form");
    if (!form) return;
    const passage = form.querySelector("[data-passage-input]");
    const select = form.querySelector("[data-field-input]");
    if (passage) passage.value = text;
    if (select) select.value = field.dataset.profileField;
  }

  document.addEventListener("mouseup", copySelection);
  document.addEventListener("keyup", (event) => {
    if (event.shiftKey) copySelection();
  });
})();
