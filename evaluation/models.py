"""Models of model evaluation runs (seed 000 §3.1, App. E, F, G, I, L.1).

Evaluation is its own app: its runs, retrieval sets and predictions feed the human
baseline (humans and models must see *identical* memory strings in identical order,
App. J), the reference-label audit subset and the profile-disclosure diagnostic, so it
sits beside them rather than inside one.
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import MD5

from adjudication.mcq.models import McqItem
from annotation.corpus.models import Memory, ProfileVersion
from core.deviations import ProtocolDeviation
from core.llm_runs.models import AbstractCallRecord, LlmRun, LlmUnit
from core.protocol import RETRIEVAL_K

# Issue #24: a run's model label (its column's length); the forms and services use it.
LABEL_MAX = 120


class RetrievalSet(models.Model):
    """The memories retrieved for one item under one retriever configuration.

    ``method`` is ``bm25``, ``tfidf`` or ``embedding`` for the built-in retriever, or
    ``imported`` when the set came with an imported evaluation run (``origin`` names the
    run/file). ``query`` is the exact text the retriever was given (App. E: the entire
    scenario description); ``embedding_model`` and ``embedding_dimensions`` name the
    vectors an ``embedding`` set was ranked with (blank and 0 otherwise). A set is one
    (item, method, k, origin, query, embedding model, dimensions): another query or
    model is another set. Entries are snapshots: the strings a model or participant saw,
    in rank order.
    """

    class Method(models.TextChoices):
        BM25 = "bm25", "BM25 over content_full"
        TFIDF = "tfidf", "TF-IDF cosine over content_full"
        EMBEDDING = "embedding", "Embedding cosine over content_full"
        IMPORTED = "imported", "Imported with an evaluation run"
        RANDOM = "random", "Random sample (memory ablation C3)"

    item = models.ForeignKey(McqItem, on_delete=models.PROTECT, related_name="retrieval_sets")
    method = models.CharField(max_length=16, choices=Method.choices)
    k = models.PositiveSmallIntegerField()
    origin = models.CharField(max_length=200, default="builtin")
    query = models.TextField(help_text="The exact text the retriever was given.")
    embedding_model = models.CharField(max_length=200, blank=True)
    embedding_dimensions = models.PositiveIntegerField(
        default=0, help_text="The vector size asked of the endpoint; 0: the model's own."
    )
    scenario_age = models.PositiveSmallIntegerField()
    eligible_count = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item", "method", "k"]
        constraints = [
            # The query is hashed: a long scenario would not fit a btree index entry.
            models.UniqueConstraint(
                "item",
                "method",
                "k",
                "origin",
                MD5("query"),
                "embedding_model",
                "embedding_dimensions",
                name="retrieval_set_unique",
            )
        ]

    def __str__(self):
        return f"{self.item.question_id} {self.method}@{self.k}"


class MemoryEmbedding(models.Model):
    """The cached vector of one memory's ``content_full`` under one embedding model.

    Keyed by the memory, the sha256 of the text it was computed from, the model and the
    dimensions asked for: an edited memory or another model gets a fresh vector, and
    every run with the same model reuses it. ``vector`` holds ``size`` little-endian
    float64 values, exactly as the endpoint returned them.
    """

    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="+")
    content_sha256 = models.CharField(max_length=64)
    model = models.CharField(max_length=200)
    dimensions = models.PositiveIntegerField(default=0)
    size = models.PositiveIntegerField()
    vector = models.BinaryField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["memory", "model"]
        constraints = [
            models.UniqueConstraint(
                fields=["memory", "content_sha256", "model", "dimensions"],
                name="memory_embedding_unique",
            )
        ]

    def __str__(self):
        return f"{self.memory_id} · {self.model} ({self.size})"


class RetrievedMemory(models.Model):
    retrieval_set = models.ForeignKey(
        RetrievalSet, on_delete=models.CASCADE, related_name="entries"
    )
    rank = models.PositiveSmallIntegerField()
    memory = models.ForeignKey(
        Memory, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    anonymized_id = models.CharField(max_length=40)
    timeline = models.CharField(max_length=120)
    event_age = models.PositiveSmallIntegerField()
    content_full = models.TextField()
    score = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["retrieval_set", "rank"]
        constraints = [
            models.UniqueConstraint(fields=["retrieval_set", "rank"], name="retrieved_rank_unique")
        ]

    def __str__(self):
        return f"{self.retrieval_set_id}#{self.rank} {self.anonymized_id}"


class EvaluationError(ValidationError):
    """An evaluation request that cannot be carried out as asked; the message says why."""


class Setting(models.TextChoices):
    """The evaluation inputs of §3.1 and App. I. Mem0 and PersonaDB (§3.1, App. E) run on
    their own backends: their predictions are imported, never run here."""

    NO_RETRIEVAL = "no_retrieval", "No-Retrieval"
    NAIVE_RAG = "naive_rag", "Naive-RAG (k = 30)"
    MEM0 = "mem0", "Mem0 (imported)"
    PERSONADB = "personadb", "PersonaDB (imported)"
    DISCLOSED_PROFILE = "disclosed_profile", "Disclosed-Profile"
    DISCLOSED_PROFILE_MEMORY = "disclosed_profile_memory", "Disclosed-Profile + Memory"
    ABLATION_C0 = "ablation_c0", "C0: own memories, this scenario (memory ablation)"
    ABLATION_C1 = "ablation_c1", "C1: own memories, another same-bin scenario (memory ablation)"
    ABLATION_C2 = "ablation_c2", "C2: another character's memories, this scenario (memory ablation)"
    ABLATION_C3 = "ablation_c3", "C3: own memories, random sample (memory ablation)"


#: §3.1: the three memory-augmented settings (the "Memory-Augmented Avg." columns).
MEMORY_AUGMENTED_SETTINGS = (Setting.NAIVE_RAG, Setting.MEM0, Setting.PERSONADB)
#: Settings whose predictions come only from a file (their backends run elsewhere).
IMPORTED_ONLY_SETTINGS = (Setting.MEM0, Setting.PERSONADB)
#: Settings a run on the platform can be launched with.
RUNNABLE_SETTINGS = tuple(s for s in Setting if s not in IMPORTED_ONLY_SETTINGS)
#: §3 Table 3 / App. H: the memory-content ablation under Naive-RAG (k = 30).
ABLATION_SETTINGS = (
    Setting.ABLATION_C0,
    Setting.ABLATION_C1,
    Setting.ABLATION_C2,
    Setting.ABLATION_C3,
)
MEMORY_SETTINGS = (
    *MEMORY_AUGMENTED_SETTINGS,
    Setting.DISCLOSED_PROFILE_MEMORY,
    *ABLATION_SETTINGS,
)
PROFILE_SETTINGS = (Setting.DISCLOSED_PROFILE, Setting.DISCLOSED_PROFILE_MEMORY)


class EvaluationRun(LlmRun):
    """One model under one setting on one item set: run here on Celery, or imported.

    ``provider`` snapshots the provider config without its key (kind, model, base URL);
    the worker resolves ``provider_key`` from its own environment (see providers.py).
    Items are fixed at creation: one :class:`EvaluationPrediction` row per item.

    The run's states are the framework's (``core.llm_runs.RunStatus``, moved by
    ``services.FLOW``). An imported run never ran: it is stored finished, and its
    ``origin`` (imported) tells it apart from a run made on the platform.
    """

    class Origin(models.TextChoices):
        PLATFORM = "platform", "Run on the platform"
        IMPORTED = "imported", "Imported predictions"

    label = models.CharField(
        max_length=LABEL_MAX, help_text="The model's name in tables and comparisons, e.g. gpt-5.4."
    )
    origin = models.CharField(max_length=16, choices=Origin.choices, default=Origin.PLATFORM)
    setting = models.CharField(max_length=32, choices=Setting.choices)
    provider_key = models.CharField(max_length=80, blank=True)
    provider = models.JSONField(default=dict, blank=True)
    decoding = models.JSONField(default=dict, blank=True)
    retrieval_method = models.CharField(
        max_length=16, choices=RetrievalSet.Method.choices, default=RetrievalSet.Method.BM25
    )
    retriever = models.JSONField(
        default=dict,
        blank=True,
        help_text="The embedding retriever the run was created with (endpoint, model, "
        "dimensions; never the key); empty for BM25 and TF-IDF.",
    )
    k = models.PositiveSmallIntegerField(default=RETRIEVAL_K)
    item_set = models.CharField(max_length=200, default="all final items")
    source_file = models.CharField(max_length=300, blank=True)
    # Every evaluation run names who made or imported it (the framework allows none).
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )

    def __str__(self):
        return f"{self.label} · {self.get_setting_display()} (run {self.pk})"

    @property
    def is_imported(self) -> bool:
        return self.origin == self.Origin.IMPORTED

    @property
    def uses_memory(self) -> bool:
        return self.setting in MEMORY_SETTINGS

    @property
    def deviation_subject(self) -> str:
        """How this run's protocol deviations (core.deviations) name it."""
        return f"evaluation run {self.pk}"

    @property
    def protocol_deviations(self):
        """The protocol deviations recorded for this run (e.g. a temperature above 0)."""
        return ProtocolDeviation.objects.filter(
            stage="evaluation", subject=self.deviation_subject
        ).order_by("pk")

    @property
    def is_memory_augmented(self) -> bool:
        """One of §3.1's memory-augmented settings (Naive-RAG, Mem0, PersonaDB)."""
        return self.setting in MEMORY_AUGMENTED_SETTINGS

    @property
    def discloses_profile(self) -> bool:
        return self.setting in PROFILE_SETTINGS


class EvaluationPrediction(LlmUnit):
    """The one retained response of a run for one item (App. I: one response per item):
    the run's unit of work. Each model call it made is an :class:`EvaluationCall`; its
    ``tokens_in``/``tokens_out``/``cost_usd`` add up those calls (an imported prediction
    made none, so it has no call and no tokens).

    ``raw_response`` is the text ``choice`` was read from: the answering call's text, or
    the imported file's record. ``parse_path`` says how ``choice`` was read (App. L.1):
    ``json`` (decision_choice of the parsed object), ``raw_text`` (JSON failed; an
    explicitly named decision_choice was recovered), ``invalid`` and ``refusal`` (no
    choice: counted incorrect), ``leak`` (the prompt was refused before the call;
    ``leak_reasons`` says why), ``imported``. The rationale fields stay in ``parsed`` for
    inspection and are never graded.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting"
        RUNNING = "running", "Running"
        ANSWERED = "answered", "Answered"
        INVALID = "invalid", "Invalid or refused (incorrect)"
        LEAK_BLOCKED = "leak_blocked", "Blocked by the leak check"
        FAILED = "failed", "Call failed"
        CANCELLED = "cancelled", "Cancelled"

    class ParsePath(models.TextChoices):
        JSON = "json", "JSON decision_choice"
        RAW_TEXT = "raw_text", "Recovered from raw text"
        INVALID = "invalid", "Invalid response"
        REFUSAL = "refusal", "Refusal"
        LEAK = "leak", "Leak check refused the prompt"
        IMPORTED = "imported", "Imported"

    TERMINAL = (
        Status.ANSWERED,
        Status.INVALID,
        Status.LEAK_BLOCKED,
        Status.FAILED,
        Status.CANCELLED,
    )

    run = models.ForeignKey(EvaluationRun, on_delete=models.CASCADE, related_name="predictions")
    item = models.ForeignKey(McqItem, on_delete=models.PROTECT, related_name="+")
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    choice = models.CharField(max_length=1, blank=True)
    parse_path = models.CharField(max_length=16, choices=ParsePath.choices, blank=True)
    retrieval_set = models.ForeignKey(
        RetrievalSet, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    profile_version = models.ForeignKey(
        ProfileVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    user_prompt = models.TextField(blank=True)
    raw_response = models.TextField(blank=True)
    parsed = models.JSONField(null=True, blank=True)
    leak_reasons = models.JSONField(default=list, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["run", "item__question_id"]
        constraints = [
            models.UniqueConstraint(fields=["run", "item"], name="evaluation_prediction_unique")
        ]

    def __str__(self):
        return f"run {self.run_id} · {self.item_id}: {self.choice or '—'}"


class EvaluationCall(AbstractCallRecord):
    """One model call of a prediction, as the provider answered it (``record_call``).
    A prediction asked again after a failed call has one record per call."""

    prediction = models.ForeignKey(
        EvaluationPrediction, on_delete=models.CASCADE, related_name="calls"
    )

    class Meta:
        ordering = ["prediction", "pk"]

    def __str__(self):
        return f"call {self.pk} of prediction {self.prediction_id} ({self.outcome})"
