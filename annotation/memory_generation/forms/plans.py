"""Forms of memory quota allocation: a new weight version (45 numbers grouped by
life-stage bin) and a new plan. They parse; ``services.plans`` decides."""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import HTML, Div, Fieldset, Layout, Submit
from django import forms
from django.urls import reverse

from annotation.memory_generation import quota
from annotation.memory_generation.models import PLAN_NOTE_MAX
from annotation.memory_generation.selectors.plans import weights_by_bin
from core.text_rules import TextRules


def _age_field(age: int) -> str:
    return f"age_{age}"


class QuotaWeightsForm(TextRules, forms.Form):
    """The next weight version: one number ≥ 0 per age, 6 to 50, grouped by bin."""

    note = forms.CharField(label="What changed and why", max_length=PLAN_NOTE_MAX)

    def __init__(self, *args, current=None, **kwargs):
        super().__init__(*args, **kwargs)
        current = list(current or quota.default_weights())
        groups = []
        for group in weights_by_bin(current):
            columns = []
            for age, weight in group.ages:
                name = _age_field(age)
                self.fields[name] = forms.FloatField(
                    label=f"Age {age}",
                    min_value=0,
                    initial=weight,
                    widget=forms.NumberInput(attrs={"step": "any", "inputmode": "decimal"}),
                )
                columns.append(Div(name, css_class="col-6 col-sm-4 col-md-2"))
            groups.append(
                Fieldset(
                    f"{group.label} (ages {group.ages[0][0]}–{group.ages[-1][0]})",
                    Div(*columns, css_class="row g-2"),
                    css_class="mb-3",
                )
            )
        self.helper = FormHelper()
        self.helper.form_action = reverse("memory_generation:weights")
        self.helper.form_method = "post"
        self.helper.form_id = "weights-form"
        self.helper.layout = Layout(
            HTML(
                '<p class="small text-body-secondary">A segment\'s quota is its share of '
                "the deficit: its weight over the sum of all 45 weights. Only ratios "
                "matter; 0 leaves an age without new memories.</p>"
            ),
            *groups,
            "note",
        )
        self.helper.add_input(Submit("save", "Save as a new version"))

    def weights(self) -> list[float]:
        return [self.cleaned_data[_age_field(age)] for age in quota.SEGMENT_AGES]


class CharacterKeysField(forms.MultipleChoiceField):
    """Offers the plannable characters, and takes any key it is sent: the service names
    why a character cannot be planned (no such character, a profile not frozen, ...) in
    the words the API answers too."""

    def valid_value(self, value) -> bool:
        return bool(str(value).strip())


class MemoryPlanForm(TextRules, forms.Form):
    characters = CharacterKeysField(
        label="Characters",
        widget=forms.CheckboxSelectMultiple,
        help_text="Only characters whose latest profile version is frozen can be planned.",
    )
    weights = forms.TypedChoiceField(label="Quota weights", coerce=int)
    target = forms.IntegerField(
        label="Target memories per character",
        min_value=1,
        initial=quota.TARGET_PER_CHARACTER,
        help_text="The paper's target is 1,000; a smaller one makes a trial run.",
    )
    note = forms.CharField(label="Note", required=False, max_length=PLAN_NOTE_MAX)

    def __init__(self, *args, character_keys=(), weights_versions=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["characters"].choices = [(k, k) for k in character_keys]
        self.fields["weights"].choices = [
            (w.pk, f"v{w.number}" + (f" — {w.note}" if w.note else "")) for w in weights_versions
        ]
        if weights_versions and "weights" not in self.initial:
            self.initial["weights"] = weights_versions[0].pk
        self.helper = FormHelper()
        self.helper.form_action = reverse("memory_generation:plan-new")
        self.helper.form_method = "post"
        self.helper.form_id = "plan-form"
        self.helper.add_input(Submit("plan", "Compute the plans"))
