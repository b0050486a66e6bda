// Item review, progressive enhancement only.
//
// The revise form saves itself on the server (htmx, core/drafts.py). The
// other texts (a generated distractor, a decision's note) keep a browser-local draft:
// each textarea with data-autosave="<key>" is saved to localStorage as the reviewer types
// and restored on load; the draft is dropped when its form is submitted. The key names
// the item and its version, so a draft never reappears on a later version.
//
// The actions are <details name="mcq-action"> (one open at a time): a restored draft
// opens its own.
//
// A select with data-confirm-by-option gives its form the chosen option's data-confirm
// (static/app/heartbench.js then asks before the form is sent): removing or retaining an
// item is final, the other decisions open a new version.
(function () {
  "use strict";
  function keepDrafts() {
    document.querySelectorAll("textarea[data-autosave]").forEach(function (area) {
      var key = "heartbench:" + area.dataset.autosave;
      var saved = null;
      try { saved = window.localStorage.getItem(key); } catch (e) { return; }
      if (saved && !area.value) {
        area.value = saved;
        // A restored draft in a closed action opens it, so the reviewer sees it.
        var action = area.closest("details");
        if (action) { action.open = true; }
      }
      area.addEventListener("input", function () {
        try { window.localStorage.setItem(key, area.value); } catch (e) { /* full or off */ }
      });
      if (area.form) {
        area.form.addEventListener("submit", function () {
          try { window.localStorage.removeItem(key); } catch (e) { /* ignore */ }
        });
      }
    });
  }
  function confirmByOption() {
    document.querySelectorAll("select[data-confirm-by-option]").forEach(function (select) {
      function follow() {
        var option = select.options[select.selectedIndex];
        var message = option && option.dataset.confirm;
        if (!select.form) return;
        if (message) {
          select.form.dataset.confirm = message;
          select.form.dataset.confirmLabel = option.textContent.split(" (")[0];
        } else {
          delete select.form.dataset.confirm;
          delete select.form.dataset.confirmLabel;
        }
      }
      select.addEventListener("change", follow);
      follow();
    });
  }
  function init() {
    keepDrafts();
    confirmByOption();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
