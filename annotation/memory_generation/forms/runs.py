"""The launch form of a memory generation run (seed 000 App. B.5, L.3).

Launching is two steps: the form is reviewed (``review``), then confirmed (``confirm``)
with the same values carried in hidden fields, so nothing starts on one click.
"""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Layout
from django import forms
from django.core.exceptions import ValidationError

from annotation.corpus.distinctness import near_duplicate_sentence, near_duplicates_for
from annotation.corpus.models import ProfileVersion
from annotation.memory_generation.batching import DEFAULT_TIER_SHARES, TIERS
from annotation.memory_generation.models import MemoryPlan
from core.display import character_name
from core.llm_runs.forms import budget_field
from core.text_rules import NOTE, TextRules

TIER_LABELS = {
    "A": "A share (core wounds, highest intensity)",
    "B": "B share (main-thread episodes)",
    "C": "C share (daily friction)",
    "D": "D share (ordinary, low-intensity days)",
}
SHARE_TOLERANCE = 1e-6
MAX_CONCURRENCY = 64


class MemoryRunForm(TextRules, forms.Form):
    plans = forms.ModelMultipleChoiceField(
        label="Plans",
        queryset=MemoryPlan.objects.select_related("character").order_by("character__key", "-pk"),
        widget=forms.SelectMultiple(attrs={"size": 8, "id": "id_plans"}),
        help_text="One plan per character: its per-segment quotas become the run's batches.",
    )
    model_name = forms.CharField(
        label="Model",
        required=False,
        max_length=200,
        help_text="Empty: the configured provider's default model.",
    )
    concurrency = forms.IntegerField(
        label="Concurrency",
        min_value=1,
        max_value=MAX_CONCURRENCY,
        initial=8,
        help_text="Batches in flight at once; stay within the provider's limit.",
    )
    seed = forms.IntegerField(
        label="Seed",
        min_value=0,
        initial=0,
        help_text="Seeds the tier draw of each slot: the same seed, the same tiers.",
    )
    tier_a = forms.FloatField(label=TIER_LABELS["A"], min_value=0, max_value=1)
    tier_b = forms.FloatField(label=TIER_LABELS["B"], min_value=0, max_value=1)
    tier_c = forms.FloatField(label=TIER_LABELS["C"], min_value=0, max_value=1)
    tier_d = forms.FloatField(label=TIER_LABELS["D"], min_value=0, max_value=1)
    note = forms.CharField(
        max_length=NOTE,
        label="Note",
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Why this run: shown in the run list.",
    )
    budget_usd = budget_field()
    # Shown (by the template, next to the flagged pairs) only when the plans' characters
    # include a near-duplicate pair; launching then needs it ticked.
    accept_near_duplicates = forms.BooleanField(
        label="Launch anyway: I have looked at the near-duplicate characters",
        required=False,
        help_text="Their memories would be written for profiles readers may not tell apart.",
    )

    def __init__(self, *args, default_model: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        for tier in TIERS:
            self.fields[f"tier_{tier.lower()}"].initial = DEFAULT_TIER_SHARES[tier]
        self.fields["model_name"].initial = default_model
        self.helper = FormHelper()
        # The template owns <form> and the buttons (review, then confirm).
        self.helper.form_tag = False
        self.helper.layout = Layout(*(f for f in self.fields if f != "accept_near_duplicates"))
        self.near_duplicates = []

    def clean(self):
        data = super().clean()
        self.near_duplicates = near_duplicates_of(data.get("plans") or [])
        if self.near_duplicates and not data.get("accept_near_duplicates"):
            self.add_error(
                "accept_near_duplicates",
                "Near-duplicate characters: "
                + near_duplicate_sentence(self.near_duplicates, name=character_name)
                + ". Tick the box to launch anyway, or change the plans or the profiles.",
            )
        shares = [data.get(f"tier_{t.lower()}") for t in TIERS]
        if all(s is not None for s in shares) and abs(sum(shares) - 1.0) > SHARE_TOLERANCE:
            raise ValidationError(
                f"The four tier shares must add up to 1; they add up to {sum(shares):g}."
            )
        return data

    def tier_shares(self) -> dict[str, float]:
        return {t: self.cleaned_data[f"tier_{t.lower()}"] for t in TIERS}

    def service_arguments(self) -> dict:
        """The values as ``run_create`` takes them (call after ``is_valid``)."""
        return {
            "plan_ids": [plan.pk for plan in self.cleaned_data["plans"]],
            "model_name": self.cleaned_data["model_name"],
            "concurrency": self.cleaned_data["concurrency"],
            "seed": self.cleaned_data["seed"],
            "tier_shares": self.tier_shares(),
            "note": self.cleaned_data["note"],
            "budget_usd": self.cleaned_data.get("budget_usd"),
        }


def near_duplicates_of(plans) -> list:
    """The near-duplicate pairs (``annotation.corpus.distinctness``) a run of ``plans``
    would build on, each plan's character taken on the profile version it was planned for."""
    version_ids = [plan.profile_version_id for plan in plans]
    if not version_ids:
        return []
    return near_duplicates_for(
        ProfileVersion.objects.filter(pk__in=version_ids).select_related("character")
    )


def plan_ids_from_query(raw: str | None) -> list[int]:
    """``?plans=1,2`` → [1, 2]; anything that is not a number is left out."""
    ids = []
    for part in (raw or "").split(","):
        part = part.strip()
        if part.isdigit():
            ids.append(int(part))
    return ids
