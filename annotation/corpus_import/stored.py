"""What an import compares against: the rows it may touch, read with one query per kind,
and the fields compared per kind (a difference in any of them is a change)."""

from collections import defaultdict

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.models import McqItem, McqOption
from annotation.corpus.models import (
    SCENARIO_CONTENT_FIELDS,
    ActivationSet,
    Character,
    Memory,
    ProfileVersion,
    Scenario,
)
from annotation.corpus_import.corpus import ParsedCorpus
from annotation.corpus_import.vocabulary import MEMORY_ID, label_for_anchor
from annotation.generation.models import Candidate

PROFILE_FIELDS = [
    "construction_label",
    "occupation",
    "openness",
    "conscientiousness",
    "extraversion",
    "agreeableness",
    "neuroticism",
    "description",
    "self_value_logic",
    "core_patterns",
    "is_demo_standin",
]
SCENARIO_FIELDS = SCENARIO_CONTENT_FIELDS
MEMORY_FIELDS = [
    "anonymized_id",
    "sequence",
    "timeline",
    "event_age",
    "life_stage",
    "context",
    "content_summary",
    "content_full",
    "triggers",
    "psych_conclusion",
    "behavior_policy",
    "emotion_primary",
    "emotion_secondary",
    "emotion_intensity",
    "relevance_tags",
    "is_demo_standin",
]
REFERENCE_FIELDS = [
    "summary",
    "emotional_tone",
    "core_reasoning",
    "value_orientation",
    "final_decision",
]
MCQ_FIELDS = ["character_id", "scenario_id", "stage", "correct_answer"]
OPTION_FIELDS = ["label", "content", "is_correct", "is_generated", "source_character"]
ACTIVATION_FIELDS = ["scenario_age", "memory_ids", "memory_types", "details"]
CANDIDATE_FIELDS = ["model_name", "final_decision"]
BIG_FIVE_FIELDS = ["openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism"]
RELEASE_ORIGIN = "release"


def keep_unstated(fields: dict, stored: dict | None) -> dict:
    """A stand-in label the file does not state is the stored one (False when new)."""
    if fields.get("is_demo_standin", False) is not None:
        return fields
    return {**fields, "is_demo_standin": bool(stored and stored["is_demo_standin"])}


def changed_fields(fields: dict, row: dict, names) -> list[str]:
    """The names among ``names`` whose value in ``fields`` differs from ``row``'s."""
    return [name for name in names if fields[name] != row[name]]


def option_sources(corpus: ParsedCorpus) -> set[str]:
    """Characters that wrote an MCQ option are referenced too, and exist as rows."""
    return {
        o["source_character"] for fields, _ in corpus.mcq_items.values() for o in fields["options"]
    }


class StoredRows:
    """The rows an import can touch, read with one query per kind."""

    def __init__(self, corpus: ParsedCorpus):
        memory_owners = {m["character_key"] for m, _ in corpus.memories.values()}
        memory_owners |= {m["character_key"] for m, _ in corpus.unlabelled_memories}
        keys = set(corpus.profiles) | memory_owners
        for table in (corpus.references, corpus.mcq_items, corpus.activations):
            keys |= {fields["character_key"] for fields, _ in table.values()}
        keys |= option_sources(corpus)
        self.character_ids = dict(Character.objects.filter(key__in=keys).values_list("key", "id"))
        self.character_keys = {pk: key for key, pk in self.character_ids.items()}

        self.latest_profiles = {}
        profile_keys = set(corpus.profiles) | memory_owners
        for row in (
            ProfileVersion.objects.filter(character__key__in=profile_keys)
            .order_by("character_id", "number")
            .values("id", "number", "character__key", "frozen_at", *PROFILE_FIELDS)
        ):
            self.latest_profiles[row["character__key"]] = row

        scenario_ids = set(corpus.scenarios)
        for table in (corpus.references, corpus.mcq_items, corpus.activations):
            scenario_ids |= {fields["scenario_key"] for fields, _ in table.values()}
        self.scenarios = {
            row["scenario_id"]: row
            for row in Scenario.objects.filter(scenario_id__in=scenario_ids).values(
                "id", "scenario_id", *SCENARIO_FIELDS
            )
        }

        self.memories = {}
        self.memories_by_anonymized = {}
        self.memory_labels = defaultdict(set)
        if memory_owners:
            for row in Memory.objects.filter(character__key__in=memory_owners).values(
                "id", "memory_id", "character_id", "created_at", *MEMORY_FIELDS
            ):
                self.memories[row["memory_id"]] = row
                self.memories_by_anonymized[row["anonymized_id"]] = row
                match = MEMORY_ID.match(row["memory_id"])
                if match:
                    self.memory_labels[self.character_keys[row["character_id"]]].add(match["label"])

        self.references = {}
        if corpus.references:
            pairs = [k for k in corpus.references]
            # Current references only: a superseded one is history (adjudication).
            for row in ReferenceResponse.objects.filter(
                superseded_at__isnull=True,
                character__key__in={c for c, _ in pairs},
                scenario__scenario_id__in={s for _, s in pairs},
            ).values(
                "id", "character__key", "scenario__scenario_id", "decision_type", *REFERENCE_FIELDS
            ):
                self.references[(row["character__key"], row["scenario__scenario_id"])] = row

        self.mcq_items = {}
        if corpus.mcq_items:
            for row in McqItem.objects.filter(question_id__in=list(corpus.mcq_items)).values(
                "id", "question_id", "version", *MCQ_FIELDS
            ):
                row["options"] = []
                self.mcq_items[row["question_id"]] = row
            by_id = {row["id"]: row for row in self.mcq_items.values()}
            for option in (
                McqOption.objects.filter(item_id__in=list(by_id))
                .order_by("item_id", "label")
                .values("item_id", *OPTION_FIELDS)
            ):
                by_id[option.pop("item_id")]["options"].append(option)

        self.candidates = {}
        if corpus.candidates:
            keys = list(corpus.candidates)
            for row in Candidate.objects.filter(
                run__isnull=True,
                origin=Candidate.Origin.IMPORTED,
                character__key__in={k[0] for k in keys},
                scenario__scenario_id__in={k[1] for k in keys},
            ).values("id", "character__key", "scenario__scenario_id", "family", *CANDIDATE_FIELDS):
                key = (row["character__key"], row["scenario__scenario_id"], row["family"])
                self.candidates[key] = row

        self.activations = {}
        if corpus.activations:
            keys = list(corpus.activations)
            for row in ActivationSet.objects.filter(
                origin=RELEASE_ORIGIN,
                character__key__in={k[0] for k in keys},
                scenario__scenario_id__in={k[1] for k in keys},
            ).values("id", "character__key", "scenario__scenario_id", "step", *ACTIVATION_FIELDS):
                key = (row["character__key"], row["scenario__scenario_id"], row["step"])
                self.activations[key] = row

    def anchor_label(self, corpus: ParsedCorpus, character: str) -> str | None:
        """The memory-id label implied by the character's profile (incoming, else stored)."""
        if character in corpus.profiles:
            profile = corpus.profiles[character][0]
        elif character in self.latest_profiles:
            profile = self.latest_profiles[character]
        else:
            return None
        version = ProfileVersion(**{k: profile[k] for k in BIG_FIVE_FIELDS})
        return label_for_anchor(version.trait_anchor)
