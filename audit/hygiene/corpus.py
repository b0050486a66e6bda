"""The texts a release hygiene screen reads: what the export publishes of one character.

- its audited memories (the one door, ``audit.memory_quality.corpus``), every narrative
  and annotation field the release's ``characters.json`` carries;
- its current reference responses of the pairs that have an item in the final set (the
  release's ``ground_truth.json``);
- the options of its items in the final set (``mcq.json``).

Each comes with the words of the character's own profile (its latest version): the name
rule flags only names and places the profile does not contain.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Count, Q

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.models import McqItem, McqOption
from annotation.corpus.models import Character, Memory, ProfileVersion
from audit.hygiene.rules import words_of
from audit.memory_quality.corpus import audited_memories, audited_memory_ids
from core.display import character_name

MEMORY_FIELDS = (
    "context",
    "content_summary",
    "content_full",
    "psych_conclusion",
    "behavior_policy",
)
REFERENCE_FIELDS = (
    "summary",
    "emotional_tone",
    "core_reasoning",
    "value_orientation",
    "final_decision",
)


@dataclass(frozen=True)
class PublishedText:
    kind: str  # HygieneFlag.TextKind
    label: str
    fields: tuple  # ((field name, text), ...)
    profile_words: frozenset
    memory_id: int | None = None
    reference_id: int | None = None
    option_id: int | None = None


def profile_words(character: Character) -> frozenset:
    """The words of the profile version the export names: the latest frozen one, else
    the latest."""
    versions = list(ProfileVersion.objects.filter(character=character).order_by("number"))
    frozen = [v for v in versions if v.is_frozen]
    profile = (frozen or versions or [None])[-1]
    if profile is None:
        return frozenset()
    return words_of(
        profile.construction_label,
        profile.occupation,
        profile.description,
        profile.self_value_logic,
        *(str(p) for p in profile.core_patterns or ()),
    )


def _final_items(character_ids):
    return McqItem.objects.filter(status=McqItem.Status.FINAL, character_id__in=character_ids)


def _published_references(character_ids):
    final = _final_items(character_ids)
    return ReferenceResponse.objects.filter(
        superseded_at__isnull=True,
        character_id__in=character_ids,
        scenario_id__in=final.values("scenario_id"),
    )


def published_texts(character: Character) -> list[PublishedText]:
    """The character's published texts, a fixed number of queries."""
    words = profile_words(character)
    who = character_name(character)
    texts = [
        PublishedText(
            kind="memory",
            label=f"{who}: memory at age {m.event_age} ({m.get_life_stage_display()})",
            fields=tuple((f, getattr(m, f)) for f in MEMORY_FIELDS),
            profile_words=words,
            memory_id=m.pk,
        )
        for m in audited_memories(character.pk, key=character.key)
    ]
    references = _published_references([character.pk]).select_related("scenario")
    texts += [
        PublishedText(
            kind="reference",
            label=f"{who}: reference response, {r.scenario.name} "
            f"({r.scenario.get_stage_display()})",
            fields=tuple((f, getattr(r, f)) for f in REFERENCE_FIELDS),
            profile_words=words,
            reference_id=r.pk,
        )
        for r in references.order_by("pk")
    ]
    options = (
        McqOption.objects.filter(item__in=_final_items([character.pk]))
        .select_related("item__scenario")
        .order_by("item_id", "label")
    )
    texts += [
        PublishedText(
            kind="option",
            label=f"{who}: option {o.label} of the item on {o.item.scenario.name}",
            fields=(("content", o.content),),
            profile_words=words,
            option_id=o.pk,
        )
        for o in options
    ]
    return texts


def texts_count(character_ids: Iterable[int]) -> int:
    """How many texts a screen of these characters reads (the run's progress total)."""
    ids = list(character_ids)
    kept = audited_memory_ids(ids)
    unaudited = [pk for pk, memories in kept.items() if memories is None]
    memories = sum(len(m) for m in kept.values() if m is not None)
    memories += Memory.objects.filter(character_id__in=unaudited).count()
    references = _published_references(ids).count()
    options = McqItem.objects.filter(status=McqItem.Status.FINAL, character_id__in=ids).aggregate(
        n=Count("options", filter=Q(options__isnull=False))
    )["n"]
    return memories + references + (options or 0)
