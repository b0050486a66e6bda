// Human baseline pages: memory search and expand/collapse, practice feedback brought into
// view, time on the item, and saving answers through htmx with a retry when the
// connection drops (nothing is lost) and never at the same time as the page's own save.
(function () {
  "use strict";

  // A phone shows the memories in the page's flow: folded, so the options stay near
  // (each memory opens with a tap; "Expand all" opens them all).
  const NARROW = window.matchMedia("(max-width: 991.98px)");
  if (NARROW.matches) {
    document.querySelectorAll("[data-memories] [data-memory] details[open]").forEach(function (d) { d.open = false; });
  }

  // --- practice: the feedback of "Check my answer" in view, with the focus ------------
  document.body.addEventListener("htmx:afterSwap", function () {
    const feedback = document.querySelector("[data-practice-answer] [data-feedback][data-just-checked]");
    if (!feedback) return;
    feedback.focus({ preventScroll: true });
    // The feedback and what comes next (the next practice item, or starting the study)
    // together when they fit on the screen; else the feedback from its top.
    const next = document.querySelector("[data-practice-answer] [data-practice-nav]");
    const pane = feedback.closest(".study-pane");
    const room = pane && getComputedStyle(pane).overflowY === "auto" ? pane.clientHeight : window.innerHeight;
    const span = next ? next.getBoundingClientRect().bottom - feedback.getBoundingClientRect().top : Infinity;
    if (span <= room * 0.9) next.scrollIntoView({ block: "nearest" });
    else feedback.scrollIntoView({ block: "start" });
  });

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
  // Time is reported as named reports: each name is sent once per stretch of time, and
  // the server counts a name once, so a report sent again (a retried save) adds nothing.
  // Leaving the page sends exactly one report: pagehide and the visibilitychange that
  // follows it both call report(), and the first one pauses the clock, so the second
  // finds nothing to send. (A beacon cannot be retried; it carries its own name anyway.)
  const timer = document.querySelector("[data-item-timer]");
  if (!timer) return;
  const visit = window.crypto && window.crypto.randomUUID
    ? window.crypto.randomUUID()
    : Date.now().toString(36) + "-" + Math.random().toString(36).slice(2);
  let sequence = 0;
  let visibleSince = document.visibilityState === "visible" ? Date.now() : null;
  let banked = 0;
  function take() {
    let total = banked;
    if (visibleSince !== null) { total += Date.now() - visibleSince; visibleSince = Date.now(); }
    banked = 0;
    return total / 1000;
  }
  function newReport(seconds) {
    sequence += 1;
    return { id: visit + "-" + sequence, seconds: seconds.toFixed(1) };
  }
  function csrf() {
    const input = document.querySelector('#answer-form input[name="csrfmiddlewaretoken"]');
    return input ? input.value : "";
  }
  function report() {
    // Nothing to report while the clock is paused: the first of pagehide and
    // visibilitychange sent it, or a submit carried it.
    if (visibleSince === null && banked === 0) return;
    const seconds = take();
    visibleSince = null;  // paused until the page is visible again
    if (!navigator.sendBeacon) return;
    const sent = newReport(seconds);
    const data = new FormData();
    data.append("csrfmiddlewaretoken", csrf());
    data.append("seconds", sent.seconds);
    data.append("report_id", sent.id);
    navigator.sendBeacon(timer.dataset.timeUrl, data);
  }
  function resume() {
    if (document.visibilityState === "visible" && visibleSince === null) visibleSince = Date.now();
  }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") report(); else resume();
  });
  window.addEventListener("pagehide", report);
  // Another form leaving the page (log out) reports before its request goes, not after
  // it: once the session has ended the report would be refused.
  document.addEventListener("submit", function (event) {
    if (event.target.id !== "answer-form") report();
  }, true);
  // A page restored from the back-forward cache counts again from now.
  window.addEventListener("pageshow", function (event) { if (event.persisted) resume(); });

  // --- saving ---------------------------------------------------------------------------
  const form = document.getElementById("answer-form");
  if (!form) return;
  // Beside the chosen option: "Saving…" until the server's answer puts "Saved" there
  // (the answer replaces every option's mark), so a phone shows it where the thumb is.
  function markChosen(text, tone) {
    form.querySelectorAll("[data-option-mark]").forEach(function (mark) { mark.replaceChildren(); });
    const chosen = form.querySelector('input[name="choice"]:checked');
    const mark = chosen && form.querySelector('[data-option-mark="' + chosen.value + '"]');
    if (!mark) return;
    const badge = document.createElement("span");
    badge.className = "badge " + tone;
    badge.textContent = text;
    mark.appendChild(badge);
  }
  form.addEventListener("change", function () { markChosen("Saving…", "text-bg-secondary"); });

  // An autosave still on its way when a Save button is pressed: the page's save waits
  // for it, then goes (the two never reach the server together, and the page's save,
  // which leaves the page, comes last).
  let retry = null;
  let inFlight = false;
  let waiting = false;
  let waitingSubmitter = null;
  form.addEventListener("submit", function (event) {
    if (!inFlight) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    waiting = true;
    waitingSubmitter = event.submitter || null;
    form.querySelectorAll('button[type="submit"]').forEach(function (b) { b.disabled = true; });
  });
  // A plain submit (Save / Save and next) carries the time; the clock then pauses, so
  // leaving the page with it sends no second report.
  form.addEventListener("submit", function () {
    clearTimeout(retry);
    const sent = newReport(take());
    visibleSince = null;
    form.querySelector('input[name="seconds"]').value = sent.seconds;
    form.querySelector('input[name="report_id"]').value = sent.id;
  });
  // An htmx save carries the time since the last report; until the server has answered,
  // a retry sends the same report again (same name), never a second one.
  let pending = null;
  document.body.addEventListener("htmx:configRequest", function (event) {
    if (event.detail.elt !== form) return;
    pending = pending || newReport(take());
    event.detail.parameters.seconds = pending.seconds;
    event.detail.parameters.report_id = pending.id;
  });
  document.body.addEventListener("htmx:beforeRequest", function (event) {
    if (event.detail.elt === form) inFlight = true;
  });
  document.body.addEventListener("htmx:afterRequest", function (event) {
    if (event.detail.elt !== form) return;
    inFlight = false;
    if (event.detail.successful) pending = null;
    if (waiting) {
      waiting = false;
      form.querySelectorAll('button[type="submit"]').forEach(function (b) { b.disabled = false; });
      form.requestSubmit(waitingSubmitter);
    }
  });
  function failed() {
    const status = document.getElementById("save-status");
    if (status) status.innerHTML = '<span class="text-danger">Not saved yet: the connection was lost. Trying again…</span>';
    markChosen("Not saved yet", "text-bg-danger");
    clearTimeout(retry);
    retry = setTimeout(function () { window.htmx.trigger(form, "change"); }, 3000);
  }
  document.body.addEventListener("htmx:sendError", function (event) { if (event.detail.elt === form) failed(); });
  document.body.addEventListener("htmx:responseError", function (event) { if (event.detail.elt === form) failed(); });
})();
