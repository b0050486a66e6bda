"""Forms of scenario review and blueprints (crispy, Bootstrap 5). They parse input; the
rules live in ``services`` and ``blueprints``."""

from crispy_forms.layout import Div, Field, Fieldset, Layout, Submit
from crispy_forms.utils import TEMPLATE_PACK
from django import forms
from django.urls import reverse

from annotation.corpus.models import SCENARIO_CONTENT_LIMITS as LIMITS
from annotation.profile_review.forms import form_helper, textarea
from annotation.scenario_review.models import (
    BLUEPRINT_TITLE_MAX,
    DIAMONDS_ANCHORS,
    DIAMONDS_DEFINITIONS,
    DIAMONDS_DIMENSION_CHOICES,
    DIAMONDS_DIMENSIONS,
    DIAMONDS_LABELS,
    DIAMONDS_MAX,
    DIAMONDS_MID,
    DIAMONDS_MIN,
    DIAMONDS_SCALE,
    SCENARIO_INTENSITIES,
    ScreeningDecision,
)
from core.drafts import autosave_attrs
from core.life_stages import LIFE_STAGE_CHOICES
from core.text_rules import NOTE, TextRules


class ScreeningForm(TextRules, forms.Form):
    # The three checks come before the decision: a reviewer works through them, then
    # approves only when all three hold (App. C.2 pass 1).
    logically_consistent = forms.BooleanField(label="Logically consistent", required=False)
    psychologically_plausible = forms.BooleanField(
        label="Psychologically plausible", required=False
    )
    character_agnostic = forms.BooleanField(
        label="Character-agnostic: no identity anchors for “you” (age, occupation, tenure, "
        "education, family status, money figures)",
        required=False,
    )
    decision = forms.ChoiceField(
        label="Pass 1 decision",
        choices=ScreeningDecision.Decision.choices,
        widget=forms.RadioSelect,
    )
    note = forms.CharField(
        label="Note",
        max_length=NOTE,
        widget=textarea(2),
        required=False,
        help_text="Required when flagging.",
    )

    def __init__(self, *args, scenario_id: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = form_helper(
            reverse("review:scenario-screen", kwargs={"scenario_id": scenario_id}),
            Submit("screen", "Record my decision"),
            form_id="screening-form",
        )
        self.helper.layout = Layout(
            Fieldset(
                "The three checks (all must hold to approve)",
                "logically_consistent",
                "psychologically_plausible",
                "character_agnostic",
                css_class="mb-2",
                data_testid="screening-checks",
            ),
            Field("decision", wrapper_class="mb-2"),
            "note",
        )


class ScenarioContentForm(TextRules, forms.Form):
    """The four-component schema (App. C.1 Table 11), for a revision or manual entry."""

    stage = forms.ChoiceField(label="Life-stage bin", choices=LIFE_STAGE_CHOICES)
    age = forms.IntegerField(label="Age", min_value=6, max_value=50)
    age_range = forms.CharField(max_length=LIMITS["age_range"], label="Age range label")
    diamonds_dimension = forms.ChoiceField(
        label="DIAMONDS dimension", choices=[("", "—"), *DIAMONDS_DIMENSION_CHOICES], required=False
    )
    name = forms.CharField(max_length=LIMITS["name"], label="Name")
    category = forms.CharField(max_length=LIMITS["category"], label="Category")
    intensity = forms.ChoiceField(label="Intensity", choices=[(i, i) for i in SCENARIO_INTENSITIES])
    description_for_agent = forms.CharField(
        max_length=LIMITS["description_for_agent"],
        label="Description for the agent",
        widget=textarea(2),
    )
    setting_location = forms.CharField(
        max_length=LIMITS["setting_location"], label="Setting: location", widget=textarea(1)
    )
    setting_time = forms.CharField(max_length=LIMITS["setting_time"], label="Setting: time")
    setting_atmosphere = forms.CharField(
        max_length=LIMITS["setting_atmosphere"], label="Setting: atmosphere", widget=textarea(1)
    )
    context_text = forms.CharField(
        max_length=LIMITS["context_text"], label="Context", widget=textarea(6)
    )
    trigger_sender = forms.CharField(max_length=LIMITS["trigger_sender"], label="Trigger: sender")
    trigger_message = forms.CharField(
        max_length=LIMITS["trigger_message"], label="Trigger: message", widget=textarea(4)
    )
    action_required = forms.CharField(
        max_length=LIMITS["action_required"],
        label="Action required",
        widget=textarea(2),
        required=False,
    )
    note = forms.CharField(
        label="What this version changes, and why",
        max_length=NOTE,
        widget=textarea(2),
        required=False,
    )

    def __init__(self, *args, action: str, submit_label: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = form_helper(
            action, Submit("save", submit_label), form_id="scenario-content-form"
        )

    def content(self) -> dict:
        data = dict(self.cleaned_data)
        data.pop("note", None)
        return data


class DiamondsScale(Field):
    """A dimension rated on the 1–7 scale, drawn with the protocol's anchors (App. C.2) and
    what the dimension means, in visible text (a tooltip reaches no keyboard user).
    ``hint`` is a line under the definition (the re-assessment shows the two ratings)."""

    template = "review/partials/diamonds_scale.html"
    anchors = {
        "low_value": DIAMONDS_MIN,
        "low": DIAMONDS_ANCHORS[DIAMONDS_MIN],
        "mid_value": DIAMONDS_MID,
        "mid": DIAMONDS_ANCHORS[DIAMONDS_MID],
        "high_value": DIAMONDS_MAX,
        "high": DIAMONDS_ANCHORS[DIAMONDS_MAX],
    }

    def __init__(self, dimension: str, *, hint: str = "", **kwargs):
        super().__init__(dimension, **kwargs)
        self.dimension = dimension
        self.hint = hint

    def render(self, form, context, template_pack=TEMPLATE_PACK, extra_context=None, **kwargs):
        extra_context = {
            **(extra_context or {}),
            "anchors": self.anchors,
            "definition": DIAMONDS_DEFINITIONS.get(self.dimension, ""),
            "hint": self.hint,
        }
        return super().render(
            form, context, template_pack=template_pack, extra_context=extra_context, **kwargs
        )


def _scale_field(label: str, *, required_message: str) -> forms.TypedChoiceField:
    """One dimension's 1–7 radio group (drawn by :class:`DiamondsScale`)."""
    return forms.TypedChoiceField(
        label=label,
        choices=[(n, str(n)) for n in DIAMONDS_SCALE],
        coerce=int,
        widget=forms.RadioSelect,
        error_messages={"required": required_message, "invalid_choice": required_message},
    )


# What the rating form posts; its autosave keeps exactly these.
DIAMONDS_RATING_FIELDS = (*(f for f, _, _ in DIAMONDS_DIMENSIONS), "note")


class DiamondsRatingForm(TextRules, forms.Form):
    note = forms.CharField(
        label="Note (optional)", max_length=NOTE, widget=textarea(2), required=False
    )

    def __init__(self, *args, scenario_id: str, **kwargs):
        super().__init__(*args, **kwargs)
        for f, label, _ in DIAMONDS_DIMENSIONS:
            self.fields[f] = _scale_field(
                label, required_message=f"Rate {label} from {DIAMONDS_MIN} to {DIAMONDS_MAX}."
            )
        self.order_fields(DIAMONDS_RATING_FIELDS)
        self.helper = form_helper(
            reverse("review:scenario-rate", kwargs={"scenario_id": scenario_id}),
            Submit("rate", "Submit my ratings"),
            form_id="rating-form",
        )
        draft = reverse("review:scenario-rating-draft", kwargs={"scenario_id": scenario_id})
        self.helper.layout = Layout(
            Div(
                *(DiamondsScale(f) for f, _, _ in DIAMONDS_DIMENSIONS),
                Field("note"),
                **autosave_attrs(draft),
            )
        )

    def scores(self) -> dict[str, int]:
        return {f: self.cleaned_data[f] for f, _, _ in DIAMONDS_DIMENSIONS}


class ReassessmentForm(TextRules, forms.Form):
    """A proposal (or counter-proposal) of the final values of the split dimensions, on the
    same 1–7 scales as the individual ratings; the other reviewer confirms it with
    ``ReassessmentConfirmForm``. ``ratings`` (dimension → the two ratings) is shown beside
    each scale."""

    note = forms.CharField(
        label="How the reviewers agreed", max_length=NOTE, widget=textarea(2), required=False
    )

    def __init__(
        self,
        *args,
        scenario_id: str,
        dimensions: list[str],
        counter=False,
        ratings: dict | None = None,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        for f in dimensions:
            label = DIAMONDS_LABELS[f]
            self.fields[f] = _scale_field(
                f"Agreed {label}",
                required_message=f"Give the agreed {label} from {DIAMONDS_MIN} to {DIAMONDS_MAX}.",
            )
        self.order_fields([*dimensions, "note"])
        self.dimensions = dimensions
        label = "Counter-propose these values" if counter else "Propose these final ratings"
        self.helper = form_helper(
            reverse("review:scenario-reassess", kwargs={"scenario_id": scenario_id}),
            Submit("reassess", label),
            form_id="reassessment-form",
        )
        ratings = ratings or {}
        self.helper.layout = Layout(
            *(DiamondsScale(f, hint=_ratings_hint(ratings.get(f))) for f in dimensions),
            Field("note"),
        )

    def agreed(self) -> dict[str, int]:
        return {f: self.cleaned_data[f] for f in self.dimensions}


def _ratings_hint(values) -> str:
    if not values:
        return ""
    return "Rated " + " and ".join(str(v) for v in values) + " independently."


class ReassessmentConfirmForm(TextRules, forms.Form):
    """The other reviewer's confirmation of the current proposal: it carries the proposal
    and the values the page showed, so a proposal replaced meanwhile is refused."""

    proposal = forms.IntegerField(widget=forms.HiddenInput)
    # The API's optional note on the confirmation (the page sends none): checked with the
    # proposal and the values, so one answer names every problem.
    note = forms.CharField(
        label="How the reviewers agreed",
        max_length=NOTE,
        required=False,
        widget=forms.HiddenInput,
    )

    def __init__(self, *args, scenario_id: str, dimensions: list[str], proposal=None, **kwargs):
        if proposal is not None:
            kwargs.setdefault("initial", {"proposal": proposal.pk, **proposal.values})
        super().__init__(*args, **kwargs)
        for f in dimensions:
            self.fields[f] = forms.IntegerField(
                min_value=DIAMONDS_MIN, max_value=DIAMONDS_MAX, widget=forms.HiddenInput
            )
        self.dimensions = dimensions
        self.helper = form_helper(
            reverse("review:scenario-reassess-confirm", kwargs={"scenario_id": scenario_id}),
            Submit("confirm", "Confirm these final ratings"),
            form_id="confirm-form",
        )

    def agreed(self) -> dict[str, int]:
        return {f: self.cleaned_data[f] for f in self.dimensions}


class BlueprintForm(TextRules, forms.Form):
    title = forms.CharField(label="Title", max_length=BLUEPRINT_TITLE_MAX)
    summary = forms.CharField(
        label="Summary",
        max_length=NOTE,
        widget=textarea(4),
        help_text="Establish one core tension; keep it character-agnostic.",
    )
    stage = forms.ChoiceField(label="Life-stage bin", choices=LIFE_STAGE_CHOICES)
    diamonds_dimension = forms.ChoiceField(
        label="DIAMONDS dimension", choices=DIAMONDS_DIMENSION_CHOICES
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = form_helper(
            reverse("review:blueprint-list"),
            Submit("create", "Save and expand with the LLM"),
            form_id="blueprint-form",
        )
