"""The distractor selector is told the two filters of seed 000 App. D.3 and their
thresholds, and the default thresholds bind on plausible bad distractors (near-copies of
the key, responses to another scenario) while keeping plausible ones
(benchmarks/mcq_filter_thresholds.py measures this on the release)."""

import pytest

from adjudication.mcq import assembly_rules as mcq_assembly
from adjudication.mcq.services import item_assembly
from llm.testing.replies import json_reply

from .conftest import KEY, PLAUSIBLE, judge_config

pytestmark = pytest.mark.django_db


def test_the_selector_prompt_over_http_names_both_filters_and_the_run_thresholds(
    references, fake_server
):
    """Seed 000 App. D.3: the selection "excludes responses that are either too similar to
    the reference or obviously irrelevant"; the selector is told both rules, with the
    thresholds the offered candidates were filtered at."""
    fake_server.enqueue(json_reply({"selected": ["D1", "D2", "D3"], "justification": "varied"}))
    params = mcq_assembly.AssemblyParams(similarity_max=0.72, relevance_min=0.004)
    item_assembly.mcq_item_assemble(
        reference_id=references["CHAR_01"].pk, params=params, selector=judge_config(fake_server)
    )

    (request,) = fake_server.requests
    system = request.system
    assert "Similarity filter" in system and "Relevance filter" in system
    assert "TF-IDF cosine similarity to the key is 0.72 or more" in system
    assert "to the scenario text is below 0.004" in system
    # The defaults' numbers are not stated for a run with its own.
    default = mcq_assembly.AssemblyParams()
    assert f" {default.similarity_max:g} or more" not in system


SCENARIO = (
    "Class plants or the amusement park. Your teacher asked you to water the class plants "
    "this weekend; Mom has bought tickets for the amusement park trip on Saturday. Decide "
    "what you do about the plants and the park trip."
)
# Rule-built bad distractors, as the benchmark plants them.
TRIMMED = "I stay home to water the class plants because I promised my teacher."
THINNED = " ".join(w for i, w in enumerate(KEY.split()) if i % 3 != 2)
# A response to another scenario (a late train): shares one everyday word ("mom").
ELSEWHERE = "I text Mom that the train is late and read my book on the platform until it comes."


def test_the_default_thresholds_reject_planted_bad_distractors_and_keep_plausible_ones():
    """Seed 000 App. D.3: a candidate "semantically too close to the reference option" and
    one "obviously off-scenario" are rejected. The defaults catch a trimmed and a thinned
    copy of the key and a response to another scenario, which the former defaults (0.75,
    0.01) let through, and keep the four plausible distractors."""
    texts = {"trimmed": TRIMMED, "thinned": THINNED, "elsewhere": ELSEWHERE, **PLAUSIBLE}
    candidates = [
        mcq_assembly.DistractorCandidate(n, name, text)
        for n, (name, text) in enumerate(texts.items())
    ]

    def outcome(params):
        scored = mcq_assembly.score_candidates(
            key=KEY, scenario=SCENARIO, candidates=candidates, params=params
        )
        return {s.character_key: s.rejected for s in scored}

    now = outcome(mcq_assembly.AssemblyParams())
    assert now["trimmed"] == now["thinned"] == mcq_assembly.REJECTED_TOO_SIMILAR
    assert now["elsewhere"] == mcq_assembly.REJECTED_OFF_SCENARIO
    assert all(now[key] is None for key in PLAUSIBLE), now
    before = outcome(mcq_assembly.AssemblyParams(similarity_max=0.75, relevance_min=0.01))
    assert [k for k, v in before.items() if v] != [k for k, v in now.items() if v]
