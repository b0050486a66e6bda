// Blinded comparison: the tabs of the material panel (candidates A/B/C, character,
// scenario; WAI-ARIA tabs with arrow keys, Home and End), keyboard shortcuts (A/B/C select
// a candidate and show its tab, 1/2 rate), memory search, and a submit button that
// disables itself (the server is idempotent anyway). Without this file every section of
// the panel is listed one after another.
(function () {
  "use strict";
  function typing(el) {
    return el && (el.tagName === "TEXTAREA" || el.tagName === "INPUT" && el.type !== "radio" && el.type !== "checkbox" || el.isContentEditable);
  }
  function tabs() {
    const list = document.querySelector("[data-compare-tabs]");
    return list ? Array.from(list.querySelectorAll("[role=tab]")) : [];
  }
  function showTab(tab, focus) {
    tabs().forEach(function (t) {
      const selected = t === tab;
      t.setAttribute("aria-selected", selected ? "true" : "false");
      t.tabIndex = selected ? 0 : -1;
      t.classList.toggle("active", selected);
      const panel = document.getElementById(t.getAttribute("aria-controls"));
      if (panel) panel.hidden = !selected;
    });
    if (focus) tab.focus();
  }
  function showLetter(letter) {
    const tab = tabs().find(function (t) { return t.dataset.tabLetter === letter; });
    if (tab) showTab(tab, false);
  }
  function check(name, value) {
    const input = document.querySelector(`#judgment-form input[name="${name}"][value="${value}"]`);
    if (input && !input.disabled) {
      input.checked = true;
      input.dispatchEvent(new Event("change", { bubbles: true }));
    }
  }
  function initTabs() {
    const list = document.querySelector("[data-compare-tabs]");
    if (!list) return;
    list.hidden = false;
    const all = tabs();
    showTab(all.find(function (t) { return t.getAttribute("aria-selected") === "true"; }) || all[0], false);
    list.addEventListener("click", function (event) {
      const tab = event.target.closest("[role=tab]");
      if (tab) showTab(tab, true);
    });
    list.addEventListener("keydown", function (event) {
      const at = all.indexOf(event.target);
      if (at < 0) return;
      let next = null;
      if (event.key === "ArrowRight") next = all[(at + 1) % all.length];
      else if (event.key === "ArrowLeft") next = all[(at - 1 + all.length) % all.length];
      else if (event.key === "Home") next = all[0];
      else if (event.key === "End") next = all[all.length - 1];
      if (next) {
        event.preventDefault();
        showTab(next, true);
      }
    });
  }
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    const key = event.key.toUpperCase();
    if (["A", "B", "C"].includes(key)) {
      check("selected_letter", key);
      showLetter(key);
    } else if (key === "1") check("rating", "as_is");
    else if (key === "2") check("rating", "partial");
  });
  // Choosing a candidate with the mouse shows its text too.
  document.addEventListener("change", function (event) {
    if (event.target.matches('#judgment-form input[name="selected_letter"]')) showLetter(event.target.value);
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
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", initTabs);
  else initTabs();
})();
