"""Forms of arbitration (seed 000 App. D.2, arbitration guideline), crispy. They parse
input; the rules live in ``adjudication.arbitration.services``."""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.urls import reverse

from adjudication.arbitration.models import ArbitrationDecision

DECISION_CHOICES = [
    ("adopted", "Adopt a candidate as-is"),
    ("edited", "Edit a candidate (using the annotators' guidance)"),
    ("rewritten", "Rewrite the response from scratch"),
    ("discarded", "Discard the pair (fundamentally unfit)"),
]


def _rows(n):
    return forms.Textarea(attrs={"rows": n})


class ArbitrationForm(forms.Form):
    kind = forms.ChoiceField(label="Decision", choices=DECISION_CHOICES, widget=forms.RadioSelect)
    candidate = forms.TypedChoiceField(
        label="Candidate",
        coerce=int,
        required=False,
        choices=[("", "—")] + [(n, f"Candidate {n}") for n in (1, 2, 3)],
        help_text="The candidate to adopt or edit.",
    )
    summary = forms.CharField(label="Rationale (summary)", widget=_rows(4), required=False)
    emotional_tone = forms.CharField(label="Emotional tone", widget=_rows(2), required=False)
    core_reasoning = forms.CharField(label="Core reasoning", widget=_rows(3), required=False)
    final_decision = forms.CharField(
        label="Final decision",
        widget=_rows(3),
        required=False,
        help_text="Must state a concrete behavioral decision.",
    )
    reason = forms.CharField(
        label="Reason / note",
        widget=_rows(2),
        required=False,
        help_text="Required to discard: why the pair is fundamentally unfit.",
    )

    def __init__(self, *args, pair_id: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_action = reverse("adjudication:pair", kwargs={"pair_id": pair_id})
        self.helper.form_method = "post"
        self.helper.form_id = "arbitration-form"
        self.helper.add_input(Submit("preview", "Preview diff", css_class="btn-outline-secondary"))
        self.helper.add_input(Submit("decide", "Record decision"))

    def clean_kind(self):
        kind = self.cleaned_data["kind"]
        if kind not in ArbitrationDecision.Kind.values:
            raise forms.ValidationError("Choose a decision.")
        return kind


class ReopenForm(forms.Form):
    reason = forms.CharField(label="Reason for reopening", widget=_rows(2))

    def __init__(self, *args, pair_id: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_action = reverse("adjudication:reopen", kwargs={"pair_id": pair_id})
        self.helper.form_method = "post"
        self.helper.add_input(Submit("reopen", "Reopen decision", css_class="btn-outline-danger"))
