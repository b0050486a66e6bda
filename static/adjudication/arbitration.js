// Arbitration (templates/adjudication/pair.html).
// - Progressive disclosure: each part of the form says which decisions use it
//   (data-decision-kinds, adjudication/arbitration/forms.py FIELD_KINDS); only the
//   chosen decision's parts show, and the hidden ones are disabled so that what is
//   posted is what is on screen. Without this file every field shows and the server
//   reads only those of the decision posted.
// - "Edit candidate N" chooses the edit and the candidate in place, and fills the text
//   fields with that candidate's text unless the arbitrator has already changed them;
//   without this file the link reloads the page with the text filled in.
// - The "Record decision" button's confirmation (static/app/heartbench.js) names the
//   decision chosen and the candidate. The messages are the server's.
(function () {
  "use strict";
  const TEXT_FIELDS = ["summary", "emotional_tone", "core_reasoning", "final_decision"];

  function chosenKind(form) {
    const kind = form.querySelector('input[name="kind"]:checked');
    return kind ? kind.value : "";
  }
  function disclose(form) {
    const kind = chosenKind(form);
    form.querySelectorAll("[data-decision-kinds]").forEach(function (part) {
      const shown = kind !== "" && part.dataset.decisionKinds.split(" ").includes(kind);
      part.hidden = !shown;
      const controls = part.matches("input, select, textarea, button") ? [part] : part.querySelectorAll("input, select, textarea");
      controls.forEach(function (control) { control.disabled = !shown; });
    });
    const preview = document.getElementById("diff-preview");
    if (preview) preview.hidden = kind !== "edited";
  }
  function updateConfirm(form) {
    const button = form.querySelector("[data-decide]");
    if (!button) return;
    const kind = chosenKind(form) || "default";
    const candidate = form.querySelector('[name="candidate"]');
    const number = candidate && candidate.value ? candidate.value : "(none chosen)";
    const message = form.getAttribute("data-confirm-" + kind) || form.getAttribute("data-confirm-default");
    button.dataset.confirm = message.split("{candidate}").join(number);
    button.dataset.confirmLabel = form.getAttribute("data-confirm-label-" + kind) || "Record decision";
  }
  function candidateTexts() {
    const data = document.getElementById("candidate-texts");
    return data ? JSON.parse(data.textContent) : {};
  }
  // True when the text fields hold nothing the arbitrator wrote: empty, or exactly one
  // candidate's text.
  function untouched(form, texts) {
    const values = TEXT_FIELDS.map(function (f) {
      const field = form.querySelector(`[name="${f}"]`);
      return field ? field.value : "";
    });
    if (values.every(function (v) { return v.trim() === ""; })) return true;
    return Object.values(texts).some(function (text) {
      return TEXT_FIELDS.every(function (f, i) { return (text[f] || "") === values[i]; });
    });
  }
  function startEdit(form, number) {
    const texts = candidateTexts();
    const edited = form.querySelector('input[name="kind"][value="edited"]');
    const candidate = form.querySelector('[name="candidate"]');
    if (!edited || !candidate) return false;
    const fill = untouched(form, texts) && texts[number];
    edited.checked = true;
    candidate.value = String(number);
    if (fill) {
      TEXT_FIELDS.forEach(function (f) {
        const field = form.querySelector(`[name="${f}"]`);
        if (field) field.value = texts[number][f] || "";
      });
    }
    form.dispatchEvent(new Event("change", { bubbles: true }));
    const first = form.querySelector('[name="summary"]');
    if (first) first.focus();
    return true;
  }
  function init() {
    const form = document.getElementById("arbitration-form");
    if (!form) return;
    disclose(form);
    updateConfirm(form);
    form.addEventListener("change", function () {
      disclose(form);
      updateConfirm(form);
    });
    // Choosing a candidate to edit with no text yet fills in that candidate's text.
    form.addEventListener("change", function (event) {
      if (event.target.name === "candidate" && chosenKind(form) === "edited" && event.target.value) {
        const texts = candidateTexts();
        if (untouched(form, texts) && texts[event.target.value]) {
          TEXT_FIELDS.forEach(function (f) {
            const field = form.querySelector(`[name="${f}"]`);
            if (field) field.value = texts[event.target.value][f] || "";
          });
        }
      }
    });
    document.querySelectorAll("[data-edit-candidate]").forEach(function (link) {
      link.addEventListener("click", function (event) {
        if (startEdit(form, link.dataset.editCandidate)) event.preventDefault();
      });
    });
  }
  // The diff preview comes in place (htmx); bring it into view inside the form's column
  // without scrolling the page away from the candidates ("nearest" moves the window only
  // when the column itself is out of view).
  document.addEventListener("htmx:afterSettle", function (event) {
    const preview = document.getElementById("diff-preview");
    if (preview && event.target && (event.target === preview || event.target.id === "diff-preview")) {
      preview.scrollIntoView({ block: "nearest" });
    }
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
