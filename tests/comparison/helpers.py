"""Building blocks of the comparison and arbitration tests: pairs of three candidates
with activated memories, three annotators, an arbitrator, and a judgment helper."""

from datetime import UTC, datetime

from django.contrib.auth.models import Group

from adjudication.consensus.services import judgment_submit
from annotation.comparison import services
from annotation.comparison.models import COMPARISON_LETTERS, PairAssignment
from annotation.generation.models import Candidate
from core.roles import Role
from tests.factories import (
    CharacterFactory,
    MemoryFactory,
    ProfileVersionFactory,
    ScenarioFactory,
    UserFactory,
)

# Distinctive provenance per family, so a scan can tell when one leaks.
MODEL_NAMES = {
    "claude": "zqx-cmp-claude-model-1",
    "gpt": "zqx-cmp-gpt-model-2",
    "gemini": "zqx-cmp-gemini-model-3",
}
TEXTS = {
    "claude": (
        "I remember the cold library and feel torn.",
        "I stay behind and water the plants before I leave.",
    ),
    "gpt": ("Promises matter more than rides.", "I tell Mom I will join after the plants."),
    "gemini": ("I worry the teacher will be let down.", "I go to the park and ask a friend."),
}


def ensure_groups():
    for role in Role:
        Group.objects.get_or_create(name=role.value)


def people():
    ensure_groups()
    annotators = [
        UserFactory(username=f"cmp-annotator-{i}", roles=[Role.PRIMARY_ANNOTATOR])
        for i in (1, 2, 3)
    ]
    arbitrator = UserFactory(username="cmp-arbitrator", roles=[Role.ARBITRATOR])
    admin = UserFactory(username="cmp-admin", roles=[Role.ADMIN], is_staff=True, is_superuser=True)
    return {"annotators": annotators, "arbitrator": arbitrator, "admin": admin}


def make_pair(*, key="CHAR_41", scenario=None, memories=3):
    """One (character, scenario) with three imported candidates (one per family), each
    citing ``memories`` activated memories, and a ComparisonPair."""
    from annotation.comparison.models import ComparisonPair

    character = CharacterFactory(key=key)
    version = ProfileVersionFactory(
        character=character, number=1, frozen_at=datetime(2026, 1, 5, tzinfo=UTC)
    )
    mems = [MemoryFactory(character=character, sequence=i + 1) for i in range(memories)]
    scenario = scenario or ScenarioFactory()
    candidates = []
    for family, (summary, decision) in TEXTS.items():
        candidates.append(
            Candidate.objects.create(
                character=character,
                scenario=scenario,
                family=family,
                model_name=MODEL_NAMES[family],
                profile_version=version,
                summary=summary,
                final_decision=decision,
                activated_memory_ids=[m.memory_id for m in mems],
                origin=Candidate.Origin.IMPORTED,
            )
        )
    pair = ComparisonPair.objects.create(
        character=character, scenario=scenario, profile_version=version
    )
    pair.candidates.set(candidates)
    return pair


def assign(pair, annotators, admin):
    services.comparison_assign(
        user=admin, pair_ids=[pair.pk], annotator_ids=[a.pk for a in annotators]
    )
    return {a.pk: PairAssignment.objects.get(pair=pair, annotator=a) for a in annotators}


def letter_for(assignment, family):
    """The letter under which ``assignment``'s annotator sees ``family``'s candidate."""
    families = dict(
        Candidate.objects.filter(pk__in=assignment.permutation).values_list("pk", "family")
    )
    return COMPARISON_LETTERS[[families[pk] for pk in assignment.permutation].index(family)]


def judge(assignment, *, family, rating="as_is", flagged=False, guidance=""):
    content = {
        "suitability": "flagged" if flagged else "suitable",
        "suitability_reason": "The scenario contradicts the profile's age." if flagged else "",
        "selected_letter": letter_for(assignment, family),
        "rating": rating,
        "selection_rationale": "This candidate fits the memories best.",
        "revision_guidance": guidance,
    }
    return judgment_submit(
        public_id=assignment.public_id, annotator=assignment.annotator, content=content
    )
