// Reference-label audit, blind selection: keys A-D select an option, Ctrl+Enter submits,
// the submit button disables itself once pressed. Every page works without this file.
(function () {
  "use strict";
  function typing(el) {
    return el && (el.tagName === "TEXTAREA" || (el.tagName === "INPUT" && el.type !== "radio") || el.isContentEditable);
  }
  function form() {
    return document.querySelector("#selection-form");
  }
  document.addEventListener("keydown", function (event) {
    const f = form();
    if (!f) return;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      f.requestSubmit();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    const key = event.key.toUpperCase();
    if (!["A", "B", "C", "D"].includes(key)) return;
    const input = f.querySelector(`input[name="choice"][value="${key}"]`);
    if (input && !input.disabled) {
      input.checked = true;
      input.focus();
      input.dispatchEvent(new Event("change", { bubbles: true }));
    }
  });
  // A note typed just before the tab closes is sent as the page goes away.
  let dirty = false;
  document.addEventListener("input", function (event) {
    if (event.target.closest("#selection-form")) dirty = true;
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    if (event.target.matches && event.target.matches("#selection-form")) dirty = false;
  });
  window.addEventListener("pagehide", function () {
    const f = form();
    if (!f || !dirty || !f.getAttribute("hx-post") || !navigator.sendBeacon) return;
    navigator.sendBeacon(f.getAttribute("hx-post"), new FormData(f));
  });
  document.addEventListener("submit", function (event) {
    dirty = false;
    const button = event.target.querySelector("input[type=submit], button[type=submit]");
    if (button) setTimeout(function () { button.disabled = true; }, 0);
  });
})();
