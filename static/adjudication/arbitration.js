// Arbitration: the "Record decision" button's confirmation (static/app/heartbench.js)
// names the decision chosen on the form: adopt, edit, rewrite or discard, and which
// candidate. The messages are the server's (adjudication/arbitration/forms.py).
(function () {
  "use strict";
  function update(form) {
    const button = form.querySelector("[data-decide]");
    if (!button) return;
    const kind = form.querySelector('input[name="kind"]:checked');
    const key = kind ? kind.value : "default";
    const candidate = form.querySelector('[name="candidate"]');
    const number = candidate && candidate.value ? candidate.value : "(none chosen)";
    const message = form.getAttribute("data-confirm-" + key) || form.getAttribute("data-confirm-default");
    button.dataset.confirm = message.split("{candidate}").join(number);
    button.dataset.confirmLabel = form.getAttribute("data-confirm-label-" + key) || "Record decision";
  }
  function init() {
    const form = document.getElementById("arbitration-form");
    if (!form) return;
    update(form);
    form.addEventListener("change", function () { update(form); });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
