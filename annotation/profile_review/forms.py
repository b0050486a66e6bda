"""Forms of profile review (crispy, Bootstrap 5). They parse input; the rules live in
``services``. ``form_helper`` and ``textarea`` serve scenario review's forms too."""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Div, Layout, Submit
from django import forms
from django.urls import reverse

from annotation.corpus.models import CORE_PATTERN_COUNT
from annotation.profile_review.models import (
    BIG_FIVE_FIELDS,
    PROFILE_CRITERIA,
    PROFILE_FIELD_CHOICES,
    ChangeRequest,
    CriterionJudgement,
    Recommendation,
)
from annotation.profile_review.services import EDIT_FIELD_LABELS
from annotation.profile_review.services import PROFILE_TEXT_LIMITS as LIMITS
from core.drafts import autosave_attrs
from core.text_rules import TextRules


def form_helper(action: str, *buttons, form_id: str | None = None, attrs: dict | None = None):
    """A crispy helper posting to ``action`` with the given submit buttons."""
    helper = FormHelper()
    helper.form_action = action
    helper.form_method = "post"
    if form_id:
        helper.form_id = form_id
    if attrs:
        helper.attrs = attrs
    for button in buttons:
        helper.add_input(button)
    return helper


def textarea(n: int) -> forms.Textarea:
    """A textarea ``n`` rows high."""
    return forms.Textarea(attrs={"rows": n})


class ChangeRequestForm(TextRules, forms.Form):
    field = forms.ChoiceField(label="Field", choices=PROFILE_FIELD_CHOICES)
    passage = forms.CharField(
        max_length=LIMITS["passage"],
        label="Passage",
        widget=textarea(2),
        help_text="Select text in the profile above to copy it here, or type or paste it.",
    )
    concern = forms.CharField(max_length=LIMITS["concern"], label="Concern", widget=textarea(2))
    suggested_correction = forms.CharField(
        max_length=LIMITS["suggested_correction"], label="Suggested correction", widget=textarea(2)
    )

    def __init__(self, *args, character_key: str, **kwargs):
        super().__init__(*args, **kwargs)
        action = reverse("review:change-request-add", kwargs={"key": character_key})
        self.fields["passage"].widget.attrs["data-passage-input"] = ""
        self.fields["field"].widget.attrs["data-field-input"] = ""
        self.helper = form_helper(
            action,
            Submit("add", "Add change request", css_class="btn-outline-primary"),
            form_id="change-request-form",
            attrs={
                "hx-post": action,
                "hx-target": "#change-requests",
                "hx-swap": "outerHTML",
            },
        )


# What the review form posts, in its order; its autosave keeps exactly these.
PROFILE_REVIEW_FIELDS = (
    *(n for n, _, _ in PROFILE_CRITERIA),
    "recommendation",
    "explanation",
    "unresolved_concern",
    "missing_information",
)


class ProfileReviewForm(TextRules, forms.Form):
    recommendation = forms.ChoiceField(
        label="Overall recommendation",
        choices=Recommendation.choices,
        widget=forms.RadioSelect,
        required=False,
    )
    explanation = forms.CharField(
        max_length=LIMITS["explanation"],
        label="Explanation",
        widget=textarea(3),
        required=False,
        help_text="Required when flagging for further adjudication.",
    )
    unresolved_concern = forms.CharField(
        max_length=LIMITS["unresolved_concern"],
        label="Unresolved concern",
        widget=textarea(2),
        required=False,
    )
    missing_information = forms.CharField(
        max_length=LIMITS["missing_information"],
        label="Missing information needed for your judgment",
        widget=textarea(2),
        required=False,
    )

    def __init__(self, *args, character_key: str, **kwargs):
        super().__init__(*args, **kwargs)
        for name, label, help_text in PROFILE_CRITERIA:
            self.fields[name] = forms.ChoiceField(
                label=label,
                help_text=help_text,
                choices=CriterionJudgement.choices,
                widget=forms.RadioSelect,
                required=False,
            )
        self.order_fields(PROFILE_REVIEW_FIELDS)
        self.helper = form_helper(
            reverse("review:profile-review", kwargs={"key": character_key}),
            Submit("save", "Save draft", css_class="btn-outline-secondary"),
            Submit("submit", "Submit review"),
            form_id="profile-review-form",
        )
        draft = reverse("review:profile-review-draft", kwargs={"key": character_key})
        self.helper.layout = Layout(Div(*PROFILE_REVIEW_FIELDS, **autosave_attrs(draft)))

    def criteria(self) -> dict[str, str]:
        return {n: self.cleaned_data.get(n) or "" for n, _, _ in PROFILE_CRITERIA}


def _core_pattern_field(i: int) -> forms.CharField:
    name = f"core_pattern_{i}"
    return forms.CharField(
        label=EDIT_FIELD_LABELS[name], max_length=LIMITS[name], widget=textarea(2)
    )


class ProfileEditForm(TextRules, forms.Form):
    """Every editable field, prefilled from the latest version; the service diffs them."""

    construction_label = forms.CharField(
        max_length=LIMITS["construction_label"], label=EDIT_FIELD_LABELS["construction_label"]
    )
    occupation = forms.CharField(
        max_length=LIMITS["occupation"], label=EDIT_FIELD_LABELS["occupation"]
    )
    description = forms.CharField(
        max_length=LIMITS["description"], label=EDIT_FIELD_LABELS["description"], widget=textarea(3)
    )
    self_value_logic = forms.CharField(
        max_length=LIMITS["self_value_logic"],
        label=EDIT_FIELD_LABELS["self_value_logic"],
        widget=textarea(2),
    )
    confirm_anchor_change = forms.BooleanField(
        label="I confirm changing the anchor trait score",
        required=False,
        help_text="Without it an edit that changes the defining trait's score is refused.",
    )
    note = forms.CharField(
        max_length=LIMITS["note"], label="Edit note", widget=textarea(2), required=False
    )

    def __init__(self, *args, character_key: str, **kwargs):
        super().__init__(*args, **kwargs)
        for name in BIG_FIVE_FIELDS:
            self.fields[name] = forms.FloatField(
                label=EDIT_FIELD_LABELS[name],
                min_value=0.0,
                max_value=1.0,
                widget=forms.NumberInput(attrs={"step": "0.01"}),
            )
        for i in range(1, CORE_PATTERN_COUNT + 1):
            self.fields[f"core_pattern_{i}"] = _core_pattern_field(i)
        self.order_fields(
            [
                "construction_label",
                "occupation",
                *BIG_FIVE_FIELDS,
                "description",
                "self_value_logic",
                *[f"core_pattern_{i}" for i in range(1, CORE_PATTERN_COUNT + 1)],
                "confirm_anchor_change",
                "note",
            ]
        )
        self.helper = form_helper(
            reverse("review:profile-edit", kwargs={"key": character_key}),
            Submit("save", "Save as the next version"),
            form_id="profile-edit-form",
        )

    @classmethod
    def dynamic_text_fields(cls) -> dict:
        return {
            f"core_pattern_{i}": _core_pattern_field(i) for i in range(1, CORE_PATTERN_COUNT + 1)
        }

    @classmethod
    def initial_for(cls, version) -> dict:
        initial = {
            f: getattr(version, f)
            for f in (
                "construction_label",
                "occupation",
                *BIG_FIVE_FIELDS,
                "description",
                "self_value_logic",
            )
        }
        for i, pattern in enumerate(version.core_patterns or [], start=1):
            initial[f"core_pattern_{i}"] = pattern
        return initial

    def values(self) -> dict:
        data = dict(self.cleaned_data)
        data["core_patterns"] = [
            data.pop(f"core_pattern_{i}") for i in range(1, CORE_PATTERN_COUNT + 1)
        ]
        data.pop("confirm_anchor_change", None)
        data.pop("note", None)
        return data


class ChangeRequestResolveForm(TextRules, forms.Form):
    status = forms.ChoiceField(
        label="Resolution",
        choices=[
            (ChangeRequest.Status.ACCEPTED, "Accept"),
            (ChangeRequest.Status.REJECTED, "Reject"),
        ],
        widget=forms.RadioSelect,
    )
    reason = forms.CharField(
        max_length=LIMITS["reason"],
        label="Reason",
        required=False,
        widget=textarea(1),
        help_text="Required when rejecting.",
    )

    def __init__(self, *args, character_key: str, request_id: int, **kwargs):
        kwargs.setdefault("prefix", f"cr{request_id}")
        super().__init__(*args, **kwargs)
        action = reverse(
            "review:change-request-resolve", kwargs={"key": character_key, "id": request_id}
        )
        self.helper = form_helper(
            action,
            Submit(
                "resolve",
                "Resolve",
                css_class="btn-sm btn-outline-primary",
                css_id=f"resolve-submit-{request_id}",
            ),
            form_id=f"resolve-{request_id}",
            attrs={
                "hx-post": action,
                "hx-target": f"#change-request-{request_id}",
                "hx-swap": "outerHTML",
            },
        )
        # An explicit layout: without one, crispy-bootstrap5 repeats the form's attributes
        # (its id, its htmx) on the radio group's <div>.
        self.helper.layout = Layout("status", "reason")


class FreezeForm(TextRules, forms.Form):
    suitability_confirmed = forms.BooleanField(
        label="Final suitability check: the specification is coherent and fit to guide "
        "memory generation",
        required=False,
    )
    note = forms.CharField(
        max_length=LIMITS["note"], label="Note", widget=textarea(2), required=False
    )

    def __init__(self, *args, character_key: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = form_helper(
            reverse("review:profile-freeze", kwargs={"key": character_key}),
            Submit(
                "freeze",
                "Freeze this version",
                css_class="btn-success",
                **{
                    "data-confirm": "Freeze this version as the character's final profile? "
                    "Memory generation will build on it, and a frozen version cannot be "
                    "edited or unfrozen: this cannot be undone.",
                    "data-confirm-label": "Freeze",
                },
            ),
            form_id="freeze-form",
        )
