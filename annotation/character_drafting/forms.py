"""The admin's drafting forms: the design (checked, then confirmed), a redraft, and the
next prompt version."""

import hashlib
import json

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms

from annotation.character_drafting import design
from annotation.character_drafting.models import DraftingJob
from annotation.profile_review.models import PROFILE_FIELD_CHOICES
from core.llm_runs.forms import budget_field
from core.text_rules import NAME, NOTE, TEXT, TextRules


def plan_digest(plan: list[design.PlannedCharacter], model: str) -> str:
    payload = json.dumps([p.as_dict() for p in plan] + [model], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


class DraftingDesignForm(TextRules, forms.Form):
    """The design. "Check the plan" shows what would be drafted; "Launch drafting" is
    accepted only for the plan that was shown (``confirmed_plan`` carries its digest),
    so nothing launches unseen."""

    design = forms.ChoiceField(
        label="Design",
        choices=[
            (DraftingJob.Design.TABLE4, DraftingJob.Design.TABLE4.label),
            (DraftingJob.Design.CUSTOM, DraftingJob.Design.CUSTOM.label),
        ],
        initial=DraftingJob.Design.TABLE4,
        widget=forms.RadioSelect,
        help_text="The paper's design: Characters 1-10 are N, C, E, A, O high then low "
        "(0.95 / 0.10, the other scores 0.30-0.70 chosen by the model), Character 11 the "
        "all-0.50 reference whose vector is fixed. Characters that exist already are skipped.",
    )
    custom_design = forms.CharField(
        max_length=TEXT,
        label="Custom requirements (one character per line)",
        required=False,
        widget=forms.Textarea(
            attrs={"rows": 5, "class": "font-monospace", "placeholder": "CHAR_12: E low"}
        ),
        help_text="'CHAR_12: E low' (an anchor; the model chooses the rest), 'CHAR_13: "
        "neutral' (all 0.50), or 'CHAR_14: O=0.95 C=0.40 E=0.55 A=0.60 N=0.35' (a whole "
        "vector, fixed).",
    )
    model = forms.CharField(
        label="Model",
        max_length=200,
        required=False,
        help_text="Leave as configured, or name another model of the configured provider.",
    )
    note = forms.CharField(
        max_length=NOTE, label="Note", required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
    budget_usd = budget_field()
    confirmed_plan = forms.CharField(max_length=NAME, required=False, widget=forms.HiddenInput)

    def __init__(self, *args, confirm: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_id = "drafting-design-form"
        self.helper.form_method = "post"
        self.helper.add_input(Submit("preview", "Check the plan", css_class="btn-outline-primary"))
        if confirm:
            self.helper.add_input(Submit("launch", "Launch drafting"))

    def clean(self):
        data = super().clean()
        if data.get("design") == DraftingJob.Design.CUSTOM:
            try:
                data["plan"] = design.parse_custom_design(data.get("custom_design") or "")
            except design.DesignError as error:
                self.add_error("custom_design", str(error))
        elif data.get("design") == DraftingJob.Design.TABLE4:
            data["plan"] = design.table4_plan()
        return data

    def digest(self) -> str:
        return plan_digest(self.cleaned_data["plan"], self.cleaned_data.get("model") or "")


class RedraftForm(TextRules, forms.Form):
    field = forms.ChoiceField(
        label="What to redraft",
        choices=[
            ("", "Every field the open change requests name (before review: the whole draft)"),
            *PROFILE_FIELD_CHOICES,
        ],
        required=False,
        help_text="After review, only a field an open change request names.",
    )
    admin_note = forms.CharField(
        max_length=NOTE,
        label="Note to the model (optional)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Added to the open change requests in the prompt.",
    )
    model = forms.CharField(label="Model", max_length=200, required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_id = "redraft-form"
        self.helper.form_method = "post"
        self.helper.add_input(Submit("redraft", "Redraft"))


class DraftingPromptForm(TextRules, forms.Form):
    system_template = forms.CharField(
        max_length=TEXT,
        label="System prompt",
        widget=forms.Textarea(attrs={"rows": 14, "class": "font-monospace"}),
    )
    user_template = forms.CharField(
        max_length=TEXT,
        label="User prompt",
        widget=forms.Textarea(attrs={"rows": 6, "class": "font-monospace"}),
        help_text="Placeholders: {char_key}, {design_brief}. Write {{ and }} for a brace.",
    )
    redraft_template = forms.CharField(
        max_length=TEXT,
        label="Redraft block",
        widget=forms.Textarea(attrs={"rows": 10, "class": "font-monospace"}),
        help_text="Appended for a redraft. Placeholders: {version_number}, {scope}, "
        "{current_profile}, {change_requests}, {admin_note}.",
    )
    note = forms.CharField(max_length=NOTE, label="What changed", required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_id = "drafting-prompt-form"
        self.helper.form_method = "post"
        self.helper.add_input(Submit("save", "Save as the next version"))
