"""What an observer reads about a character: a seeded sample of its audited memories (or
its adjudicated reference responses), spread over strata, shown in chronological order.

Strata are (life stage, tier): the memory's life-stage bin and, for a generated memory,
the intensity tier its slot drew (A-D; an imported memory has none). The sample takes
one memory from each stratum in turn (strata in a seeded order, each stratum's memories
in a seeded order) until the sample size is reached or the memories run out: every
stratum is represented before any gets a second memory. The seed is the run's seed and
the character's key, so a run names its material exactly and another run with the same
seed shows the same memories.
"""

import random
from collections import defaultdict
from dataclasses import dataclass

from adjudication.arbitration.models import ReferenceResponse
from annotation.corpus.models import Memory
from audit.memory_quality.corpus import audited_memories


@dataclass(frozen=True)
class Shown:
    """One piece of material: its id, stratum and what the observer reads."""

    id: str
    stage: str
    tier: str
    order: tuple
    heading: str = ""
    text: str = ""

    @property
    def stratum(self) -> str:
        return f"{self.stage}|{self.tier}"


def stratified_sample(pieces: list[Shown], *, size: int, seed: int, salt: str) -> list[Shown]:
    """``size`` of ``pieces`` taken one per stratum in turn (see the module), in
    chronological order."""
    rng = random.Random(f"{seed}:{salt}")
    groups: dict[str, list[Shown]] = defaultdict(list)
    for piece in sorted(pieces, key=lambda p: p.id):
        groups[piece.stratum].append(piece)
    order = sorted(groups)
    rng.shuffle(order)
    for key in order:
        rng.shuffle(groups[key])
    chosen: list[Shown] = []
    while len(chosen) < size and any(groups[key] for key in order):
        for key in order:
            if groups[key] and len(chosen) < size:
                chosen.append(groups[key].pop())
    return sorted(chosen, key=lambda p: p.order)


def memory_pieces(character) -> list[Shown]:
    """The character's audited memories (the latest finalized audit's timeline)."""
    rows = audited_memories(character.pk, key=character.key).values_list(
        "memory_id", "life_stage", "generation__tier", "event_age", "sequence"
    )
    return [
        Shown(id=mid, stage=stage, tier=tier or "", order=(age, seq))
        for mid, stage, tier, age, seq in rows
    ]


def reference_pieces(character) -> list[Shown]:
    """The character's current adjudicated reference responses."""
    rows = ReferenceResponse.objects.filter(
        character=character, superseded_at__isnull=True
    ).values_list("pk", "scenario__stage", "scenario__age", "scenario__scenario_id")
    return [
        Shown(id=str(pk), stage=stage or "", tier="", order=(age or 0, sid))
        for pk, stage, age, sid in rows
    ]


def shown_texts(target: str, ids: list[str]) -> list[Shown]:
    """The material ``ids`` with the text an observer reads, in the order given. Memory:
    its timeline label and full narrative; reference: the scenario's situation and the
    character's adjudicated response. Never a profile field."""
    if target == "references":
        rows = ReferenceResponse.objects.filter(pk__in=[int(i) for i in ids]).select_related(
            "scenario"
        )
        found = {
            str(r.pk): Shown(
                id=str(r.pk),
                stage=r.scenario.stage,
                tier="",
                order=(),
                heading=f"Situation at age {r.scenario.age}: {r.scenario.context_text}",
                text=" ".join(
                    part for part in (r.summary, r.core_reasoning, r.final_decision) if part
                ),
            )
            for r in rows
        }
    else:
        rows = Memory.objects.filter(memory_id__in=ids).values_list(
            "memory_id", "timeline", "content_full", "life_stage"
        )
        found = {
            mid: Shown(id=mid, stage=stage, tier="", order=(), heading=timeline, text=text)
            for mid, timeline, text, stage in rows
        }
    return [found[i] for i in ids if i in found]
