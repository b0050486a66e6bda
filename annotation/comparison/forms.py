"""The Expert Annotation Guideline's form (seed 000 App. D.2), crispy. It parses input;
the guideline's rules live in ``annotation.comparison.services.check_judgment``. The
keyboard shortcuts (A/B/C, 1/2) are static/comparison/comparison.js's, documented once
on the page beside the form."""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import HTML, Fieldset, Layout, Submit
from django import forms
from django.urls import reverse

from annotation.comparison.models import (
    COMPARISON_CRITERIA,
    COMPARISON_LETTERS,
    JUDGMENT_TEXT_LIMITS,
    Rating,
    Suitability,
)
from core.protocol import ANNOTATORS_PER_PAIR
from core.text_rules import NOTE, TextRules


def _rows(n: int) -> forms.Textarea:
    return forms.Textarea(attrs={"rows": n})


class ComparisonJudgmentForm(TextRules, forms.Form):
    suitability = forms.ChoiceField(
        label="Is the character-scenario pair suitable for evaluation?",
        choices=Suitability.choices,
        widget=forms.RadioSelect,
        required=False,
    )
    suitability_reason = forms.CharField(
        label="Reason for the flag",
        max_length=JUDGMENT_TEXT_LIMITS["suitability_reason"],
        widget=_rows(2),
        required=False,
        help_text="Required when flagged: the irreconcilable contextual conflict.",
    )
    persona_consistency_note = forms.CharField(max_length=NOTE, required=False, widget=_rows(2))
    memory_grounding_note = forms.CharField(max_length=NOTE, required=False, widget=_rows(2))
    situational_fit_note = forms.CharField(max_length=NOTE, required=False, widget=_rows(2))
    psychological_plausibility_note = forms.CharField(
        max_length=NOTE, required=False, widget=_rows(2)
    )
    selected_letter = forms.ChoiceField(
        label="Selected candidate",
        choices=[(x, f"Candidate {x}") for x in COMPARISON_LETTERS],
        widget=forms.RadioSelect,
        required=False,
    )
    rating = forms.ChoiceField(
        label="Rating",
        choices=Rating.choices,
        widget=forms.RadioSelect,
        required=False,
    )
    selection_rationale = forms.CharField(
        label="Selection rationale",
        max_length=JUDGMENT_TEXT_LIMITS["selection_rationale"],
        widget=_rows(3),
        required=False,
    )
    revision_guidance = forms.CharField(
        label="Revision guidance",
        max_length=JUDGMENT_TEXT_LIMITS["revision_guidance"],
        widget=_rows(3),
        required=False,
        help_text="Required for partial revisions: what should be added, removed, or replaced.",
    )

    def __init__(self, *args, public_id: str, readonly: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        for name, label, question in COMPARISON_CRITERIA:
            f = self.fields[f"{name}_note"]
            f.label = f"{label} (note, optional)"
            f.help_text = question
        action = reverse("comparison:pair", kwargs={"assignment": public_id})
        draft = reverse("comparison:draft", kwargs={"assignment": public_id})
        self.helper = FormHelper()
        self.helper.form_action = action
        self.helper.form_method = "post"
        self.helper.form_id = "judgment-form"
        if readonly:
            for f in self.fields.values():
                f.disabled = True
        else:
            self.helper.attrs = {
                "hx-post": draft,
                "hx-trigger": "change, input delay:1200ms",
                "hx-target": "#autosave-status",
                "hx-swap": "innerHTML",
                "data-comparison-form": "",
            }
        self.helper.layout = Layout(
            Fieldset("Step 1: Suitability check", "suitability", "suitability_reason"),
            Fieldset(
                "Step 2: Candidate comparison",
                HTML(
                    '<p class="small text-body-secondary">Do not prefer a candidate merely '
                    "because it is longer, more fluent, or more emotionally expressive. "
                    "Evaluate the behavioral decision rather than writing style.</p>"
                ),
                *[f"{name}_note" for name, _, _ in COMPARISON_CRITERIA],
            ),
            Fieldset(
                "Step 3: Selection and rating",
                "selected_letter",
                "rating",
                "selection_rationale",
                "revision_guidance",
            ),
        )
        if not readonly:
            self.helper.add_input(Submit("submit", "Submit judgment", css_class="btn-primary"))


class AssignmentForm(forms.Form):
    run = forms.ModelChoiceField(queryset=None, label="Generation run", required=False)
    annotators = forms.ModelMultipleChoiceField(
        queryset=None,
        widget=forms.CheckboxSelectMultiple,
        help_text=f"Every pair is judged by {ANNOTATORS_PER_PAIR} distinct primary annotators: "
        f"choose at least {ANNOTATORS_PER_PAIR}; with exactly {ANNOTATORS_PER_PAIR}, every pair "
        "goes to the same ones.",
    )
    batch_size = forms.IntegerField(min_value=0, initial=0, label="Pairs per batch (0: one batch)")

    def __init__(self, *args, runs, annotators, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["run"].queryset = runs
        self.fields["run"].help_text = "Creates pairs for the run's candidates first."
        self.fields["annotators"].queryset = annotators
        self.fields["annotators"].label_from_instance = lambda u: u.get_username()
        self.helper = FormHelper()
        self.helper.form_action = reverse("comparison:assign")
        self.helper.form_id = "assign-form"
        self.helper.form_method = "post"
        self.helper.add_input(Submit("assign", "Assign pairs"))
