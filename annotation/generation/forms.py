"""The admin's generation forms: launching a run, and saving a stage's next prompt version.

!!! BLINDING !!!  These forms name model families: admin pages only.
"""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.urls import reverse_lazy

from annotation.corpus.models import Character, Scenario
from annotation.generation.models import ModelFamily
from core.display import character_name, scenario_title
from core.llm_runs.forms import budget_field
from core.text_rules import NOTE, TEXT, TextRules


class SecondarySubmit(Submit):
    field_classes = "btn btn-outline-secondary"


class GenerationRunForm(TextRules, forms.Form):
    """Launch a generation run: the families, and optionally a subset of the pairs.

    Leaving both pair lists empty means every pair; choosing only characters means those
    characters with every scenario, and the other way round.
    """

    families = forms.MultipleChoiceField(
        label="Model families",
        choices=ModelFamily.choices,
        widget=forms.CheckboxSelectMultiple,
        initial=[family.value for family in ModelFamily],
        help_text="One candidate per pair and family.",
    )
    characters = forms.ModelMultipleChoiceField(
        label="Characters",
        queryset=Character.objects.order_by("key"),
        to_field_name="key",
        required=False,
        # A script may send any key (the page offers only real ones): name it plainly.
        error_messages={"invalid_choice": "Unknown character %(value)s."},
        widget=forms.SelectMultiple(attrs={"size": 8}),
        help_text="None chosen: every character (each pair must pass the gates).",
    )
    scenarios = forms.ModelMultipleChoiceField(
        label="Scenarios",
        queryset=Scenario.objects.order_by("scenario_id"),
        to_field_name="scenario_id",
        required=False,
        error_messages={"invalid_choice": "Unknown scenario %(value)s."},
        widget=forms.SelectMultiple(attrs={"size": 8}),
        help_text="None chosen: every scenario.",
    )
    note = forms.CharField(
        max_length=NOTE,
        label="Note",
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Why this run: shown in the run list.",
    )
    budget_usd = budget_field()
    override_gates = forms.BooleanField(
        label="Override the generation gates for the blocked pairs",
        required=False,
        help_text="Generation takes a pair only when the profile is frozen, the scenario has "
        "completed review and the character's memory audit is finalized. An override is "
        "recorded as a protocol deviation for each blocked pair and listed in the export "
        "manifest.",
    )
    override_reason = forms.CharField(
        max_length=NOTE,
        label="Reason for the override",
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Required with an override; the manifest quotes it.",
    )

    def __init__(self, *args, configured=(), **kwargs):
        super().__init__(*args, **kwargs)
        # A family without a provider stays choosable (the refusal names the settings to
        # set), but says so up front and is not ticked by default.
        self.fields["families"].choices = [
            (value, label if value in configured else f"{label} (no provider configured)")
            for value, label in ModelFamily.choices
        ]
        self.fields["families"].initial = [f for f in ModelFamily.values if f in configured] or (
            ModelFamily.values
        )
        # Named as people name them; the id stays for the admin who matches it to a file.
        self.fields["characters"].label_from_instance = character_name
        self.fields["scenarios"].label_from_instance = lambda s: (
            f"{scenario_title(s)} ({s.scenario_id})"
        )
        # The <form> tag is the template's: it carries the htmx attributes, which
        # crispy's helper.attrs would also stamp on the checkbox group.
        self.helper = FormHelper()
        self.helper.form_tag = False
        self.helper.add_input(Submit("launch", "Launch run"))
        self.helper.add_input(
            SecondarySubmit("estimate", "Count units", formnovalidate="formnovalidate")
        )

    def clean(self):
        data = super().clean()
        if data.get("override_gates") and not (data.get("override_reason") or "").strip():
            self.add_error(
                "override_reason",
                "Say why the gates are overridden: the reason is recorded as a protocol deviation.",
            )
        return data

    def override(self) -> dict:
        """The override as the service takes it (call after ``is_valid``)."""
        return {
            "override_gates": bool(self.cleaned_data.get("override_gates")),
            "override_reason": self.cleaned_data.get("override_reason") or "",
        }

    def pair_filter(self) -> dict:
        """The chosen subset as the service takes it (call after ``is_valid``); an empty
        list means every character or scenario, which the service spells None."""
        return {
            "characters": [c.key for c in self.cleaned_data.get("characters") or ()] or None,
            "scenarios": [s.scenario_id for s in self.cleaned_data.get("scenarios") or ()] or None,
        }

    def choices_for_estimate(self) -> dict | None:
        """The choices to count units for: the defaults when unbound, else the valid
        submitted choices; None while no family (or an unknown pair) is chosen."""
        if not self.is_bound:
            return {"families": self.fields["families"].initial, **dict.fromkeys(PAIR_FIELDS)}
        self.is_valid()
        if any(name in self.errors for name in ("families", *PAIR_FIELDS)):
            return None
        return {"families": self.cleaned_data["families"], **self.pair_filter()}


PAIR_FIELDS = ("characters", "scenarios")


class PromptVersionForm(TextRules, forms.Form):
    """The next version of one stage's prompt, prefilled from the current one."""

    system_template = forms.CharField(
        max_length=TEXT,
        label="System prompt",
        widget=forms.Textarea(attrs={"rows": 10, "class": "font-monospace"}),
    )
    user_template = forms.CharField(
        max_length=TEXT,
        label="User prompt template",
        widget=forms.Textarea(attrs={"rows": 14, "class": "font-monospace"}),
        help_text="Placeholders in {braces} are filled per unit; keep the ones the stage uses.",
    )
    note = forms.CharField(
        max_length=NOTE,
        label="What changed",
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def __init__(self, *args, stage: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_action = reverse_lazy("corpus:prompt-new", kwargs={"stage": stage})
        self.helper.form_method = "post"
        self.helper.add_input(Submit("save", "Save as the next version"))
