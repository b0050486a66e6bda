// Item review: drafts of the reviewer's distractor texts and notes survive a closed tab.
// Each textarea with data-autosave="<key>" is saved to localStorage as the reviewer types
// and restored on load; the draft is dropped when its form is submitted. The key names
// the item and its version, so a draft never reappears on a later version.
(function () {
  "use strict";
  function init() {
    document.querySelectorAll("textarea[data-autosave]").forEach(function (area) {
      var key = "heartbench:" + area.dataset.autosave;
      var saved = null;
      try { saved = window.localStorage.getItem(key); } catch (e) { return; }
      if (saved && !area.value) { area.value = saved; }
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
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
