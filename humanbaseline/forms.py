"""Forms of the human baseline (crispy, Bootstrap 5). They parse; the rules live in
``humanbaseline.services``."""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Column, Fieldset, Layout, Row, Submit
from django import forms
from django.urls import reverse
from django.utils.text import slugify

from agreement.constants import HUMAN_BASELINE_SEED, N_BOOTSTRAP
from core.protocol import RETRIEVAL_K
from core.text_rules import NOTE, TEXT, TextRules
from evaluation.models import EvaluationRun, RetrievalSet, Setting

from .models import (
    COUNT_MAX,
    MODEL_LABEL_MAX,
    PASSWORD_MAX,
    PRACTICE_REASON_MAX,
    SEED_MAX,
    SOURCE_CHOICES,
    STUDY_TEXT_LIMITS,
    BaselineStudy,
    SubsetSelection,
)
from .services.pools import completion_problems
from .subset import BALANCE_GROUPS, DEFAULT_QUOTAS, SubsetConstraints

SOURCE_LABELS = dict(SOURCE_CHOICES)


def _helper(action: str, label: str, *, form_id: str | None = None) -> FormHelper:
    helper = FormHelper()
    helper.form_action = action
    helper.form_method = "post"
    if form_id:
        helper.form_id = form_id
    # One page shows several of these forms: each button gets an id of its own.
    helper.add_input(Submit("submit", label, css_id=f"submit-{slugify(label)}"))
    return helper


class SelectionForm(TextRules, forms.Form):
    """The ILP's seed, a quota per answer-key source and every balance range of App. J.

    Quotas default to the paper's (50 per family, no expert rewrites). A range left blank
    is App. J's rule scaled to the study (as evenly as the candidates allow); a minimum
    and maximum set it by hand; a tolerance widens it on both sides."""

    seed = forms.IntegerField(
        initial=HUMAN_BASELINE_SEED,
        min_value=0,
        max_value=SEED_MAX,
        help_text="Tie-break seed, recorded.",
    )
    held_out_scenarios = forms.CharField(
        label="Scenarios held out for practice",
        required=False,
        max_length=TEXT,
        help_text="scenario_ids, one per line or comma-separated: their items are not "
        "candidates, so the study's practice items can come from them (a practice item "
        "shares no scenario with the subset).",
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for source, quota in DEFAULT_QUOTAS:
            self.fields[f"quota_{source}"] = forms.IntegerField(
                label=SOURCE_LABELS.get(source, source), initial=quota, min_value=0
            )
        rows = []
        for group, label in BALANCE_GROUPS.items():
            self.fields[f"{group}_min"] = forms.IntegerField(
                label=f"{label.capitalize()}: minimum", required=False, min_value=0
            )
            self.fields[f"{group}_max"] = forms.IntegerField(
                label="maximum", required=False, min_value=0
            )
            self.fields[f"{group}_slack"] = forms.IntegerField(
                label="tolerance ±", required=False, min_value=0
            )
            rows.append(
                Row(
                    Column(f"{group}_min", css_class="col-sm-6"),
                    Column(f"{group}_max", css_class="col-sm-3"),
                    Column(f"{group}_slack", css_class="col-sm-3"),
                )
            )
        self.helper = _helper(reverse("baseline:selection-create"), "Select the subset")
        self.helper.layout = Layout(
            "seed",
            "held_out_scenarios",
            Fieldset(
                "Quota per answer-key source (the subset size is their sum)",
                Row(*(Column(f"quota_{s}", css_class="col-6 col-md-3") for s, _ in DEFAULT_QUOTAS)),
            ),
            Fieldset(
                "Balance ranges: blank is the paper's rule scaled to the study",
                *rows,
            ),
        )

    def clean(self):
        data = super().clean()
        quotas = [data.get(f"quota_{s}") for s, _ in DEFAULT_QUOTAS]
        if all(q is not None for q in quotas) and sum(quotas) == 0:
            raise forms.ValidationError("Every quota is 0: give at least one source a quota.")
        for group, label in BALANCE_GROUPS.items():
            low, high = data.get(f"{group}_min"), data.get(f"{group}_max")
            if (low is None) != (high is None):
                self.add_error(
                    f"{group}_min" if low is None else f"{group}_max",
                    f"Set both the minimum and the maximum of '{label}', or neither.",
                )
            elif low is not None and low > high:
                self.add_error(
                    f"{group}_max", f"'{label}': the maximum {high} is below the minimum {low}."
                )
        return data

    def held_out(self) -> list[str]:
        return _listed(self.cleaned_data.get("held_out_scenarios", ""))

    def constraints(self) -> SubsetConstraints:
        data = self.cleaned_data
        return SubsetConstraints(
            quotas=tuple((s, data[f"quota_{s}"]) for s, _ in DEFAULT_QUOTAS),
            overrides=tuple(
                (group, data[f"{group}_min"], data[f"{group}_max"])
                for group in BALANCE_GROUPS
                if data.get(f"{group}_min") is not None
            ),
            slack=tuple(
                (group, data[f"{group}_slack"])
                for group in BALANCE_GROUPS
                if data.get(f"{group}_slack")
            ),
        )


class FamilyCsvForm(forms.Form):
    file = forms.FileField(
        label="question_id,family CSV",
        help_text="One row per item: its question_id and answer-key source (claude, gpt, "
        "gemini, or expert_rewrite for a reference the arbitrator rewrote). Any bad row "
        "rejects the whole file.",
    )

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", "families_%s")  # beside the predictions' file field
        super().__init__(*args, **kwargs)
        self.helper = _helper(reverse("baseline:families"), "Upload families")


class PredictionCsvForm(forms.Form):
    file = forms.FileField(
        label="Model predictions CSV",
        help_text="Header question_id, then one column per model; cells A–D, empty for an "
        "invalid response (scored incorrect).",
    )

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", "predictions_%s")
        super().__init__(*args, **kwargs)
        self.helper = _helper(reverse("baseline:predictions"), "Upload predictions")


class StudyForm(TextRules, forms.Form):
    name = forms.CharField(max_length=STUDY_TEXT_LIMITS["name"])
    selection = forms.ModelChoiceField(queryset=SubsetSelection.objects.filter(feasible=True))
    consent_version = forms.CharField(max_length=STUDY_TEXT_LIMITS["consent_version"], initial="v1")
    consent_text = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 6}), max_length=STUDY_TEXT_LIMITS["consent_text"]
    )
    briefing = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 6}), max_length=STUDY_TEXT_LIMITS["briefing"]
    )
    pay_text = forms.CharField(
        label="Pay",
        required=False,
        max_length=STUDY_TEXT_LIMITS["pay_text"],
        help_text="What a participant is paid, as they should read it, e.g. “£12 an hour of "
        "recorded study time, paid after you finalize”. The consent page shows it beside "
        "the expected duration (counted from the study's texts); it cannot change once "
        "the study is made.",
    )
    practice_question_ids = forms.CharField(
        label="Practice items",
        required=False,
        max_length=TEXT,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="question_ids, one per line or comma-separated, from scenarios outside "
        "the subset. Leave blank to have the number below picked.",
    )
    practice_count = forms.IntegerField(
        label="Number of practice items",
        initial=2,
        min_value=0,
        required=False,
        help_text="Used when no practice item is named: final items picked from scenarios "
        "outside the subset, one scenario after another.",
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
        return _listed(self.cleaned_data["practice_question_ids"])


def _listed(raw: str) -> list[str]:
    """Ids one per line or comma-separated."""
    return [line.strip() for line in (raw or "").replace(",", "\n").splitlines() if line.strip()]


class PracticeReasonForm(TextRules, forms.Form):
    """Why a practice item's expected answer is expected: what the participant reads
    after checking an answer."""

    reason = forms.CharField(
        label="Reason",
        max_length=PRACTICE_REASON_MAX,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Shown with the expected answer after the participant checks theirs. "
        "Blank puts the default back (the reference's own reasoning).",
    )

    def __init__(self, *args, study: BaselineStudy, position: int, **kwargs):
        kwargs.setdefault("auto_id", f"practice{position}_%s")  # one form per practice item
        super().__init__(*args, **kwargs)
        self.position = position
        self.helper = _helper(
            reverse("baseline:practice-reason", args=[study.pk, position]),
            f"Save the reason for practice item {position}",
            form_id=f"practice-reason-{position}",
        )


class BestModelForm(TextRules, forms.Form):
    """App. J's best model, fixed before the report: by evaluation runs, or named."""

    runs = forms.ModelMultipleChoiceField(
        label="Naive-RAG evaluation runs",
        queryset=EvaluationRun.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="The best model is the run with the highest accuracy on the full final "
        "set (every run must cover it).",
    )
    model_label = forms.CharField(
        label="Or name the model in advance",
        max_length=MODEL_LABEL_MAX,
        required=False,
        help_text="A model label as the evaluation runs or the predictions CSV name it.",
    )
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}),
        required=False,
        max_length=NOTE,
        help_text="Required once participants have answered: the change is recorded and the "
        "report lists it.",
    )

    def __init__(self, *args, study: BaselineStudy, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["runs"].queryset = EvaluationRun.objects.filter(
            setting=Setting.NAIVE_RAG
        ).order_by("label", "-created_at", "-pk")
        self.fields["runs"].label_from_instance = lambda run: (
            f"{run.label} (run {run.pk}, {run.get_status_display().lower()})"
        )
        self.helper = _helper(reverse("baseline:best-model", args=[study.pk]), "Fix the best model")


class CompletionForm(TextRules, forms.Form):
    """The end of the study for a recruitment pool (Prolific, SONA): the code a
    participant sees on finalizing and the address they are sent to."""

    completion_code = forms.CharField(
        label="Completion code",
        max_length=64,
        required=False,
        help_text="Shown to a participant who finalized, e.g. the code Prolific gives the "
        "study. Letters, digits, '-' and '_'.",
    )
    completion_url = forms.CharField(
        label="Completion URL",
        max_length=500,
        required=False,
        help_text="Where a participant who finalized is sent; blank for nowhere. "
        "{code}, {pool_id} and {pool} are filled in (e.g. "
        "https://app.prolific.com/submissions/complete?cc={code}, or SONA's credit URL "
        "with survey_code={pool_id}); without a placeholder, ?cc=CODE is appended.",
        widget=forms.TextInput(attrs={"inputmode": "url", "spellcheck": "false"}),
    )

    def __init__(self, *args, study: BaselineStudy, **kwargs):
        kwargs.setdefault(
            "initial",
            {"completion_code": study.completion_code, "completion_url": study.completion_url},
        )
        super().__init__(*args, **kwargs)
        self.helper = _helper(
            reverse("baseline:study-completion", args=[study.pk]),
            "Save the completion settings",
            form_id="completion-form",
        )

    def clean(self):
        data = super().clean()
        problems = completion_problems(
            code=data.get("completion_code", ""), url=data.get("completion_url", "")
        )
        for field, message in problems.items():
            if field not in self.errors:
                self.add_error(field, message)
        return data


class ParticipantAccountForm(TextRules, forms.Form):
    username = forms.CharField(max_length=150)
    password = forms.CharField(
        widget=forms.PasswordInput,
        max_length=PASSWORD_MAX,
        help_text="Give it to the participant.",
    )

    def __init__(self, *args, study: BaselineStudy, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = _helper(
            reverse("baseline:participant-create", args=[study.pk]), "Create the account"
        )


class SignupForm(TextRules, forms.Form):
    username = forms.CharField(max_length=150)
    password = forms.CharField(widget=forms.PasswordInput, max_length=PASSWORD_MAX)

    def __init__(self, *args, token, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = _helper(reverse("baseline:join", args=[token]), "Create my account")


class ReportForm(forms.Form):
    seed = forms.IntegerField(initial=HUMAN_BASELINE_SEED, min_value=0, max_value=SEED_MAX)
    n_boot = forms.IntegerField(
        label="Bootstrap resamples", initial=N_BOOTSTRAP, min_value=0, max_value=COUNT_MAX
    )
    n_permutations = forms.IntegerField(
        label="Source permutations", initial=N_BOOTSTRAP, min_value=0, max_value=COUNT_MAX
    )

    def __init__(self, *args, study: BaselineStudy, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = _helper(reverse("baseline:report", args=[study.pk]), "Compute the report")
