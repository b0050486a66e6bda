"""Reads of the final-set export: the rows of one export (:func:`load_final_set`), and
the counts of the export page and the admins' home card. A fixed number of queries
whatever the size of the set."""

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Count, Exists, OuterRef, Prefetch, Q
from django.urls import reverse

from adjudication.arbitration.models import ReferenceResponse
from adjudication.export.chain import chain_sections
from adjudication.mcq.models import McqItem, McqItemVersion, McqOption
from annotation.corpus.models import Character, Memory, ProfileVersion
from audit.memory_quality.corpus import audited_memory_ids
from core.life_stages import LIFE_STAGE_KEYS
from core.plurals import counted
from core.roles import Role, user_roles

# What the zip holds, for the page (adjudication.export.services builds it).
EXPORT_LAYOUT = (
    (
        "release/",
        "mcq, ground_truth, scenarios and characters in the public release's layouts, "
        "each as .json, .jsonl and .csv; each memory's text is written once, in "
        "characters.json, and characters.jsonl names the memories by id",
    ),
    (
        "model_facing/",
        "items, memories (content_full only, anonymized ids, timeline labels) and the "
        "keys in a separate answers file: hand these to an evaluation harness; "
        "items, answers and memories also as Parquet",
    ),
    (
        "construction/",
        "every item with its key, option provenance, versions, reference and full "
        "adjudication chain (also as Parquet, nested fields as JSON strings): construction "
        "team only",
    ),
    (
        "README.md",
        "the dataset card: its YAML header names the configurations model_facing "
        "(default), answers, memories and construction, for datasets.load_dataset; it "
        "states the licence, intended and out-of-scope uses and the latest release hygiene "
        "screen's summary",
    ),
    (
        "manifest.json",
        "counts, answer keys per option label, item and profile versions, the protocol "
        "deviations recorded, characters without a finalized memory audit, SHA-256 of "
        "every file",
    ),
)


def export_summary() -> dict:
    by_status = dict(
        McqItem.objects.values_list("status").annotate(n=Count("pk")).order_by("status")
    )
    final = McqItem.objects.filter(status=McqItem.Status.FINAL)
    options = McqOption.objects.filter(item__status=McqItem.Status.FINAL).aggregate(
        total=Count("pk"), generated=Count("pk", filter=Q(is_generated=True))
    )
    targets = Character.objects.filter(mcq_items__status=McqItem.Status.FINAL).distinct()
    without_profile = list(
        targets.filter(versions__isnull=True).order_by("key").values_list("key", flat=True)
    )
    current_reference = ReferenceResponse.objects.filter(
        superseded_at__isnull=True,
        character_id=OuterRef("character_id"),
        scenario_id=OuterRef("scenario_id"),
    )
    unkeyed = final.filter(reference__isnull=True).exclude(Exists(current_reference)).count()
    return {
        "by_status": [(label, by_status.get(value, 0)) for value, label in McqItem.Status.choices],
        "final": by_status.get(McqItem.Status.FINAL, 0),
        "excluded": sum(n for s, n in by_status.items() if s != McqItem.Status.FINAL),
        "options": options["total"],
        "generated_options": options["generated"],
        "scenarios": final.values("scenario").distinct().count(),
        "characters": targets.count(),
        "characters_without_profile": without_profile,
        "items_without_reference": unkeyed,
        "references": ReferenceResponse.objects.filter(superseded_at__isnull=True).count(),
    }


def export_home_queues(*, user) -> dict:
    """The admins' home card: how many items the export would contain (one query)."""
    if Role.ADMIN not in user_roles(user):
        return {}
    count = McqItem.objects.filter(status=McqItem.Status.FINAL).count()
    return {
        "final_set_export": {
            "count": count,
            "url": reverse("export:home"),
            "label": f"{counted(count, 'item')} in the final set, ready to export",
        }
    }


# --- the rows of one export --------------------------------------------------------------


@dataclass
class FinalSet:
    """The rows of one export, read with a fixed number of queries."""

    items: list
    references: dict  # item pk -> ReferenceResponse or None
    # item pk -> the pair's current reference (ground_truth.json): the adjudicated one once
    # adjudication has superseded the imported reference the item was keyed on.
    ground_truth: dict
    scenarios: list
    profiles: dict  # character key -> ProfileVersion (latest frozen, else latest)
    memories: dict  # character key -> [Memory] of the audited corpus, in sequence order
    characters_without_profile: list
    characters_without_audit: list  # exported characters no finalized memory audit covered
    excluded: dict  # status -> count of items left out
    section_names: list = field(default_factory=list)


def final_items():
    return (
        McqItem.objects.filter(status=McqItem.Status.FINAL)
        .select_related("character", "scenario", "reference__arbitrator")
        .prefetch_related(
            Prefetch("options", queryset=McqOption.objects.order_by("label")),
            Prefetch(
                "versions",
                queryset=McqItemVersion.objects.select_related("created_by").order_by("number"),
            ),
        )
        .order_by("pk")
    )


def _pair_references(items) -> dict:
    """(character id, scenario id) -> the pair's current reference, for every item's pair."""
    if not items:
        return {}
    by_pair = {}
    for ref in ReferenceResponse.objects.filter(
        superseded_at__isnull=True,
        character_id__in={i.character_id for i in items},
        scenario_id__in={i.scenario_id for i in items},
    ).select_related("arbitrator"):
        by_pair[(ref.character_id, ref.scenario_id)] = ref
    return by_pair


def _current_references(items, by_pair) -> dict:
    """The reference each item keys: its own link, else the pair's current reference."""
    return {
        i.pk: i.reference if i.reference_id else by_pair.get((i.character_id, i.scenario_id))
        for i in items
    }


def _ground_truth_references(items, by_pair) -> dict:
    """The reference ground_truth.json publishes for each item's pair: the pair's current
    one (an adjudicated reference supersedes the imported one the item was keyed on),
    else the item's own link."""
    return {i.pk: by_pair.get((i.character_id, i.scenario_id)) or i.reference for i in items}


def _chosen_profiles(keys: set[str]) -> dict:
    """Each character's latest frozen profile version, else its latest version."""
    chosen = {}
    for version in (
        ProfileVersion.objects.filter(character__key__in=keys)
        .select_related("character")
        .order_by("character__key", "number")
    ):
        key = version.character.key
        current = chosen.get(key)
        if current is None or version.is_frozen or not current.is_frozen:
            chosen[key] = version
    return chosen


def load_final_set() -> FinalSet:
    items = list(final_items())
    by_pair = _pair_references(items)
    references = _current_references(items, by_pair)
    scenarios = sorted(
        {i.scenario_id: i.scenario for i in items}.values(),
        key=lambda s: (LIFE_STAGE_KEYS.index(s.stage), s.pk),
    )
    keys = {i.character.key for i in items}
    # A hand-written distractor has no source character (its source_character is blank).
    keys |= {o.source_character for i in items for o in i.options.all() if o.source_character}
    profiles = _chosen_profiles(keys)
    character_ids = {p.character_id: key for key, p in profiles.items()}
    audited = audited_memory_ids(character_ids)
    memories = defaultdict(list)
    for memory in (
        Memory.objects.filter(character__key__in=list(profiles))
        .select_related("character")
        .order_by("character__key", "sequence")
    ):
        # Only the audited corpus (App. B.6): a memory the audit left out is not exported.
        kept = audited[memory.character_id]
        if kept is None or memory.pk in kept:
            memories[memory.character.key].append(memory)
    excluded = dict(
        McqItem.objects.exclude(status=McqItem.Status.FINAL)
        .values_list("status")
        .annotate(n=Count("pk"))
        .order_by("status")
    )
    return FinalSet(
        items=items,
        references=references,
        ground_truth=_ground_truth_references(items, by_pair),
        scenarios=scenarios,
        profiles=profiles,
        memories=dict(memories),
        characters_without_profile=sorted(keys - set(profiles)),
        characters_without_audit=sorted(
            key for pk, key in character_ids.items() if audited[pk] is None
        ),
        excluded=excluded,
        section_names=[name for name, _ in chain_sections()],
    )
