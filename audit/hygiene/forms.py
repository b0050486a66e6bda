"""Forms of release hygiene (crispy, Bootstrap 5). They parse input; the rules live in
``audit.hygiene.services``."""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Layout, Submit
from django import forms
from django.urls import reverse

from audit.hygiene.models import HygieneDecision
from audit.hygiene.services import NOTE_MAX_CHARS, REASON_MAX_CHARS
from core.text_rules import TextRules


def _helper(action: str, button: Submit, *, form_id: str, attrs=None) -> FormHelper:
    helper = FormHelper()
    helper.form_action = action
    helper.form_method = "post"
    helper.form_id = form_id
    if attrs:
        helper.attrs = attrs
    helper.add_input(button)
    return helper


class HygieneRunForm(TextRules, forms.Form):
    note = forms.CharField(label="Note", required=False, max_length=NOTE_MAX_CHARS)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = _helper(
            reverse("audit:hygiene-runs"),
            Submit("start", "Screen the published texts"),
            form_id="hygiene-run-form",
        )


class FlagDecisionForm(TextRules, forms.Form):
    decision = forms.ChoiceField(
        label="Decision", choices=HygieneDecision.Decision.choices, widget=forms.RadioSelect
    )
    reason = forms.CharField(
        label="Reason",
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        max_length=REASON_MAX_CHARS,
        help_text="Required when you dismiss the flag: say why the text is fine.",
    )

    def __init__(self, *args, flag_id: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = _helper(
            reverse("audit:hygiene-flag-decide", kwargs={"flag_id": flag_id}),
            Submit("submit", "Record my decision"),
            form_id="hygiene-decision-form",
            attrs={
                "data-confirm": "Record your decision on this flag? Confirming sends the text "
                "for repair; dismissing keeps it as it is and a later screen will not ask "
                "about the same span again. You can decide again later; every decision is kept.",
                "data-confirm-label": "Record decision",
            },
        )
        self.helper.layout = Layout("decision", "reason")

    def clean(self):
        data = super().clean()
        if (
            data.get("decision") == HygieneDecision.Decision.DISMISS
            and not (data.get("reason") or "").strip()
        ):
            self.add_error("reason", "Say why the flagged text is fine before dismissing the flag.")
        return data
