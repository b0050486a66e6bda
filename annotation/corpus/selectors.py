"""Reads of the corpus, shaped for pages and the API.

Each selector issues a fixed number of queries whatever the number of rows (tests
assert the counts).
"""

from dataclasses import dataclass

from django.db.models import Count, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.shortcuts import get_object_or_404

from annotation.corpus.models import ActivationSet, Character, Memory, ProfileVersion, Scenario
from core.life_stages import LIFE_STAGE_BINS, LifeStageBin


@dataclass(frozen=True)
class CorpusOverview:
    characters: int
    profile_versions: int
    frozen_profile_versions: int
    memories: int
    demo_standin_memories: int
    scenarios: int
    activation_sets: int


def corpus_overview() -> CorpusOverview:
    """Corpus sizes for the admin's home: one aggregate per table, whatever its size."""
    versions = ProfileVersion.objects.aggregate(
        total=Count("pk"), frozen=Count("pk", filter=Q(frozen_at__isnull=False))
    )
    memories = Memory.objects.aggregate(
        total=Count("pk"), standin=Count("pk", filter=Q(is_demo_standin=True))
    )
    return CorpusOverview(
        characters=Character.objects.count(),
        profile_versions=versions["total"],
        frozen_profile_versions=versions["frozen"],
        memories=memories["total"],
        demo_standin_memories=memories["standin"],
        scenarios=Scenario.objects.count(),
        activation_sets=ActivationSet.objects.count(),
    )


def _current_versions_prefetch() -> Prefetch:
    # The newest version first: ``character.current_versions[0]`` is the current profile.
    return Prefetch(
        "versions",
        queryset=ProfileVersion.objects.select_related("frozen_by").order_by("-number"),
        to_attr="current_versions",
    )


def character_list() -> QuerySet[Character]:
    """Characters with their profile versions (newest first) and memory counts."""
    memory_count = (
        Memory.objects.filter(character=OuterRef("pk"))
        .order_by()
        .values("character")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Character.objects.annotate(
        memory_count=Coalesce(Subquery(memory_count), 0)
    ).prefetch_related(_current_versions_prefetch())


def character_get(*, key: str) -> Character:
    return get_object_or_404(character_list(), key=key)


def memory_list(*, character_key: str | None = None, life_stage: str | None = None):
    qs = Memory.objects.select_related("character")
    if character_key:
        qs = qs.filter(character__key=character_key)
    if life_stage:
        qs = qs.filter(life_stage=life_stage)
    return qs.order_by("character__key", "sequence")


def memory_list_for_table(*, character: Character):
    """A character's memories without the long text fields a table does not show."""
    return (
        Memory.objects.filter(character=character)
        .only(
            "memory_id",
            "anonymized_id",
            "sequence",
            "timeline",
            "event_age",
            "life_stage",
            "content_summary",
            "emotion_primary",
            "emotion_intensity",
            "is_demo_standin",
            "character_id",
        )
        .order_by("sequence")
    )


def memory_life_stage_counts(*, character: Character) -> list[tuple[LifeStageBin, int]]:
    """How many of a character's memories fall in each of the eight bins, in life order."""
    counts = dict(
        Memory.objects.filter(character=character)
        .order_by()
        .values_list("life_stage")
        .annotate(n=Count("pk"))
    )
    return [(b, counts.get(b.key, 0)) for b in LIFE_STAGE_BINS]


def memory_get(*, memory_id: str) -> Memory:
    return get_object_or_404(Memory.objects.select_related("character"), memory_id=memory_id)


def scenario_list(*, stage: str | None = None) -> QuerySet[Scenario]:
    qs = Scenario.objects.all()
    if stage:
        qs = qs.filter(stage=stage)
    return qs.order_by("age", "scenario_id")


def scenarios_by_life_stage() -> list[tuple[LifeStageBin, list[Scenario]]]:
    """Every bin in life order, each with its scenarios (empty bins included)."""
    grouped: dict[str, list[Scenario]] = {b.key: [] for b in LIFE_STAGE_BINS}
    for scenario in scenario_list():
        grouped.setdefault(scenario.stage, []).append(scenario)
    return [(b, grouped[b.key]) for b in LIFE_STAGE_BINS]


def scenario_get(*, scenario_id: str) -> Scenario:
    return get_object_or_404(Scenario, scenario_id=scenario_id)
