// Human baseline pages: memory search and expand/collapse, time on the item, and saving
// answers through htmx with a retry when the connection drops (nothing is lost).
(function () {
  "use strict";

  function typing(el) {
    return el && (el.tagName === "TEXTAREA" || (el.tagName === "INPUT" && el.type !== "radio") || el.isContentEditable);
  }

  // --- memories: search, expand all, collapse all --------------------------------------
  document.addEventListener("input", function (event) {
    if (!event.target.matches("[data-memory-search]")) return;
    const box = event.target.closest("[data-memories]");
    const needle = event.target.value.trim().toLowerCase();
    let shown = 0;
    const all = box.querySelectorAll("[data-memory]");
    all.forEach(function (li) {
      const hit = needle === "" || li.textContent.toLowerCase().includes(needle);
      li.hidden = !hit;
      if (hit) shown += 1;
      const details = li.querySelector("details");
      if (details && needle !== "" && hit) details.open = true;
    });
    const count = box.querySelector("[data-memory-count]");
    if (count) count.textContent = needle === "" ? "" : shown + " of " + all.length + " memories contain “" + event.target.value.trim() + "”.";
  });
  document.addEventListener("click", function (event) {
    const expand = event.target.closest("[data-memories-expand]");
    const collapse = event.target.closest("[data-memories-collapse]");
    if (!expand && !collapse) return;
    const box = (expand || collapse).closest("[data-memories]");
    box.querySelectorAll("[data-memory] details").forEach(function (d) { d.open = Boolean(expand); });
  });

  // --- keyboard: A–D choose an option -------------------------------------------------
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    const key = event.key.toUpperCase();
    if (!["A", "B", "C", "D"].includes(key)) return;
    const input = document.querySelector('#answer-form input[name="choice"][value="' + key + '"], #practice-form input[name="choice"][value="' + key + '"]');
    if (input && !input.disabled && !input.checked) {
      input.checked = true;
      input.dispatchEvent(new Event("change", { bubbles: true }));
    }
  });

  // --- time on the item ---------------------------------------------------------------
  const timer = document.querySelector("[data-item-timer]");
  if (!timer) return;
  let visibleSince = document.visibilityState === "visible" ? Date.now() : null;
  let banked = 0;
  function take() {
    let total = banked;
    if (visibleSince !== null) { total += Date.now() - visibleSince; visibleSince = Date.now(); }
    banked = 0;
    return total / 1000;
  }
  function csrf() {
    const input = document.querySelector('#answer-form input[name="csrfmiddlewaretoken"]');
    return input ? input.value : "";
  }
  function report() {
    const seconds = take();
    if (seconds <= 0 || !navigator.sendBeacon) return;
    const data = new FormData();
    data.append("csrfmiddlewaretoken", csrf());
    data.append("seconds", seconds.toFixed(1));
    navigator.sendBeacon(timer.dataset.timeUrl, data);
  }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") {
      report();
      visibleSince = null;
    } else {
      visibleSince = Date.now();
    }
  });
  window.addEventListener("pagehide", report);

  // --- saving ---------------------------------------------------------------------------
  const form = document.getElementById("answer-form");
  if (!form) return;
  // A plain submit (Save / Save and next) carries the time too.
  form.addEventListener("submit", function () {
    form.querySelector('input[name="seconds"]').value = take().toFixed(1);
  });
  document.body.addEventListener("htmx:configRequest", function (event) {
    if (event.detail.elt !== form) return;
    event.detail.parameters.seconds = take().toFixed(1);
  });
  let retry = null;
  function failed() {
    const status = document.getElementById("save-status");
    if (status) status.innerHTML = '<span class="text-danger">Not saved yet: the connection was lost. Trying again…</span>';
    clearTimeout(retry);
    retry = setTimeout(function () { window.htmx.trigger(form, "change"); }, 3000);
  }
  document.body.addEventListener("htmx:sendError", function (event) { if (event.detail.elt === form) failed(); });
  document.body.addEventListener("htmx:responseError", function (event) { if (event.detail.elt === form) failed(); });
})();
