"""Forms of candidate screening (crispy). They parse input; the rules live in
``annotation.candidate_screening.services``."""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.urls import reverse

from annotation.candidate_screening.models import SCREENED_FIELDS
from core.text_rules import NOTE, TEXT, TextRules

FIELD_LABELS = {
    "summary": "Summary (inner consciousness)",
    "emotional_tone": "Emotional tone (inner consciousness)",
    "core_reasoning": "Core reasoning (inner consciousness)",
    "final_decision": "Final decision",
}


def _helper(action, label, confirm, confirm_label):
    helper = FormHelper()
    helper.form_action = action
    helper.attrs = {"data-confirm": confirm, "data-confirm-label": confirm_label}
    helper.add_input(Submit("submit", label))
    return helper


class CleanForm(TextRules, forms.Form):
    reason = forms.CharField(
        max_length=NOTE,
        label="Why the text was edited",
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Kept with the edit, beside the text before and after.",
    )

    @classmethod
    def dynamic_text_fields(cls) -> dict:
        return {
            name: forms.CharField(label=FIELD_LABELS[name], max_length=TEXT)
            for name in SCREENED_FIELDS
        }

    def __init__(self, *args, flag, **kwargs):
        super().__init__(*args, **kwargs)
        candidate = flag.candidate
        for name in SCREENED_FIELDS:
            self.fields[name] = forms.CharField(
                label=FIELD_LABELS[name],
                max_length=TEXT,
                required=name == "final_decision",
                initial=getattr(candidate, name),
                strip=True,
                widget=forms.Textarea(attrs={"rows": 4}),
            )
        self.order_fields([*SCREENED_FIELDS, "reason"])
        self.helper = _helper(
            reverse("screening:clean", args=[flag.pk]),
            "Save the cleaned text",
            f"Replace the text of candidate {candidate.pk} with your edit? Annotators and "
            "everything downstream read the cleaned text; the text before is kept in the "
            "record. This cannot be undone.",
            "Save the cleaned text",
        )


class AcceptForm(TextRules, forms.Form):
    reason = forms.CharField(
        max_length=NOTE,
        label="Why these findings are false positives",
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def __init__(self, *args, flag, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = _helper(
            reverse("screening:accept", args=[flag.pk]),
            "Accept the text as it is",
            f"Accept leak flag {flag.pk} as a false positive? The text stays as it is and "
            "the pair can be assigned. This cannot be undone.",
            "Accept",
        )
