"""The family-guess form (crispy): one choice per letter the annotator saw."""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms

from annotation.blinding.guess_rates import NO_IDEA
from annotation.comparison.models import COMPARISON_LETTERS
from annotation.generation.models import ModelFamily

CHOICES = [*ModelFamily.choices, (NO_IDEA, "No idea")]


class FamilyGuessForm(forms.Form):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for letter in COMPARISON_LETTERS:
            self.fields[letter] = forms.ChoiceField(
                label=f"Candidate {letter} was written by",
                choices=CHOICES,
                initial=NO_IDEA,
                widget=forms.RadioSelect,
            )
        self.helper = FormHelper()
        self.helper.add_input(Submit("submit", "Save my guesses"))
