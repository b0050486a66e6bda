"""Forms of the human baseline (crispy, Bootstrap 5). They parse; the rules live in
``humanbaseline.services``."""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.urls import reverse

from agreement.constants import HUMAN_BASELINE_SEED, N_BOOTSTRAP
from evaluation.models import RetrievalSet
from heartbench_site.base.protocol import RETRIEVAL_K

from .models import BaselineStudy, SubsetSelection
from .subset import SubsetConstraints


def _helper(action: str, label: str, *, form_id: str | None = None) -> FormHelper:
    helper = FormHelper()
    helper.form_action = action
    helper.form_method = "post"
    if form_id:
        helper.form_id = form_id
    helper.add_input(Submit("submit", label))
    return helper


class SelectionForm(forms.Form):
    """The ILP's seed and every App. J constraint, with the paper's defaults."""

    seed = forms.IntegerField(initial=HUMAN_BASELINE_SEED, help_text="Tie-break seed, recorded.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        defaults = SubsetConstraints()
        for name, value in defaults.as_dict().items():
            if name == "families":
                self.fields[name] = forms.CharField(
                    initial=", ".join(value),
                    help_text="Answer-key source families, comma-separated.",
                )
            else:
                self.fields[name] = forms.IntegerField(
                    initial=value, min_value=0, label=name.replace("_", " ").capitalize()
                )
        self.helper = _helper(reverse("baseline:selection-create"), "Select the subset")

    def constraints(self) -> SubsetConstraints:
        data = dict(self.cleaned_data)
        data.pop("seed")
        data["families"] = tuple(f.strip() for f in data["families"].split(",") if f.strip())
        return SubsetConstraints(**data)


class FamilyCsvForm(forms.Form):
    file = forms.FileField(
        label="question_id,family CSV",
        help_text="One row per item: its question_id and answer-key source family "
        "(claude, gpt or gemini). Any bad row rejects the whole file.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = _helper(reverse("baseline:families"), "Upload families")


class PredictionCsvForm(forms.Form):
    file = forms.FileField(
        label="Model predictions CSV",
        help_text="Header question_id, then one column per model; cells A–D, empty for an "
        "invalid response (scored incorrect).",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = _helper(reverse("baseline:predictions"), "Upload predictions")


class StudyForm(forms.Form):
    name = forms.CharField(max_length=200)
    selection = forms.ModelChoiceField(queryset=SubsetSelection.objects.filter(feasible=True))
    consent_version = forms.CharField(max_length=40, initial="v1")
    consent_text = forms.CharField(widget=forms.Textarea(attrs={"rows": 6}))
    briefing = forms.CharField(widget=forms.Textarea(attrs={"rows": 6}))
    practice_question_ids = forms.CharField(
        label="Practice items",
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="question_ids, one per line or comma-separated; not in the subset.",
    )
    retrieval_method = forms.ChoiceField(
        choices=[
            (RetrievalSet.Method.BM25, "BM25"),
            (RetrievalSet.Method.TFIDF, "TF-IDF"),
        ],
        help_text="Used when an item has no retrieval set from an imported evaluation run.",
    )
    k = forms.IntegerField(initial=RETRIEVAL_K, min_value=1, max_value=200)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = _helper(reverse("baseline:study-create"), "Create the study")

    def practice_ids(self) -> list[str]:
        raw = self.cleaned_data["practice_question_ids"].replace(",", "\n")
        return [line.strip() for line in raw.splitlines() if line.strip()]


class ParticipantAccountForm(forms.Form):
    username = forms.CharField(max_length=150)
    password = forms.CharField(widget=forms.PasswordInput, help_text="Give it to the participant.")

    def __init__(self, *args, study: BaselineStudy, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = _helper(
            reverse("baseline:participant-create", args=[study.pk]), "Create the account"
        )


class SignupForm(forms.Form):
    username = forms.CharField(max_length=150)
    password = forms.CharField(widget=forms.PasswordInput)

    def __init__(self, *args, token, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = _helper(reverse("baseline:join", args=[token]), "Create my account")


class ReportForm(forms.Form):
    seed = forms.IntegerField(initial=HUMAN_BASELINE_SEED)
    n_boot = forms.IntegerField(label="Bootstrap resamples", initial=N_BOOTSTRAP, min_value=0)
    n_permutations = forms.IntegerField(
        label="Source permutations", initial=N_BOOTSTRAP, min_value=0
    )

    def __init__(self, *args, study: BaselineStudy, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = _helper(reverse("baseline:report", args=[study.pk]), "Compute the report")
