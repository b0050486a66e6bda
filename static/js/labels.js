// Reference-label audit, blind selection: keys A-D select an option, Ctrl+Enter submits
// (the page's confirmation opens first, static/app/heartbench.js: Enter confirms, Escape
// goes back), the submit button disables itself once sent. Every page works without it.
(function () {
  "use strict";
  function typing(el) {
    return el && (el.tagName === "TEXTAREA" || (el.tagName === "INPUT" && el.type !== "radio") || el.isContentEditable);
  }
  function form() {
    return document.querySelector("#selection-form");
  }
  // The confirmation names the option chosen, so Enter confirms what the expert sees.
  const general = form() && form().dataset.confirm;
  function nameChoice() {
    const f = form();
    const chosen = f && f.querySelector('input[name="choice"]:checked');
    if (!general || !chosen) return;
    f.dataset.confirm = `Submit option ${chosen.value} as your selection? ` + general.replace(/^[^?]*\? /, "");
  }
  nameChoice();
  document.addEventListener("change", nameChoice);
  document.addEventListener("keydown", function (event) {
    const f = form();
    if (!f || document.querySelector("dialog[open]")) return;
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
    if (event.target.method === "dialog") return;
    dirty = false;
    const button = event.target.querySelector("input[type=submit], button[type=submit]");
    if (button) setTimeout(function () { button.disabled = true; }, 0);
  });
})();
