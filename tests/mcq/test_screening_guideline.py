"""What the D.3.1 judge receives (seed 000 App. D.3.1), read from the request the fake
provider server recorded over HTTP: every clause of the review rules R1-R6, and the
supporting memories' narratives (``content_full``) within the stated token budget."""

import json
import math
import re

import pytest

from adjudication.mcq import screening as mcq_screening
from adjudication.mcq.services import item_assembly, item_screening
from annotation.corpus.models import ActivationSet
from llm.testing.replies import json_reply
from tests.factories import MemoryFactory

from .conftest import verdict

pytestmark = pytest.mark.django_db

# Every clause of R1-R6 as the paper states them (App. D.3.1, "REVIEW RULES"), each
# named here by an id and by the words that must carry it in one line of the rule's
# section of the guideline. The paper's own sentences are not copied: the words are the
# clause's content (what is flagged, what is acceptable).
PAPER_CLAUSES = {
    "R1": {
        "advantage_over_each_distractor": ("keyed", "each distractor", "advantage"),
        "key_not_assumed": ("do not assume", "key"),
        "better_supported_distractor": ("better supported", "best_option", "flag the key"),
        "equally_defensible": ("equally defensible", "multiple_best"),
        "none_suitable": ("no_acceptable",),
        "missing_or_conflicting_evidence": ("insufficient_evidence", "missing", "conflicting"),
        "plausible_distractors_desirable": ("plausible distractors", "desirable", "compatible"),
    },
    "R2": {
        "same_behaviour_reworded": ("same behaviour", "motivation", "stance", "rewording"),
        "shared_surface_action_acceptable": (
            "shared surface action",
            "acceptable",
            "motivation",
            "conditions",
            "boundaries",
            "stance",
        ),
        "differences_grounded": ("ground", "option wording", "character information"),
    },
    "R3": {
        "unrelated_contradicting_impossible": (
            "unrelated",
            "contradict",
            "scenario facts",
            "impossible",
            "trivially eliminable",
        ),
        "refusal_avoidance_valid": (
            "refusal",
            "avoidance",
            "emotional reaction",
            "non-optimal",
            "feasible",
            "consistent",
        ),
        "weaker_fit_not_a_defect": ("weaker fit", "not itself a defect"),
    },
    "R4": {
        "whole_profile_and_narratives": ("whole profile", "narrative evidence"),
        "unsupported_inference": (
            "invented decisive fact",
            "unsupported claim",
            "stereotype",
            "single trait",
        ),
        "future_actions": ("future actions", "need not", "memories"),
        "no_gold_memory_set": ("gold memory set", "every clause"),
        "absence_not_a_flaw": ("absence", "matching memory", "not evidence"),
        "generated_cues_against_narrative": ("generated psychological", "narrative"),
    },
    "R5": {
        "ambiguity": ("ambiguity", "contradictory clauses", "unclear referents", "underspecified"),
        "same_decision_context": ("same decision context",),
        "minor_language_ignored": ("ignore minor language", "interpretation", "answer selection"),
    },
    "R6": {
        "model_facing_cues": (
            "model-facing",
            "source labels",
            "leaked answer",
            "character identifiers",
            "formatting artefacts",
            "asymmetric",
        ),
        "construction_metadata_not_a_cue": ("key", "construction metadata", "not"),
        "length_alone": ("length differences alone",),
        "tone_and_pragmatics_legitimate": (
            "tone",
            "pragmatic expression",
            "legitimate signals",
            "profile",
        ),
    },
}


@pytest.fixture
def item(references):
    return item_assembly.mcq_item_assemble(reference_id=references["CHAR_01"].pk, selector=False)


def screened_request(item, judge):
    judge.enqueue(json_reply(verdict(item)))
    item_screening.mcq_screening_run(item_id=item.pk)
    (request,) = judge.requests
    return request


def item_data(request) -> dict:
    user = [text for role, text in request.turns() if role == "user"][-1]
    match = re.search(r"<item_data>\n(.*)\n</item_data>", user, re.DOTALL)
    return json.loads(match.group(1))


def rule_sections(system: str) -> dict[str, list[str]]:
    """The guideline's lines per rule: from a line opening with "R<n> " to the next."""
    sections, current = {}, None
    for line in system.splitlines():
        heading = re.match(r"(R[1-6]) ", line)
        if heading:
            current = heading.group(1)
            sections[current] = []
        elif current and line.startswith("- "):
            sections[current].append(line.casefold())
        elif current and line.strip() and not line.startswith("- "):
            current = None
    return sections


def test_the_guideline_the_judge_receives_carries_every_clause_of_r1_to_r6(item, judge):
    # The data the guideline is built from names exactly the paper's clauses.
    assert {
        rule.rule_id: [c.clause_id for c in rule.clauses] for rule in mcq_screening.REVIEW_RULES
    } == {rule: list(clauses) for rule, clauses in PAPER_CLAUSES.items()}
    sections = rule_sections(screened_request(item, judge).system)
    assert sorted(sections) == ["R1", "R2", "R3", "R4", "R5", "R6"]
    missing = [
        f"{rule} {clause_id}"
        for rule, clauses in PAPER_CLAUSES.items()
        for clause_id, words in clauses.items()
        if not any(all(w in line for w in words) for line in sections[rule])
    ]
    assert missing == []


def memories_for(item, narratives):
    memories = [
        MemoryFactory(character=item.character, content_full=text, event_age=8)
        for text in narratives
    ]
    ActivationSet.objects.create(
        character=item.character,
        scenario=item.scenario,
        step=ActivationSet.Step.REFINEMENT,
        origin="release",
        scenario_age=item.scenario.age,
        memory_ids=[m.memory_id for m in memories],
    )
    return memories


def approx_tokens(text: str) -> int:
    """The documented count, written apart: one token per CJK character, one per four
    other characters (rounded up)."""
    cjk = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf")
    return cjk + math.ceil((len(text) - cjk) / 4)


def sentence(word: str, n: int) -> str:
    return " ".join(f"{word}{i}" for i in range(n)) + "."


def test_the_materials_carry_the_memories_narratives(item, judge):
    narratives = [
        "When I was eight I kept the bean sprouts alive over the holidays " + sentence("sprout", 5),
        "My grandmother let me choose between the fair and her garden " + sentence("garden", 5),
    ]
    memories = memories_for(item, narratives)
    data = item_data(screened_request(item, judge))
    by_id = {m["memory_id"]: m for m in data["supporting_memories"]}
    assert [m["memory_id"] for m in data["supporting_memories"]] == [m.memory_id for m in memories]
    for memory, narrative in zip(memories, narratives, strict=True):
        entry = by_id[memory.memory_id]
        assert entry["content_full"] == narrative
        assert entry["content_full_truncated"] is False
        # The annotations stay next to the narrative.
        assert entry["summary"] == memory.content_summary
        assert entry["behavior_policy"] == memory.behavior_policy
    budget = data["memory_narrative_budget"]
    assert budget["truncated_memory_ids"] == []
    assert budget["narrative_tokens"] == sum(approx_tokens(t) for t in narratives)


def test_a_budget_overrun_shortens_the_longest_narratives_and_says_so(item, judge, settings):
    short = "I watered the plants alone."  # 7 tokens
    long_a = sentence("alpha", 40)  # 310 characters: 78 tokens
    long_b = sentence("beta", 40)  # 270 characters: 68 tokens
    assert [approx_tokens(t) for t in (short, long_a, long_b)] == [7, 78, 68]
    settings.HEARTBENCH_SCREENING_MEMORY_TOKEN_BUDGET = 57
    memories = memories_for(item, [short, long_a, long_b])
    data = item_data(screened_request(item, judge))
    entries = {m["memory_id"]: m for m in data["supporting_memories"]}
    kept, cut_a, cut_b = (entries[m.memory_id] for m in memories)
    # Water-filling: the short narrative fits whole; the two long ones share the rest
    # equally, (57 - 7) / 2 = 25 tokens each, cut at a word boundary and marked.
    assert kept["content_full"] == short and kept["content_full_truncated"] is False
    for entry, full in ((cut_a, long_a), (cut_b, long_b)):
        marker = mcq_screening.TRUNCATION_MARKER
        assert entry["content_full_truncated"] is True and entry["content_full"].endswith(marker)
        shown = entry["content_full"].removesuffix(marker)
        # Cut at a word boundary, as late as the share allows.
        assert full.startswith(shown) and full[len(shown)] == " "
        next_word = full[len(shown) + 1 :].split(" ")[0]
        assert approx_tokens(shown) <= 25 < approx_tokens(f"{shown} {next_word}")
        assert entry["content_full_tokens"] == approx_tokens(full)
    shown = [
        e["content_full"].removesuffix(mcq_screening.TRUNCATION_MARKER) for e in entries.values()
    ]
    assert sum(approx_tokens(text) for text in shown) <= 57
    budget = data["memory_narrative_budget"]
    assert budget["token_budget"] == 57
    assert budget["truncated_memory_ids"] == [memories[1].memory_id, memories[2].memory_id]
    assert "shortened" in budget["note"]
    # Deterministic: the same item gives the same materials byte for byte.
    assert mcq_screening.build_prompt(item_screening.screening_materials(item)) == (
        mcq_screening.build_prompt(item_screening.screening_materials(item))
    )


def test_token_counting_is_the_documented_approximation():
    assert mcq_screening.approx_tokens("") == 0
    assert mcq_screening.approx_tokens("abcde") == 2
    assert mcq_screening.approx_tokens("选择面对压力") == 6
    text = "I chose 选择 the quiet path."
    assert mcq_screening.approx_tokens(text) == approx_tokens(text)
