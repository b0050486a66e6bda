"""Forms of item review and of starting an assembly run."""

from django import forms

from adjudication.mcq import assembly_rules as mcq_assembly
from adjudication.mcq.models import OPTION_LABELS, McqReviewDecision
from core.llm_runs.forms import budget_field
from core.text_rules import NOTE, TEXT, TextRules, text_problem

# What the item page's revise form autosaves (the distractor, its revised text, the note).
REVISE_DRAFT_FIELDS = ("label", "content", "note")


class ReviewDecisionForm(TextRules, forms.Form):
    action = forms.ChoiceField(choices=McqReviewDecision.Action.choices)
    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    label = forms.ChoiceField(
        choices=[("", "—")] + [(x, x) for x in OPTION_LABELS], required=False, label="Option"
    )
    content = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), required=False, max_length=TEXT
    )
    reference_id = forms.IntegerField(required=False, label="Replacement reference")
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), required=False, max_length=NOTE
    )


def revise_draft_problem(data) -> str | None:
    """Why the revise form's draft cannot be saved (issue #24: a draft over a field's
    limit or with a control character is refused, never cut or stripped), or None."""
    label = data.get("label") or ""
    if label and label not in OPTION_LABELS:
        return f"Option {label!r} is not an option; choose A, B, C or D."
    for name, title, limit in (("content", "Content", TEXT), ("note", "Note", NOTE)):
        problem = text_problem(data.get(name) or "", label=title, limit=limit)
        if problem:
            return problem
    return None


class AssemblyRunForm(TextRules, forms.Form):
    measure = forms.ChoiceField(choices=[], initial=mcq_assembly.DEFAULT_MEASURE)
    similarity_max = forms.FloatField(
        min_value=0.01,
        max_value=1.0,
        initial=mcq_assembly.DEFAULT_SIMILARITY_MAX,
        label="Too similar to the key at cosine ≥",
    )
    relevance_min = forms.FloatField(
        min_value=0.0,
        max_value=0.99,
        initial=mcq_assembly.DEFAULT_RELEVANCE_MIN,
        label="Off-scenario below cosine",
    )

    include_unadjudicated = forms.BooleanField(
        required=False,
        label="Also assemble from references not adjudicated here (imported)",
        help_text="Overrides the stage gate: the protocol assembles adjudicated "
        "references only. Recorded as a protocol deviation in the export manifest.",
    )
    gate_override_reason = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        label="Reason for the override",
        max_length=NOTE,
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["measure"].choices = [(m, m) for m in sorted(mcq_assembly.MEASURES)]

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        reason = (data.get("gate_override_reason") or "").strip()
        if data.get("include_unadjudicated") and not reason:
            self.add_error("gate_override_reason", "Give the reason for overriding the gate.")
            return data
        data["gate_override_reason"] = reason if data.get("include_unadjudicated") else ""
        try:
            data["params"] = mcq_assembly.AssemblyParams(
                measure=data["measure"],
                similarity_max=data["similarity_max"],
                relevance_min=data["relevance_min"],
            )
        except ValueError as error:
            raise forms.ValidationError(str(error)) from error
        return data


class ScreeningRunForm(forms.Form):
    """Screen every item awaiting screening, as one run, with an optional budget."""

    budget_usd = budget_field(
        help_text="Optional. The run stops taking up items once its recorded cost reaches "
        "this; you can resume it with a higher budget. Blank: no budget."
    )
