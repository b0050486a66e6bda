// heartbench: progressive enhancement only; every page works without this file.
(function () {
  "use strict";

  function formatSize(bytes) {
    if (bytes < 1024) return bytes + " B";
    if (bytes < 1024 * 1024) return (bytes / 1024).toFixed(1) + " KB";
    return (bytes / (1024 * 1024)).toFixed(1) + " MB";
  }

  function listFiles(input, list) {
    if (!list) return;
    list.replaceChildren();
    for (const file of input.files) {
      const item = document.createElement("li");
      item.textContent = file.name + " (" + formatSize(file.size) + ")";
      list.appendChild(item);
    }
  }

  // A drop zone wraps a real <input type="file" multiple>: dropping files fills that
  // input, so keyboard users and drag-and-drop users submit the same form.
  function initDropZone(zone) {
    const input = zone.querySelector('input[type="file"]');
    if (!input) return;
    const list = zone.querySelector("[data-drop-zone-files]");
    const over = (on) => zone.classList.toggle("hb-drop-zone--over", on);

    ["dragenter", "dragover"].forEach((type) =>
      zone.addEventListener(type, (event) => {
        event.preventDefault();
        over(true);
      })
    );
    ["dragleave", "dragend"].forEach((type) => zone.addEventListener(type, () => over(false)));
    zone.addEventListener("drop", (event) => {
      event.preventDefault();
      over(false);
      if (!event.dataTransfer || !event.dataTransfer.files.length) return;
      input.files = event.dataTransfer.files;
      input.dispatchEvent(new Event("change", { bubbles: true }));
    });
    input.addEventListener("change", () => listFiles(input, list));
  }

  // Confirmation before anything final. A form (or its submit button) carrying
  // data-confirm="what happens; what cannot be undone" opens the page's <dialog
  // id="hb-confirm"> instead of submitting: the confirm button has the focus, so Enter
  // confirms and Escape cancels. htmx requests with hx-confirm use the same dialog.
  // data-confirm-label names the confirm button ("Finalize", "Adopt", ...).
  function askToConfirm(message, label, proceed, opener) {
    const dialog = document.getElementById("hb-confirm");
    if (!dialog || typeof dialog.showModal !== "function") {
      if (window.confirm(message)) proceed();
      return;
    }
    dialog.querySelector("[data-confirm-message]").textContent = message;
    const yes = dialog.querySelector("[data-confirm-yes]");
    yes.textContent = label || "Confirm";
    dialog.returnValue = "";
    dialog.onclose = () => {
      if (dialog.returnValue === "yes") proceed();
      else if (opener && typeof opener.focus === "function") opener.focus();
    };
    dialog.showModal();
    yes.focus();
  }

  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (form.method === "dialog") {
      event.stopImmediatePropagation(); // the dialog's own buttons: no page script reacts
      return;
    }
    const submitter = event.submitter || null;
    const source = submitter && submitter.dataset.confirm ? submitter : form;
    const message = source.dataset && source.dataset.confirm;
    if (!message || form.dataset.confirmed === "yes") {
      delete form.dataset.confirmed;
      return;
    }
    event.preventDefault();
    event.stopImmediatePropagation();
    askToConfirm(message, source.dataset.confirmLabel, () => {
      form.dataset.confirmed = "yes";
      if (submitter) form.requestSubmit(submitter);
      else form.requestSubmit();
    }, submitter || form);
  }, true);

  document.addEventListener("htmx:confirm", (event) => {
    const question = event.detail.question;
    if (!question) return;
    event.preventDefault();
    const elt = event.detail.elt;
    askToConfirm(question, elt.dataset.confirmLabel, () => event.detail.issueRequest(true), elt);
  });

  // A paper citation behind its "?" button ({% protocol_ref %}): a click shows or hides
  // it. Delegated, so citations in htmx fragments work too.
  document.addEventListener("click", (event) => {
    const toggle = event.target.closest("[data-protocol-ref]");
    if (!toggle) return;
    const reference = toggle.nextElementSibling;
    if (!reference) return;
    const open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", String(open));
    reference.hidden = !open;
  });

  // A table wider than a narrow screen scrolls inside its .table-responsive box; a
  // keyboard user must be able to focus that box to scroll it (axe:
  // scrollable-region-focusable).
  const focusableScrollers = (root) => {
    root.querySelectorAll(".table-responsive:not([tabindex])").forEach((box) => {
      if (box.scrollWidth > box.clientWidth) box.setAttribute("tabindex", "0");
    });
  };

  document.addEventListener("DOMContentLoaded", () => {
    document.querySelectorAll("[data-drop-zone]").forEach(initDropZone);
    focusableScrollers(document);
  });
  document.addEventListener("htmx:afterSwap", (event) => focusableScrollers(event.target));
})();
