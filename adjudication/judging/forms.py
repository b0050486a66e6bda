"""The admin's launch form for a judge run.

!!! BLINDING !!!  Names model families and models: admin pages only.
"""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.urls import reverse

from adjudication.judging.models import MAX_ORDERS_PER_PAIR
from annotation.generation.models import ModelFamily
from core.display import character_name, scenario_title
from core.llm_runs.forms import budget_field
from core.protocol import PROTOCOL_SEED
from core.text_rules import NAME, NOTE, TextRules

ALL_PAIRS, CHOSEN_PAIRS = "all", "chosen"
LAUNCH_CONFIRM = (
    "Launch this judge run? Every chosen pair is sent to the judge model once per order; "
    "the calls are billed by the provider and cannot be taken back. You can cancel the "
    "run while it runs."
)


class JudgeRunForm(TextRules, forms.Form):
    name = forms.CharField(
        label="Name", max_length=NAME, required=False, help_text="Empty: the judge family's name."
    )
    provider_family = forms.ChoiceField(
        label="Provider",
        # Crispy renders help text as HTML: "<FAMILY>" would vanish as a tag.
        help_text="The configured provider (HEARTBENCH_CLAUDE_*, HEARTBENCH_GPT_* or "
        "HEARTBENCH_GEMINI_* in the environment) that answers for the judge.",
    )
    model = forms.CharField(
        label="Model", max_length=NAME, required=False, help_text="Empty: the provider's model."
    )
    judge_family = forms.ChoiceField(
        label="Judge model family",
        required=False,
        help_text="The family the judge model belongs to: the calibration report checks "
        "whether the judge favours candidates of its own family. Empty: the provider's.",
    )
    pair_scope = forms.ChoiceField(
        label="Pairs",
        widget=forms.RadioSelect,
        initial=ALL_PAIRS,
        help_text="A judge run takes pairs whose three annotators have all submitted.",
    )
    pairs = forms.ModelMultipleChoiceField(
        label="Chosen pairs",
        queryset=None,
        required=False,
        widget=forms.SelectMultiple(attrs={"size": 8}),
        help_text="Used when “Only the pairs chosen here” is selected.",
    )
    orders_per_pair = forms.IntegerField(
        label="Candidate orders per pair",
        min_value=1,
        max_value=MAX_ORDERS_PER_PAIR,
        initial=1,
        help_text=f"1 to {MAX_ORDERS_PER_PAIR}: each order is one call with the candidates "
        "lettered differently; two or more measure position consistency.",
    )
    seed = forms.IntegerField(
        label="Seed",
        initial=PROTOCOL_SEED,
        help_text="Draws the candidate orders; the same seed gives the same orders.",
    )
    note = forms.CharField(
        label="Note", required=False, max_length=NOTE, widget=forms.Textarea(attrs={"rows": 2})
    )
    budget_usd = budget_field(
        help_text="Optional. The run stops sending calls once their recorded cost reaches "
        "this; you can resume it with a higher budget. Blank: no budget."
    )

    def __init__(self, *args, configured, eligible, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["provider_family"].choices = [
            (f.value, f.label) for f in ModelFamily if f.value in configured
        ]
        self.fields["judge_family"].choices = [("", "Same as the provider"), *ModelFamily.choices]
        self.fields["pair_scope"].choices = [
            (ALL_PAIRS, f"All {len(eligible)} pairs with three submitted judgments"),
            (CHOSEN_PAIRS, "Only the pairs chosen here"),
        ]
        self.fields["pairs"].queryset = eligible
        self.fields["pairs"].label_from_instance = lambda p: (
            f"{character_name(p.character)} × {scenario_title(p.scenario)}"
        )
        self.helper = FormHelper()
        self.helper.form_action = reverse("judging:launch")
        self.helper.form_method = "post"
        self.helper.form_id = "judge-run-form"
        self.helper.attrs = {"data-confirm": LAUNCH_CONFIRM, "data-confirm-label": "Launch"}
        self.helper.add_input(Submit("launch", "Launch judge run", css_class="btn-primary"))

    def clean(self):
        data = super().clean()
        if data.get("pair_scope") == CHOSEN_PAIRS and not data.get("pairs"):
            self.add_error("pairs", "Choose at least one pair, or take all pairs.")
        return data

    def pair_ids(self):
        """None for every eligible pair, else the chosen pairs' ids."""
        if self.cleaned_data["pair_scope"] == ALL_PAIRS:
            return None
        return [p.pk for p in self.cleaned_data["pairs"]]
