// Blinded comparison (templates/comparison/pair.html).
// - Below 1440 px the material is a set of WAI-ARIA tabs (candidates A/B/C, character,
//   scenario; arrow keys, Home and End); from 1440 px every panel shows, the three
//   candidates side by side (static/comparison/comparison.css), and the tab roles go.
// - Keyboard shortcuts, only while the focus is on the candidates (or their tabs) or in
//   the form, never in a text box: A/B/C choose a candidate (and show its tab), 1/2 rate.
//   A key pressed anywhere else on the page (the header, the scenario, the body) does
//   nothing, so a stray key cannot change a judgment.
// - The chosen candidate is marked; memory search; a submit button that disables itself
//   (the server is idempotent anyway).
// Without this file every panel is listed one after another and the form works as is.
(function () {
  "use strict";
  const WIDE = window.matchMedia("(min-width: 1440px)");

  function typing(el) {
    return el && (el.tagName === "TEXTAREA" || el.tagName === "SELECT" ||
      el.tagName === "INPUT" && el.type !== "radio" && el.type !== "checkbox" || el.isContentEditable);
  }
  function tabList() {
    return document.querySelector("[data-compare-tabs]");
  }
  function tabs() {
    const list = tabList();
    return list ? Array.from(list.querySelectorAll("[role=tab]")) : [];
  }
  function panelOf(tab) {
    return document.getElementById(tab.getAttribute("aria-controls"));
  }
  function showTab(tab, focus) {
    tabs().forEach(function (t) {
      const selected = t === tab;
      t.setAttribute("aria-selected", selected ? "true" : "false");
      t.tabIndex = selected ? 0 : -1;
      t.classList.toggle("active", selected);
      const panel = panelOf(t);
      if (panel && !WIDE.matches) panel.hidden = !selected;
    });
    if (focus) tab.focus();
  }
  function showLetter(letter) {
    const tab = tabs().find(function (t) { return t.dataset.tabLetter === letter; });
    if (tab) showTab(tab, false);
  }
  // Tabs below 1440 px, every panel from 1440 px; the roles follow what is on screen.
  function layout() {
    const list = tabList();
    if (!list) return;
    const all = tabs();
    list.hidden = WIDE.matches;
    all.forEach(function (t) {
      const panel = panelOf(t);
      if (!panel) return;
      if (WIDE.matches) {
        panel.removeAttribute("role");
        panel.setAttribute("aria-labelledby", panel.dataset.ownLabel);
        panel.hidden = false;
      } else {
        panel.setAttribute("role", "tabpanel");
        panel.setAttribute("aria-labelledby", t.id);
      }
    });
    if (!WIDE.matches) {
      showTab(all.find(function (t) { return t.getAttribute("aria-selected") === "true"; }) || all[0], false);
    }
  }
  function check(name, value) {
    const input = document.querySelector(`#judgment-form input[name="${name}"][value="${value}"]`);
    if (input && !input.disabled) {
      input.checked = true;
      input.dispatchEvent(new Event("change", { bubbles: true }));
    }
  }
  function markChosen() {
    const chosen = document.querySelector('#judgment-form input[name="selected_letter"]:checked');
    document.querySelectorAll(".hb-candidate[data-letter]").forEach(function (card) {
      const on = chosen !== null && card.dataset.letter === chosen.value;
      card.classList.toggle("hb-chosen", on);
      const badge = card.querySelector("[data-chosen-badge]");
      if (badge) badge.hidden = !on;
    });
  }
  function onShortcut(event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    const key = event.key.toUpperCase();
    if (["A", "B", "C"].includes(key)) {
      check("selected_letter", key);
      showLetter(key);
    } else if (key === "1") check("rating", "as_is");
    else if (key === "2") check("rating", "partial");
    else return;
    event.preventDefault();
  }
  function init() {
    const list = tabList();
    if (list) {
      tabs().forEach(function (t) {
        const panel = panelOf(t);
        if (panel) panel.dataset.ownLabel = panel.getAttribute("aria-labelledby");
      });
      layout();
      WIDE.addEventListener("change", layout);
      list.addEventListener("click", function (event) {
        const tab = event.target.closest("[role=tab]");
        if (tab) showTab(tab, true);
      });
      list.addEventListener("keydown", function (event) {
        const all = tabs();
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
    // The scopes of the shortcuts: the candidates (and their tabs) and the form.
    document.querySelectorAll("[data-shortcut-scope]").forEach(function (scope) {
      scope.addEventListener("keydown", onShortcut);
    });
    markChosen();
  }
  // Choosing a candidate with the mouse shows its text too.
  document.addEventListener("change", function (event) {
    if (event.target.matches('#judgment-form input[name="selected_letter"]')) {
      showLetter(event.target.value);
      markChosen();
    }
  });
  document.addEventListener("input", function (event) {
    if (!event.target.matches("[data-memory-search]")) return;
    const needle = event.target.value.trim().toLowerCase();
    event.target.closest("[data-memories]").querySelectorAll("[data-memory]").forEach(function (li) {
      // The summary line and the texts of an opened panel; not the "Loading" note of a
      // panel whose text has not been loaded.
      const note = li.querySelector("[data-loading-note]");
      let text = li.textContent;
      if (note) text = text.replace(note.textContent, "");
      li.hidden = needle !== "" && !text.toLowerCase().includes(needle);
    });
  });
  document.addEventListener("submit", function (event) {
    const button = event.target.querySelector("input[type=submit], button[type=submit]");
    if (button) setTimeout(function () { button.disabled = true; }, 0);
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
