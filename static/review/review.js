// heartbench reviews: progressive enhancement only; the forms work by typing as well.
(function () {
  "use strict";

  // Selecting text inside one profile field copies it, with the field, into the
  // change-request form (App. B.3: "identify the affected field or passage"), and brings
  // that form into view in the review panel.
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
    form.scrollIntoView({ block: "nearest" });
  }

  document.addEventListener("mouseup", copySelection);
  document.addEventListener("keyup", (event) => {
    if (event.shiftKey) copySelection();
  });

  // A 1–7 scale (templates/review/partials/diamonds_scale.html) is a radio group: Tab
  // reaches it, the arrow keys move along it, and a digit key picks that point at once.
  document.addEventListener("keydown", (event) => {
    const radio = event.target;
    if (!(radio instanceof HTMLInputElement) || radio.type !== "radio") return;
    const scale = radio.closest("[data-scale]");
    if (!scale || event.ctrlKey || event.metaKey || event.altKey) return;
    const point = scale.querySelector(`input[type="radio"][value="${CSS.escape(event.key)}"]`);
    if (!point || point.disabled) return;
    event.preventDefault();
    point.checked = true;
    point.focus();
    point.dispatchEvent(new Event("input", { bubbles: true }));
    point.dispatchEvent(new Event("change", { bubbles: true }));
  });
})();
