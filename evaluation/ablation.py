"""The memory-content ablation of seed 000 §3 (Table 3) and App. H: the Naive-RAG
prompt with only its memory block changed.

- C0: the target character's memories retrieved for the target scenario (the Naive-RAG
  set itself);
- C1: the target character's memories retrieved for another scenario of the same
  life-stage bin;
- C2: another character's memories retrieved for the target scenario;
- C3: the target character's memories sampled at random.

Every condition keeps App. E's rules: only memories at or before the item's scenario age
are eligible, only ``content_full`` is shown, k entries (the run's k). Where the paper
is silent (which other scenario, which other character, the random seed, the ids shown
for another character's memories) the choices are stated in docs/lab-admin/evaluation.md.
"""

from __future__ import annotations

from adjudication.mcq.models import McqItem
from annotation.corpus.models import Scenario

from . import retrieval
from .models import EvaluationError, RetrievalSet, Setting


def _next_after(key: str, keys: list[str]) -> str | None:
    """The key that follows ``key`` in sorted order, wrapping round; None without others."""
    others = sorted(k for k in keys if k != key)
    if not others:
        return None
    return next((k for k in others if k > key), others[0])


def other_scenario(item: McqItem) -> Scenario:
    """C1's scenario: the next scenario of the item's life-stage bin by id (wrapping)."""
    scenario = item.scenario
    same_bin = dict(Scenario.objects.filter(stage=scenario.stage).values_list("scenario_id", "pk"))
    chosen = _next_after(scenario.scenario_id, list(same_bin))
    if chosen is None:
        raise EvaluationError(
            f"C1 needs another scenario in {scenario.stage}; "
            f"{scenario.scenario_id} is the only one."
        )
    return Scenario.objects.get(pk=same_bin[chosen])


def other_character(item: McqItem):
    """C2's character: among the characters with a final item in the same scenario, the
    next by key after the item's character (wrapping)."""
    rows = McqItem.objects.filter(
        scenario=item.scenario_id, status=McqItem.Status.FINAL
    ).select_related("character")
    characters = {row.character.key: row.character for row in rows}
    chosen = _next_after(item.character.key, list(characters))
    if chosen is None:
        raise EvaluationError(
            f"C2 needs another character with an item in {item.scenario.scenario_id}; "
            "there is none."
        )
    return characters[chosen]


def ablation_set(item: McqItem, *, setting: str, method: str, k: int, embedding=None):
    """The stored memory set the ablation condition ``setting`` shows for ``item``."""
    if setting == Setting.ABLATION_C0:
        return retrieval.retrieve_for_item(item, method=method, k=k, embedding=embedding)
    if setting == Setting.ABLATION_C1:
        scenario = other_scenario(item)
        return retrieval.retrieve_for_item(
            item,
            method=method,
            k=k,
            embedding=embedding,
            query_scenario=scenario,
            origin=f"ablation C1: {scenario.scenario_id}",
        )
    if setting == Setting.ABLATION_C2:
        donor = other_character(item)
        own = item.character.key

        def shown_id(memory):
            # The model reads the memories as the target's own: an id naming another
            # character would tell it they are not (and the leak check refuses it).
            return memory.anonymized_id.replace(donor.key, own, 1)

        return retrieval.retrieve_for_item(
            item,
            method=method,
            k=k,
            embedding=embedding,
            owner=donor,
            origin=f"ablation C2: {donor.key}",
            shown_id=shown_id,
        )
    if setting == Setting.ABLATION_C3:
        return retrieval.retrieve_for_item(
            item,
            method=RetrievalSet.Method.RANDOM,
            k=k,
            origin=f"ablation C3: {item.question_id}",
        )
    raise ValueError(f"{setting!r} is not an ablation condition")
