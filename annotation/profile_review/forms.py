"""Forms of the construction-stage reviews (crispy, Bootstrap 5). They parse input; the
rules live in ``review_services``."""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.urls import reverse

from annotation.corpus.life_stages import LIFE_STAGE_CHOICES
from annotation.corpus.models import CORE_PATTERN_COUNT
from annotation.profile_review.models import (
    BIG_FIVE_FIELDS,
    DIAMONDS_DIMENSION_CHOICES,
    DIAMONDS_DIMENSIONS,
    DIAMONDS_LABELS,
    DIAMONDS_MAX,
    DIAMONDS_MIN,
    PROFILE_CRITERIA,
    PROFILE_FIELD_CHOICES,
    SCENARIO_INTENSITIES,
    ChangeRequest,
    CriterionJudgement,
    Recommendation,
    ScreeningDecision,
)
from annotation.profile_review.services import EDIT_FIELD_LABELS


def _helper(action: str, *buttons, form_id: str | None = None, attrs: dict | None = None):
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


def _rows(n: int) -> forms.Textarea:
    return forms.Textarea(attrs={"rows": n})


class ChangeRequestForm(forms.Form):
    field = forms.ChoiceField(label="Field", choices=PROFILE_FIELD_CHOICES)
    passage = forms.CharField(
        label="Passage",
        widget=_rows(2),
        help_text="Select text in the profile above to copy it here, or type or paste it.",
    )
    concern = forms.CharField(label="Concern", widget=_rows(2))
    suggested_correction = forms.CharField(label="Suggested correction", widget=_rows(2))

    def __init__(self, *args, character_key: str, **kwargs):
        super().__init__(*args, **kwargs)
        action = reverse("review:change-request-add", kwargs={"key": character_key})
        self.fields["passage"].widget.attrs["data-passage-input"] = ""
        self.fields["field"].widget.attrs["data-field-input"] = ""
        self.helper = _helper(
            action,
            Submit("add", "Add change request", css_class="btn-outline-primary"),
            form_id="change-request-form",
            attrs={
                "hx-post": action,
                "hx-target": "#change-requests",
                "hx-swap": "outerHTML",
            },
        )


class ProfileReviewForm(forms.Form):
    recommendation = forms.ChoiceField(
        label="Overall recommendation",
        choices=Recommendation.choices,
        widget=forms.RadioSelect,
        required=False,
    )
    explanation = forms.CharField(
        label="Explanation",
        widget=_rows(3),
        required=False,
        help_text="Required when flagging for further adjudication.",
    )
    unresolved_concern = forms.CharField(
        label="Unresolved concern", widget=_rows(2), required=False
    )
    missing_information = forms.CharField(
        label="Missing information needed for your judgment", widget=_rows(2), required=False
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
        order = [n for n, _, _ in PROFILE_CRITERIA] + [
            "recommendation",
            "explanation",
            "unresolved_concern",
            "missing_information",
        ]
        self.order_fields(order)
        self.helper = _helper(
            reverse("review:profile-review", kwargs={"key": character_key}),
            Submit("save", "Save draft", css_class="btn-outline-secondary"),
            Submit("submit", "Submit review"),
            form_id="profile-review-form",
        )

    def criteria(self) -> dict[str, str]:
        return {n: self.cleaned_data.get(n) or "" for n, _, _ in PROFILE_CRITERIA}


class ProfileEditForm(forms.Form):
    """Every editable field, prefilled from the latest version; the service diffs them."""

    construction_label = forms.CharField(label=EDIT_FIELD_LABELS["construction_label"])
    occupation = forms.CharField(label=EDIT_FIELD_LABELS["occupation"])
    description = forms.CharField(label=EDIT_FIELD_LABELS["description"], widget=_rows(3))
    self_value_logic = forms.CharField(label=EDIT_FIELD_LABELS["self_value_logic"], widget=_rows(2))
    confirm_anchor_change = forms.BooleanField(
        label="I confirm changing the anchor trait score",
        required=False,
        help_text="Without it an edit that changes the defining trait's score is refused.",
    )
    note = forms.CharField(label="Edit note", widget=_rows(2), required=False)

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
            self.fields[f"core_pattern_{i}"] = forms.CharField(
                label=EDIT_FIELD_LABELS[f"core_pattern_{i}"], widget=_rows(2)
            )
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
        self.helper = _helper(
            reverse("review:profile-edit", kwargs={"key": character_key}),
            Submit("save", "Save as the next version"),
            form_id="profile-edit-form",
        )

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


class ChangeRequestResolveForm(forms.Form):
    status = forms.ChoiceField(
        label="Resolution",
        choices=[
            (ChangeRequest.Status.ACCEPTED, "Accept"),
            (ChangeRequest.Status.REJECTED, "Reject"),
        ],
        widget=forms.RadioSelect,
    )
    reason = forms.CharField(
        label="Reason",
        required=False,
        widget=_rows(1),
        help_text="Required when rejecting.",
    )

    def __init__(self, *args, character_key: str, request_id: int, **kwargs):
        kwargs.setdefault("prefix", f"cr{request_id}")
        super().__init__(*args, **kwargs)
        action = reverse(
            "review:change-request-resolve", kwargs={"key": character_key, "id": request_id}
        )
        self.helper = _helper(
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


class FreezeForm(forms.Form):
    suitability_confirmed = forms.BooleanField(
        label="Final suitability check: the specification is coherent and fit to guide "
        "memory generation",
        required=False,
    )
    note = forms.CharField(label="Note", widget=_rows(2), required=False)

    def __init__(self, *args, character_key: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = _helper(
            reverse("review:profile-freeze", kwargs={"key": character_key}),
            Submit("freeze", "Freeze this version", css_class="btn-success"),
            form_id="freeze-form",
        )


class ScreeningForm(forms.Form):
    decision = forms.ChoiceField(
        label="Pass 1 decision",
        choices=ScreeningDecision.Decision.choices,
        widget=forms.RadioSelect,
    )
    logically_consistent = forms.BooleanField(label="Logically consistent", required=False)
    psychologically_plausible = forms.BooleanField(
        label="Psychologically plausible", required=False
    )
    character_agnostic = forms.BooleanField(
        label="Character-agnostic: no identity anchors for “you” (age, occupation, tenure, "
        "education, family status, money figures)",
        required=False,
    )
    note = forms.CharField(
        label="Note", widget=_rows(2), required=False, help_text="Required when flagging."
    )

    def __init__(self, *args, scenario_id: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = _helper(
            reverse("review:scenario-screen", kwargs={"scenario_id": scenario_id}),
            Submit("screen", "Record my decision"),
            form_id="screening-form",
        )


class ScenarioContentForm(forms.Form):
    """The four-component schema (App. C.1 Table 11), for a revision or manual entry."""

    stage = forms.ChoiceField(label="Life-stage bin", choices=LIFE_STAGE_CHOICES)
    age = forms.IntegerField(label="Age", min_value=6, max_value=50)
    age_range = forms.CharField(label="Age range label")
    diamonds_dimension = forms.ChoiceField(
        label="DIAMONDS dimension", choices=[("", "—"), *DIAMONDS_DIMENSION_CHOICES], required=False
    )
    name = forms.CharField(label="Name")
    category = forms.CharField(label="Category")
    intensity = forms.ChoiceField(label="Intensity", choices=[(i, i) for i in SCENARIO_INTENSITIES])
    description_for_agent = forms.CharField(label="Description for the agent", widget=_rows(2))
    setting_location = forms.CharField(label="Setting: location", widget=_rows(1))
    setting_time = forms.CharField(label="Setting: time")
    setting_atmosphere = forms.CharField(label="Setting: atmosphere", widget=_rows(1))
    context_text = forms.CharField(label="Context", widget=_rows(6))
    trigger_sender = forms.CharField(label="Trigger: sender")
    trigger_message = forms.CharField(label="Trigger: message", widget=_rows(4))
    action_required = forms.CharField(label="Action required", widget=_rows(2), required=False)
    note = forms.CharField(
        label="What this version changes, and why", widget=_rows(2), required=False
    )

    def __init__(self, *args, action: str, submit_label: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = _helper(action, Submit("save", submit_label), form_id="scenario-content-form")

    def content(self) -> dict:
        data = dict(self.cleaned_data)
        data.pop("note", None)
        return data


class DiamondsRatingForm(forms.Form):
    note = forms.CharField(label="Note (optional)", widget=_rows(2), required=False)

    def __init__(self, *args, scenario_id: str, **kwargs):
        super().__init__(*args, **kwargs)
        for f, label, _ in DIAMONDS_DIMENSIONS:
            self.fields[f] = forms.IntegerField(
                label=label,
                min_value=DIAMONDS_MIN,
                max_value=DIAMONDS_MAX,
                widget=forms.NumberInput(
                    attrs={"min": DIAMONDS_MIN, "max": DIAMONDS_MAX, "inputmode": "numeric"}
                ),
            )
        self.order_fields([f for f, _, _ in DIAMONDS_DIMENSIONS] + ["note"])
        self.helper = _helper(
            reverse("review:scenario-rate", kwargs={"scenario_id": scenario_id}),
            Submit("rate", "Submit my ratings"),
            form_id="rating-form",
        )

    def scores(self) -> dict[str, int]:
        return {f: self.cleaned_data[f] for f, _, _ in DIAMONDS_DIMENSIONS}


class ReassessmentForm(forms.Form):
    note = forms.CharField(label="How the reviewers agreed", widget=_rows(2), required=False)

    def __init__(self, *args, scenario_id: str, dimensions: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        for f in dimensions:
            self.fields[f] = forms.IntegerField(
                label=f"Agreed {DIAMONDS_LABELS[f]}",
                min_value=DIAMONDS_MIN,
                max_value=DIAMONDS_MAX,
                widget=forms.NumberInput(attrs={"min": DIAMONDS_MIN, "max": DIAMONDS_MAX}),
            )
        self.order_fields([*dimensions, "note"])
        self.dimensions = dimensions
        self.helper = _helper(
            reverse("review:scenario-reassess", kwargs={"scenario_id": scenario_id}),
            Submit("reassess", "Record the agreed ratings"),
            form_id="reassessment-form",
        )

    def agreed(self) -> dict[str, int]:
        return {f: self.cleaned_data[f] for f in self.dimensions}


class BlueprintForm(forms.Form):
    title = forms.CharField(label="Title")
    summary = forms.CharField(
        label="Summary",
        widget=_rows(4),
        help_text="Establish one core tension; keep it character-agnostic.",
    )
    stage = forms.ChoiceField(label="Life-stage bin", choices=LIFE_STAGE_CHOICES)
    diamonds_dimension = forms.ChoiceField(
        label="DIAMONDS dimension", choices=DIAMONDS_DIMENSION_CHOICES
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = _helper(
            reverse("review:blueprint-list"),
            Submit("create", "Save and expand with the LLM"),
            form_id="blueprint-form",
        )
