"""Forms of evaluation runs (crispy, Bootstrap 5). They parse input; rules live in
``evaluation.services``."""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.urls import reverse

from core.llm_runs.forms import budget_field
from core.text_rules import NAME, NOTE, TEXT, TextRules

from . import embeddings, providers, services
from .models import LABEL_MAX, RUNNABLE_SETTINGS, EvaluationError, RetrievalSet, Setting

ITEM_SET_CHOICES = [
    ("all", "All final items"),
    ("ids", "These question ids (one per line, or comma-separated)"),
    ("csv", "A CSV with a question_id column"),
]


class EvaluationRunForm(TextRules, forms.Form):
    provider = forms.ChoiceField(
        label="Model (provider config)",
        help_text="Configured with HEARTBENCH_EVALUATION_MODELS and HEARTBENCH_EVAL_NAME_*; "
        "the offline demo provider needs no key.",
    )
    label = forms.CharField(
        label="Model label",
        required=False,
        max_length=LABEL_MAX,
        help_text="Its name in tables and comparisons; blank: the provider's model name.",
    )
    setting = forms.ChoiceField(
        label="Setting", choices=[(s.value, s.label) for s in RUNNABLE_SETTINGS]
    )
    item_set = forms.ChoiceField(
        label="Items", choices=ITEM_SET_CHOICES, initial="all", widget=forms.RadioSelect
    )
    question_ids = forms.CharField(
        label="Question ids",
        required=False,
        max_length=TEXT,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    item_csv = forms.FileField(label="Item CSV", required=False)
    item_set_name = forms.CharField(
        label="Item set name",
        required=False,
        max_length=NAME,
        help_text="E.g. “human-baseline 150” or “label audit 176”.",
    )
    retrieval_method = forms.ChoiceField(
        label="Retriever (memory conditions)", initial=RetrievalSet.Method.BM25
    )
    k = forms.IntegerField(
        label="k (memories retrieved)", initial=services.NAIVE_RAG_K, min_value=1, max_value=200
    )
    temperature = forms.FloatField(
        label="Temperature",
        required=False,
        initial=services.DEFAULT_DECODING["temperature"],
        help_text="0, as the paper's decoding protocol fixes, where the endpoint supports "
        "it; blank sends none (the endpoint's default).",
    )
    max_tokens = forms.IntegerField(
        label="Max output tokens", initial=services.DEFAULT_DECODING["max_tokens"], min_value=16
    )
    note = forms.CharField(
        label="Note", required=False, max_length=NOTE, widget=forms.Textarea(attrs={"rows": 2})
    )
    budget_usd = budget_field()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["provider"].choices = [
            (name, f"{name} · {config.kind} · {config.model}")
            for name, config in sorted(providers.evaluation_providers().items())
        ]
        self._offer_retrievers()
        self.helper = FormHelper()
        self.helper.form_action = reverse("evaluation:run-list")
        self.helper.form_method = "post"
        self.helper.form_id = "run-form"
        self.helper.attrs = {"enctype": "multipart/form-data"}
        self.helper.add_input(Submit("submit", "Launch run"))
        self.helper.add_input(
            SecondarySubmit("estimate", "Estimate cost", formnovalidate="formnovalidate")
        )

    def _offer_retrievers(self):
        """BM25 (the offline default) and TF-IDF always; the embedding retriever only
        when its endpoint is configured, else the field says why it is missing."""
        field = self.fields["retrieval_method"]
        offered = [RetrievalSet.Method.BM25, RetrievalSet.Method.TFIDF]
        retriever = embeddings.retriever_settings()
        if retriever["configured"]:
            offered.append(RetrievalSet.Method.EMBEDDING)
            field.help_text = (
                f"Embedding: {retriever['model']} at {retriever['endpoint']}. "
                "BM25 is the offline default."
            )
        else:
            field.help_text = (
                "Embedding retriever: not configured — BM25 is the offline default "
                "(set HEARTBENCH_EMBEDDING_BASE_URL and HEARTBENCH_EMBEDDING_MODEL)."
            )
            field.error_messages["invalid_choice"] = "“%(value)s” is not offered. " + (
                retriever["problem"] or embeddings.NOT_CONFIGURED
            )
        field.choices = [(m.value, m.label) for m in offered]

    def clean(self):
        data = super().clean()
        choice = data.get("item_set")
        if choice == "ids" and not (data.get("question_ids") or "").strip():
            self.add_error("question_ids", "List the question ids, or choose all final items.")
        if choice == "csv" and not data.get("item_csv"):
            self.add_error("item_csv", "Upload the CSV, or choose all final items.")
        return data

    def items(self):
        """None (all final items) or a queryset; raises EvaluationError naming bad ids."""
        choice = self.cleaned_data["item_set"]
        if choice == "ids":
            raw = self.cleaned_data["question_ids"].replace(",", "\n").splitlines()
            return services.items_for_question_ids(raw)
        if choice == "csv":
            return services.items_for_question_ids(
                services.question_ids_from_csv(self.cleaned_data["item_csv"].read())
            )
        return None

    def estimate_choices(self) -> dict | None:
        """What to estimate (``estimate.evaluation_cost_estimate``'s arguments): every
        configured model over every final item in the first setting when unbound, else
        the submitted choices; None while one of them is not valid."""
        if not self.is_bound:
            return {"setting": RUNNABLE_SETTINGS[0], "items": None}
        self.is_valid()
        if any(name in self.errors for name in ESTIMATED_FIELDS):
            return None
        data = self.cleaned_data
        try:
            items = self.items()
        except EvaluationError as error:
            self.add_error(None, error)
            return None
        return {
            "setting": data["setting"],
            "items": items,
            "retrieval_method": data["retrieval_method"],
            "k": data["k"],
            "models": [data["provider"]],
            "max_tokens": data["max_tokens"],
        }


#: The launch form's fields the estimate depends on.
ESTIMATED_FIELDS = (
    "provider",
    "setting",
    "item_set",
    "question_ids",
    "item_csv",
    "retrieval_method",
    "k",
    "max_tokens",
)


class SecondarySubmit(Submit):
    field_classes = "btn btn-outline-secondary"


class PredictionImportForm(TextRules, forms.Form):
    file = forms.FileField(
        label="Predictions file",
        help_text='JSON ({"model", "setting", "predictions": [...]}) or CSV '
        "(question_id, decision_choice).",
    )
    label = forms.CharField(
        label="Model label",
        required=False,
        max_length=LABEL_MAX,
        help_text='Blank: the file\'s "model".',
    )
    setting = forms.ChoiceField(
        label="Setting",
        required=False,
        choices=[("", "From the file"), *Setting.choices],
    )
    note = forms.CharField(label="Note", required=False, max_length=NOTE)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.form_action = reverse("evaluation:import")
        self.helper.form_method = "post"
        self.helper.attrs = {"enctype": "multipart/form-data"}
        self.helper.add_input(Submit("submit", "Import predictions"))
