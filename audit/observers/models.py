"""Observer reports' records (issue 37), gathered by :mod:`audit.models` under the
``audit`` label.

An ``ObserverInventory`` is one loaded inventory file (its items as data); a run names the
version it used. An ``ObserverRun`` (an LLM run on ``core.llm_runs``) has one
``ObserverUnit`` per (character, observer): the material shown (memory or reference ids,
fixed at launch from the run's seed) and the profile version whose design vector the
ratings are compared with. A unit's model calls are ``ObserverCall`` rows; a valid answer
becomes one ``ObserverRating`` per inventory item.

``observer_kind`` is the hook for human observers: only ``llm`` units are made today; a
human observer's unit would hold the same material and ratings, with ``observer`` naming
the person instead of a model family.

!!! BLINDING !!!  Ratings sit beside the design vector here: admins only.
"""

from django.conf import settings
from django.db import models

from annotation.corpus.models import Character, ProfileVersion
from core.llm_runs.models import AbstractCallRecord, LlmRun, LlmUnit
from core.protocol import PROTOCOL_SEED

__all__ = [
    "DEFAULT_SAMPLE_SIZE",
    "ObserverCall",
    "ObserverInventory",
    "ObserverRating",
    "ObserverRun",
    "ObserverUnit",
]

#: Memories (or references) an observer reads per character, unless the run says otherwise.
DEFAULT_SAMPLE_SIZE = 12
MAX_SAMPLE_SIZE = 40


class ObserverInventory(models.Model):
    """One loaded inventory file, as :func:`audit.observers.inventory.parse_inventory`
    checked it. Never edited: a changed file is loaded as another version."""

    name = models.CharField(max_length=200)
    version = models.CharField(max_length=40)
    scale_min = models.SmallIntegerField()
    scale_max = models.SmallIntegerField()
    scale_labels = models.JSONField(default=dict, blank=True)
    # [{"id", "text", "trait", "keying"}, ...] in the file's order.
    items = models.JSONField()
    note = models.TextField(blank=True)
    file_name = models.CharField(max_length=200, blank=True)
    sha256 = models.CharField(max_length=64)
    loaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    loaded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-loaded_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["name", "version"], name="observer_inventory_name_version"
            )
        ]

    def __str__(self):
        return f"{self.name} v{self.version}"

    @property
    def item_count(self) -> int:
        return len(self.items or [])


class ObserverRun(LlmRun):
    """Observer reports on chosen characters, from every configured generation family.
    The framework's states (``RunStatus``), moved by ``services.FLOW``."""

    class Target(models.TextChoices):
        MEMORIES = "memories", "Audited memories"
        REFERENCES = "references", "Adjudicated reference responses"

    inventory = models.ForeignKey(ObserverInventory, on_delete=models.PROTECT, related_name="runs")
    target = models.CharField(max_length=16, choices=Target.choices, default=Target.MEMORIES)
    sample_size = models.PositiveSmallIntegerField(default=DEFAULT_SAMPLE_SIZE)
    seed = models.BigIntegerField(default=PROTOCOL_SEED)
    families = models.JSONField(default=list, help_text="The observer families asked.")
    prompt_version = models.CharField(max_length=40)
    # What the run read, fixed at launch (``corpus_version``): per character the profile
    # version compared, the audit its memories came from and a hash of each passage shown;
    # ``corpus_version`` is the fingerprint of that state ("" for a run made before).
    corpus = models.JSONField(default=dict, blank=True)
    corpus_version = models.CharField(max_length=64, blank=True)

    def __str__(self):
        return f"observer run {self.pk} ({self.status})"


class ObserverUnit(LlmUnit):
    """One observer's report on one character: what it was shown and its state."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    class Kind(models.TextChoices):
        LLM = "llm", "Language model"
        HUMAN = "human", "Person"

    TERMINAL = (Status.SUCCEEDED, Status.FAILED, Status.CANCELLED)

    run = models.ForeignKey(ObserverRun, on_delete=models.CASCADE, related_name="units")
    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="+")
    profile_version = models.ForeignKey(ProfileVersion, on_delete=models.PROTECT, related_name="+")
    observer_kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.LLM)
    # The model family (an LLM observer) or the person's account name (a human one).
    observer = models.CharField(max_length=150)
    # Memory ids (or reference ids) shown, in the order shown.
    material = models.JSONField(default=list)
    # {"<life stage>|<tier>": count} of the sample, for the page.
    strata = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)

    class Meta:
        ordering = ["run", "character__key", "observer"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "character", "observer_kind", "observer"],
                name="observer_unit_unique",
            )
        ]
        indexes = [models.Index(fields=["run", "status"], name="observer_unit_run_status")]

    def __str__(self):
        return f"observer unit {self.pk}: {self.character_id} by {self.observer} ({self.status})"


class ObserverCall(AbstractCallRecord):
    """One model call of an observer unit, with the prompt as sent."""

    unit = models.ForeignKey(ObserverUnit, on_delete=models.CASCADE, related_name="calls")

    class Meta:
        ordering = ["unit", "created_at", "pk"]

    def __str__(self):
        return f"model call for observer unit {self.unit_id} ({self.outcome or 'failed'})"


class ObserverRating(models.Model):
    """One item's rating by one observer, as given (before reverse keying)."""

    unit = models.ForeignKey(ObserverUnit, on_delete=models.CASCADE, related_name="ratings")
    item_id = models.CharField(max_length=20)
    trait = models.CharField(max_length=1)
    keying = models.CharField(max_length=1)
    value = models.SmallIntegerField()

    class Meta:
        ordering = ["unit", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["unit", "item_id"], name="observer_rating_unique")
        ]

    def __str__(self):
        return f"{self.item_id}={self.value} ({self.unit_id})"
