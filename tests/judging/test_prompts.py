"""The judge's prompt, its output contract and the demo judge that answers it."""

import random

import pytest
from jsonschema import Draft202012Validator

from adjudication.judging import prompts
from adjudication.judging.selectors import judge_materials
from annotation.comparison.models import COMPARISON_CRITERIA
from llm.demo.answers import DemoSettings, Prompt, kind_answer, prompt_kind
from llm.demo.judge import FIRST_SHARE_VARIABLE

from .helpers import judged_pairs


def test_the_orders_are_distinct_seeded_and_cover_all_six():
    orders = prompts.candidate_orders(seed=7, pair_id=3, candidate_ids=[9, 2, 5], count=6)
    assert len({tuple(o) for o in orders}) == 6
    assert all(sorted(o) == [2, 5, 9] for o in orders)
    assert orders == prompts.candidate_orders(seed=7, pair_id=3, candidate_ids=[5, 9, 2], count=6)
    assert (
        prompts.candidate_orders(seed=7, pair_id=3, candidate_ids=[9, 2, 5], count=2) == orders[:2]
    )
    others = [
        prompts.candidate_orders(seed=s, pair_id=3, candidate_ids=[2, 5, 9], count=1)
        for s in range(8)
    ]
    assert len({tuple(o[0]) for o in others}) > 1, "another seed, another first order"


def test_the_guideline_names_every_step_and_criterion():
    system = prompts.system_prompt()
    for _, label, question in COMPARISON_CRITERIA:
        assert label in system and question in system
    for phrase in ("Step 1", "Step 2", "Step 3", prompts.STYLE_REMINDER, "revision_guidance"):
        assert phrase in system


@pytest.mark.django_db
def test_the_judge_sees_what_the_annotator_sees_in_the_calls_order():
    (pair,), _ = judged_pairs(1)
    candidates = {c.pk: c for c in pair.candidates.all()}
    order = sorted(candidates, reverse=True)
    user = prompts.user_prompt(judge_materials(pair=pair, permutation=order))
    version = pair.profile_version
    for text in (version.description, version.self_value_logic, *version.core_patterns):
        assert text in user
    assert pair.scenario.context_text in user and pair.scenario.trigger_message in user
    positions = [user.index(f"## Candidate {letter}\n") for letter in "ABC"]
    assert positions == sorted(positions)
    for letter, pk, start in zip("ABC", order, positions, strict=True):
        block = user[start:].split("\n## ", 1)[0]
        assert candidates[pk].final_decision in block, letter
        assert candidates[pk].summary in block
    # Provenance never: no family or model name in what the judge reads.
    for c in candidates.values():
        assert c.model_name not in user
    assert "claude" not in user.lower() and "gemini" not in user.lower()


def _demo(user, model="fake-judge", first_share=None, monkeypatch=None):
    if first_share is not None:
        monkeypatch.setenv(FIRST_SHARE_VARIABLE, str(first_share))
    seed = f"{model}\x00{user}"
    prompt = Prompt(
        prompts.system_prompt(),
        user,
        prompts.VERDICT_SCHEMA,
        model,
        DemoSettings(),
        random.Random(seed),
    )
    return kind_answer(prompt)


@pytest.mark.django_db
def test_the_demo_judge_answers_a_valid_deterministic_verdict(monkeypatch):
    assert prompt_kind(prompts.VERDICT_SCHEMA) == "comparison_judgment"
    (pair,), _ = judged_pairs(1)
    ids = sorted(pair.candidates.values_list("pk", flat=True))
    validator = Draft202012Validator(prompts.VERDICT_SCHEMA)
    for order in prompts.candidate_orders(seed=1, pair_id=pair.pk, candidate_ids=ids, count=6):
        user = prompts.user_prompt(judge_materials(pair=pair, permutation=order))
        answer = _demo(user)
        assert not list(validator.iter_errors(answer))
        assert answer == _demo(user)
        assert answer["selected_letter"] in "ABC"
        assert (answer["rating"] == "partial") == bool(answer["revision_guidance"])
        # A judge that always takes the first candidate, when told to.
        assert _demo(user, first_share=1, monkeypatch=monkeypatch)["selected_letter"] == "A"
        monkeypatch.delenv(FIRST_SHARE_VARIABLE)
