"""The corpus: characters with immutable profile versions, memories and scenarios.

Field names follow seed 000 App. B.1 (profiles), B.7 Table 8 (memory schema) and
C.1 Table 11 (scenario schema) so imports and exports map one to one.
"""

import re

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models

from core.life_stages import LIFE_STAGE_CHOICES
from core.text_rules import TEXT

CHARACTER_KEY_RE = r"^CHAR_\d{2}$"
MEMORY_ID_RE = re.compile(r"^MEM_(?P<char>CHAR_\d{2})_(?P<label>[A-Z0-9_]+?)_(?P<seq>\d{3,})$")
SCENARIO_ID_RE = r"^SCN_[A-Z0-9_]+_\d+$"
CORE_PATTERN_COUNT = 8  # App. B.1: exactly eight core behavioral patterns
BIG_FIVE = ("O", "C", "E", "A", "N")

unit_interval = [MinValueValidator(0.0), MaxValueValidator(1.0)]


class FrozenVersionError(ValidationError):
    """A frozen profile version was about to change."""


class Character(models.Model):
    key = models.CharField(
        max_length=16,
        unique=True,
        validators=[RegexValidator(CHARACTER_KEY_RE, "Character keys look like CHAR_06.")],
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["key"]

    def __str__(self):
        return self.key

    @property
    def number(self) -> str:
        return self.key.removeprefix("CHAR_")


class ProfileVersion(models.Model):
    """One immutable-once-frozen specification P of a character (App. B.1).

    Editing a profile means creating a new version; a frozen version never changes
    (guarded here and by the services), and everything downstream points at one.
    """

    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    construction_label = models.CharField(
        max_length=200, help_text="Descriptive archetype label (name); withheld from evaluation."
    )
    occupation = models.CharField(max_length=300)
    openness = models.FloatField(validators=unit_interval)
    conscientiousness = models.FloatField(validators=unit_interval)
    extraversion = models.FloatField(validators=unit_interval)
    agreeableness = models.FloatField(validators=unit_interval)
    neuroticism = models.FloatField(validators=unit_interval)
    description = models.TextField()
    self_value_logic = models.TextField()
    core_patterns = models.JSONField(help_text="Exactly eight core behavioral patterns.")
    is_demo_standin = models.BooleanField(
        default=False, help_text="Written for the demo; not the authors' profile."
    )
    source = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    frozen_at = models.DateTimeField(null=True, blank=True)
    frozen_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ["character__key", "number"]
        constraints = [
            models.UniqueConstraint(fields=["character", "number"], name="profile_version_unique"),
            *[
                models.CheckConstraint(
                    condition=models.Q(**{f"{f}__gte": 0.0, f"{f}__lte": 1.0}),
                    name=f"profile_{f}_in_unit_interval",
                )
                for f in (
                    "openness",
                    "conscientiousness",
                    "extraversion",
                    "agreeableness",
                    "neuroticism",
                )
            ],
        ]

    def __str__(self):
        return f"{self.character.key} v{self.number}"

    def save(self, *args, **kwargs):
        # Immutability is an integrity rule of the record itself, not workflow logic:
        # no code path may rewrite a frozen specification.
        if self.pk is not None:
            stored = type(self).objects.filter(pk=self.pk).values_list("frozen_at", flat=True)
            if stored and stored[0] is not None:
                raise FrozenVersionError(
                    f"{self} is frozen and cannot change; create a new version."
                )
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        if self.is_frozen:
            raise FrozenVersionError(f"{self} is frozen and cannot be deleted.")
        return super().delete(*args, **kwargs)

    @property
    def is_frozen(self) -> bool:
        return self.frozen_at is not None

    @property
    def big_five(self) -> dict[str, float]:
        return {
            "O": self.openness,
            "C": self.conscientiousness,
            "E": self.extraversion,
            "A": self.agreeableness,
            "N": self.neuroticism,
        }

    @property
    def trait_anchor(self) -> str:
        """The defining extreme (App. B.1: one .95 and one .10 anchor per dimension,
        CHAR_11 all .50). Derived, so it can never disagree with the vector."""
        scores = self.big_five
        highs = [k for k, v in scores.items() if v >= 0.9]
        lows = [k for k, v in scores.items() if v <= 0.15]
        if len(highs) + len(lows) == 1:
            return f"{(highs or lows)[0]} {'high' if highs else 'low'}"
        if all(abs(v - 0.5) < 1e-9 for v in scores.values()):
            return "neutral (all 0.50)"
        return "none"


class Memory(models.Model):
    """One autobiographical memory with the ten-field schema of App. B.7 Table 8."""

    memory_id = models.CharField(max_length=64, unique=True)
    anonymized_id = models.CharField(
        max_length=40, unique=True, help_text="Id without the trait label, for model-facing text."
    )
    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="memories")
    sequence = models.PositiveIntegerField()
    timeline = models.CharField(
        max_length=120, help_text='Timeline label, e.g. "childhood (age 6)".'
    )
    event_age = models.PositiveSmallIntegerField()
    life_stage = models.CharField(max_length=32, choices=LIFE_STAGE_CHOICES, db_index=True)
    context = models.TextField()
    content_summary = models.TextField()
    content_full = models.TextField()
    triggers = models.JSONField(default=list)
    psych_conclusion = models.TextField()
    behavior_policy = models.TextField()
    emotion_primary = models.CharField(max_length=100)
    emotion_secondary = models.CharField(max_length=100, blank=True)
    emotion_intensity = models.FloatField(validators=unit_interval)
    relevance_tags = models.JSONField(default=list)
    is_demo_standin = models.BooleanField(default=False)
    source = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["character__key", "sequence"]
        indexes = [models.Index(fields=["character", "event_age"])]
        constraints = [
            models.UniqueConstraint(
                fields=["character", "sequence"], name="memory_sequence_unique"
            ),
            models.CheckConstraint(
                condition=models.Q(emotion_intensity__gte=0.0, emotion_intensity__lte=1.0),
                name="memory_intensity_in_unit_interval",
            ),
        ]
        verbose_name_plural = "memories"

    def __str__(self):
        return self.memory_id

    @property
    def emotion_signature(self) -> dict:
        return {
            "primary": self.emotion_primary,
            "secondary": self.emotion_secondary,
            "intensity": self.emotion_intensity,
        }


# The content fields of the four-component scenario schema (App. C.1 Table 11), in the
# order ``ScenarioContent`` defines them: everything a scenario says, without its id.
SCENARIO_CONTENT_FIELDS = (
    "stage",
    "age_range",
    "age",
    "diamonds_dimension",
    "name",
    "category",
    "intensity",
    "description_for_agent",
    "setting_location",
    "setting_time",
    "setting_atmosphere",
    "context_text",
    "trigger_sender",
    "trigger_message",
    "action_required",
)


class ScenarioContent(models.Model):
    """A scenario's content (App. C.1 Table 11): ``Scenario`` holds the current content,
    each ``ScenarioVersion`` of scenario review one immutable version of it."""

    # metadata
    stage = models.CharField(max_length=32, choices=LIFE_STAGE_CHOICES)
    age_range = models.CharField(max_length=40)
    age = models.PositiveSmallIntegerField()
    diamonds_dimension = models.CharField(max_length=20, blank=True)
    name = models.CharField(max_length=300)
    category = models.CharField(max_length=300)
    intensity = models.CharField(max_length=40)
    description_for_agent = models.TextField()
    # setting
    setting_location = models.TextField()
    setting_time = models.CharField(max_length=300)
    setting_atmosphere = models.TextField()
    # context
    context_text = models.TextField()
    # trigger event
    trigger_sender = models.CharField(max_length=300)
    trigger_message = models.TextField()
    action_required = models.TextField(blank=True)

    class Meta:
        abstract = True

    def content(self) -> dict:
        return {f: getattr(self, f) for f in SCENARIO_CONTENT_FIELDS}


# The limit of each typed scenario content field (issue #24): the column's where it has
# one, a long text's otherwise. The forms, the API and ``clean_content`` all use it.
SCENARIO_CONTENT_LIMITS = {
    f: ScenarioContent._meta.get_field(f).max_length or TEXT
    for f in SCENARIO_CONTENT_FIELDS
    if f != "age"
}


class Scenario(ScenarioContent):
    """A character-agnostic decision scenario, four-component schema of App. C.1."""

    scenario_id = models.CharField(
        max_length=64,
        unique=True,
        validators=[RegexValidator(SCENARIO_ID_RE, "Scenario ids look like SCN_SCHOOL_AGE_3.")],
    )
    # The corpus pages filter by stage: indexed here, not on every version.
    stage = models.CharField(max_length=32, choices=LIFE_STAGE_CHOICES, db_index=True)
    source = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["scenario_id"]

    def __str__(self):
        return self.scenario_id


class ActivationSet(models.Model):
    """Memories activated for one (character, scenario) pair at one retrieval step
    (App. D.1: step 1 screening, step 2 refinement to at most 50)."""

    class Step(models.IntegerChoices):
        SCREENING = 1, "Stage 1 screening"
        REFINEMENT = 2, "Stage 2 refinement"

    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="+")
    scenario = models.ForeignKey(Scenario, on_delete=models.PROTECT, related_name="+")
    step = models.PositiveSmallIntegerField(choices=Step.choices)
    origin = models.CharField(max_length=120, default="release")
    scenario_age = models.PositiveSmallIntegerField()
    memory_ids = models.JSONField(help_text="Memory ids in the order the source listed them.")
    memory_types = models.JSONField(default=list, blank=True)
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["character", "scenario", "step", "origin"], name="activation_set_unique"
            )
        ]

    def __str__(self):
        return (
            f"{self.character.key} × {self.scenario.scenario_id} step {self.step} ({self.origin})"
        )
