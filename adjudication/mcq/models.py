"""Multiple-choice items and their workflow records (seed 000 §2.4 Stage 3, App. D.3).

An item (four options, one key) and its immutable versions are what the public release
carries; assembly runs, LLM screenings and item-review decisions are the provenance the
MCQ workflow adds. Gathered by :mod:`adjudication.models` under the ``adjudication`` label.
"""

from django.conf import settings
from django.db import models

from adjudication.arbitration.models import ReferenceResponse
from annotation.corpus.models import Character, Scenario
from core.life_stages import LIFE_STAGE_CHOICES
from core.llm_runs.models import AbstractCallRecord, LlmRun, LlmUnit
from core.protocol import PROTOCOL_SEED

__all__ = [
    "OPTION_LABELS",
    "McqAssemblyRun",
    "McqItem",
    "McqItemVersion",
    "McqOption",
    "McqRecallAudit",
    "McqReviewDecision",
    "McqScreening",
    "McqScreeningCall",
    "McqScreeningRun",
]

OPTION_LABELS = ("A", "B", "C", "D")


class McqError(ValueError):
    """A step of the MCQ workflow that cannot happen; the message says why."""


class McqStaleVersion(McqError):
    """A review action on another version than the item's current one (the page or the
    script read it before someone changed it): the API answers 412."""


class McqNotReviewable(McqError):
    """A review action on an item that is not flagged or incomplete any more: the API
    answers 409."""


class McqItem(models.Model):
    """A four-option item: the key plus three distractors from other characters.

    ``version`` counts the item's versions; every version is kept as a
    :class:`McqItemVersion` snapshot (options in order, key, seed, assembly
    parameters). ``status`` is the item's place in assembly → screening → review;
    only ``final`` items belong to the exported benchmark. Imported release items
    arrive ``final``: the authors already screened and reviewed them.

    !!! BLINDING !!!  ``correct_answer``, ``McqOption.is_correct`` and the options'
    ``source_character``/``source_reference`` are the key and its provenance: never
    serialized to participants, evaluated models or reference-label audit experts.
    """

    class Status(models.TextChoices):
        NEEDS_COMPLETION = "needs_completion", "Needs human completion"
        SCREENING = "screening", "Awaiting LLM screening"
        FLAGGED = "flagged", "Flagged for item review"
        FINAL = "final", "In the final set"
        REMOVED = "removed", "Removed"

    question_id = models.CharField(max_length=120, unique=True)
    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="mcq_items")
    scenario = models.ForeignKey(Scenario, on_delete=models.PROTECT, related_name="mcq_items")
    stage = models.CharField(max_length=32, choices=LIFE_STAGE_CHOICES)
    correct_answer = models.CharField(max_length=1, choices=[(x, x) for x in OPTION_LABELS])
    version = models.PositiveIntegerField(default=1)
    source = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(
        max_length=20,
        choices=Status.choices,
        default=Status.FINAL,
        db_default=Status.FINAL,
        db_index=True,
    )
    # The reference whose final decision is the key (null for items imported without one).
    reference = models.ForeignKey(
        ReferenceResponse, null=True, blank=True, on_delete=models.PROTECT, related_name="items"
    )
    # Option-order seed and assembly parameters of the current version.
    seed = models.BigIntegerField(null=True, blank=True)
    assembly_params = models.JSONField(default=dict, blank=True, db_default={})

    class Meta:
        ordering = ["question_id"]

    def __str__(self):
        return self.question_id


class McqOption(models.Model):
    item = models.ForeignKey(McqItem, on_delete=models.CASCADE, related_name="options")
    label = models.CharField(max_length=1, choices=[(x, x) for x in OPTION_LABELS])
    content = models.TextField()
    is_correct = models.BooleanField()
    is_generated = models.BooleanField(default=False)
    source_character = models.CharField(max_length=16)
    # The adjudicated reference this option's text came from (null: imported or generated).
    source_reference = models.ForeignKey(
        ReferenceResponse, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ["item", "label"]
        constraints = [
            models.UniqueConstraint(fields=["item", "label"], name="mcq_option_label_unique")
        ]

    def __str__(self):
        return f"{self.item.question_id} {self.label}"


class McqItemVersion(models.Model):
    """An immutable snapshot of one version of an item.

    ``options`` is the list of option dicts in label order: ``label, content,
    is_correct, is_generated, source_character, source_reference`` (an id or null).
    ``origin`` says which workflow made the version (see :class:`Origin`).
    """

    class Origin(models.TextChoices):
        IMPORT = "import", "Imported"
        ASSEMBLY = "assembly", "Assembled"
        REVIEW = "review", "Item review"
        LABEL_AUDIT = "label_audit", "Reference-label audit"

    item = models.ForeignKey(McqItem, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    correct_answer = models.CharField(max_length=1, choices=[(x, x) for x in OPTION_LABELS])
    options = models.JSONField()
    seed = models.BigIntegerField(null=True, blank=True)
    assembly_params = models.JSONField(default=dict, blank=True)
    origin = models.CharField(max_length=16, choices=Origin.choices)
    note = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item", "number"]
        constraints = [
            models.UniqueConstraint(fields=["item", "number"], name="mcq_version_number_unique")
        ]

    def __str__(self):
        return f"{self.item.question_id} v{self.number}"


class McqAssemblyRun(models.Model):
    """One pass of automatic assembly over every pair with a current reference and no item."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # Measure, thresholds, selector — what every item of this run was assembled under.
    params = models.JSONField(default=dict, blank=True)
    # The run's seed: each item's option-order seed derives from it (and the item id), and
    # the key positions it balances are drawn with those seeds.
    seed = models.BigIntegerField(default=PROTOCOL_SEED)
    # Non-empty: an admin let the run take references not adjudicated in this project
    # (imported ones), with this reason; recorded as a protocol deviation.
    gate_override_reason = models.TextField(blank=True)
    total = models.PositiveIntegerField(default=0)
    processed = models.PositiveIntegerField(default=0)
    assembled = models.PositiveIntegerField(default=0)
    needs_completion = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"assembly run {self.pk} ({self.status})"

    @property
    def percent(self) -> int:
        return round(100 * self.processed / self.total) if self.total else 100


class McqScreeningRun(LlmRun):
    """Screenings asked for together (issue #33): the items an assembly run sent to
    screening, one edited item, an admin's "screen now", or every item awaiting the
    judge. Its units are the :class:`McqScreening` rows; ``note`` says why it was made.
    """

    assembly_run = models.ForeignKey(
        McqAssemblyRun,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="screening_runs",
    )

    def __str__(self):
        return f"screening run {self.pk} ({self.status})"


class McqRecallAudit(models.Model):
    """One seeded random draw of items the screener passed, sent back to item review so
    the screener's recall can be measured (issue 37): the item reviewers review them
    blind, among the flagged ones. Each drawn screening points here; every passed item of
    the pool had the same chance ``sample_size / pool_size`` of being drawn, so a drawn
    item stands for ``pool_size / sample_size`` passed items in the recall estimate."""

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    seed = models.BigIntegerField()
    # The draw's settings: the share of the pool drawn and the fewest items drawn (all of
    # the pool when it holds fewer).
    rate = models.FloatField()
    min_items = models.PositiveIntegerField()
    # Passed items in the final set, at the version screened, not drawn before.
    pool_size = models.PositiveIntegerField()
    sample_size = models.PositiveIntegerField()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"recall audit of {self.sample_size} of {self.pool_size} passed items"

    @property
    def weight(self) -> float:
        """How many passed items of the pool one drawn item stands for."""
        return self.pool_size / self.sample_size if self.sample_size else 0.0


class McqScreening(LlmUnit):
    """One LLM screening of one item version under the App. D.3.1 guideline: a unit of
    a :class:`McqScreeningRun`.

    ``status`` is the unit's place in its run (waiting, screening, screened, failed,
    cancelled); ``outcome`` is the result. ``output`` is the judge's validated JSON (the
    D.3.1 output contract). A ``technical_failure`` (the unit failed: the judge never
    gave a valid, consistent answer within the retry bound) is kept apart from a
    ``flagged`` verdict; the item goes to review because nobody has screened it, not
    because a check failed, and a retry of the run screens it again. ``attempts``
    counts the judge's attempts behind the stored result; every call is a
    :class:`McqScreeningCall`.

    !!! BLINDING !!!  ``judge_family``/``judge_model`` are provenance; never shown to
    annotators.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting"
        RUNNING = "running", "Screening"
        DONE = "done", "Screened"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    TERMINAL = (Status.DONE, Status.FAILED, Status.CANCELLED)
    OPEN = (Status.PENDING, Status.RUNNING)

    class Outcome(models.TextChoices):
        PENDING = "pending", "Pending"
        PASSED = "passed", "Passed"
        FLAGGED = "flagged", "Flagged"
        TECHNICAL_FAILURE = "technical_failure", "Technical failure"

    # Null only for a screening recorded outside any run (a fixture, a script); the
    # screenings stored before runs existed were put into one run by the migration.
    run = models.ForeignKey(
        McqScreeningRun,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="screenings",
    )
    item = models.ForeignKey(McqItem, on_delete=models.CASCADE, related_name="screenings")
    item_version = models.ForeignKey(McqItemVersion, on_delete=models.PROTECT, related_name="+")
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    outcome = models.CharField(
        max_length=20, choices=Outcome.choices, default=Outcome.PENDING, db_index=True
    )
    judge_family = models.CharField(max_length=32, blank=True)
    judge_model = models.CharField(max_length=120, blank=True)
    # The judge's attempts behind the stored result (not the framework's take-up count).
    attempts = models.PositiveSmallIntegerField(default=0)
    output = models.JSONField(null=True, blank=True)
    # A passed screening drawn into a recall audit: its item went back to item review.
    recall_audit = models.ForeignKey(
        McqRecallAudit,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="screenings",
    )
    # One entry per attempt that was rejected: what was wrong with it.
    attempt_errors = models.JSONField(default=list, blank=True)
    needs_human_review = models.BooleanField(default=False)
    prompt_sha256 = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["item", "-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["item_version"],
                condition=models.Q(status__in=["pending", "running"]),
                name="one_open_screening_per_version",
            )
        ]
        indexes = [models.Index(fields=["run", "status"], name="mcq_screening_run_status")]

    def __str__(self):
        return f"screening of {self.item_id} v{self.item_version_id} ({self.outcome})"


class McqScreeningCall(AbstractCallRecord):
    """One call to the screening judge for one unit (one of its bounded attempts), as
    ``llm.CallResult`` gave it; ``problems`` says why the caller rejected the answer.

    !!! BLINDING !!!  Provider, model and the raw answer: admins only."""

    screening = models.ForeignKey(McqScreening, on_delete=models.CASCADE, related_name="calls")
    attempt = models.PositiveSmallIntegerField()
    problems = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["screening", "created_at", "pk"]

    def __str__(self):
        return f"call {self.attempt} of screening {self.screening_id} ({self.outcome})"


class McqReviewDecision(models.Model):
    """A reviewer's action on a flagged or incomplete item (App. D.3.1, item review).

    ``item_version`` is the version the reviewer looked at; ``result_version`` the
    version the action produced (null when the item was retained or removed). The
    reference-label audit's conflict-of-interest check reads ``reviewer``.
    """

    class Action(models.TextChoices):
        RETAIN = "retain", "Retained as-is"
        REVISE_DISTRACTOR = "revise_distractor", "Revised a distractor"
        REPLACE_DISTRACTOR = "replace_distractor", "Replaced a distractor"
        GENERATE_DISTRACTOR = "generate_distractor", "Added a generated distractor"
        RECONSIDER_KEY = "reconsider_key", "Reconsidered the reference / key"
        RECONSTRUCT = "reconstruct", "Reconstructed the item"
        REMOVE = "remove", "Removed the item"

    item = models.ForeignKey(McqItem, on_delete=models.PROTECT, related_name="review_decisions")
    item_version = models.ForeignKey(McqItemVersion, on_delete=models.PROTECT, related_name="+")
    result_version = models.ForeignKey(
        McqItemVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    screening = models.ForeignKey(
        McqScreening, null=True, blank=True, on_delete=models.PROTECT, related_name="decisions"
    )
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="mcq_review_decisions"
    )
    action = models.CharField(max_length=24, choices=Action.choices)
    note = models.TextField(blank=True)
    decided_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item", "decided_at"]

    def __str__(self):
        return f"{self.get_action_display()} on {self.item_id}"
