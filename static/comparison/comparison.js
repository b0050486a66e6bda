// Blinded comparison: keyboard shortcuts (A/B/C select, 1/2 rate), memory search, and a
// submit button that disables itself (the server is idempotent anyway).
(function () {
  "use strict";
  function typing(el) {
    return el && (el.tagName === "TEXTAREA" || el.tagName === "INPUT" && el.type !== "radio" && el.type !== "checkbox" || el.isContentEditable);
  }
  function check(name, value) {
    const input = document.querySelector(`#judgment-form input[name="${name}"][value="${value}"]`);
    if (input && !input.disabled) {
      input.checked = true;
      input.dispatchEvent(new Event("change", { bubbles: true }));
    }
  }
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    const key = event.key.toUpperCase();
    if (["A", "B", "C"].includes(key)) check("selected_letter", key);
    else if (key === "1") check("rating", "as_is");
    else if (key === "2") check("rating", "partial");
  });
  document.addEventListener("input", function (event) {
    if (!event.target.matches("[data-memory-search]")) return;
    const needle = event.target.value.trim().toLowerCase();
    event.target.closest("[data-memories]").querySelectorAll("[data-memory]").forEach(function (li) {
      li.hidden = needle !== "" && !li.textContent.toLowerCase().includes(needle);
    });
  });
  document.addEventListener("submit", function (event) {
    const button = event.target.querySelector("input[type=submit], button[type=submit]");
    if (button) setTimeout(function () { button.disabled = true; }, 0);
  });
})();
