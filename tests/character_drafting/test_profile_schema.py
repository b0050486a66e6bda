"""The drafted profile's schema and the checks beyond it (pure: no database)."""

import copy

from annotation.character_drafting import design
from annotation.character_drafting.profile_schema import PROFILE_SCHEMA, check_profile
from llm import SchemaValidator

N_HIGH = design.table4_plan()[0]
NEUTRAL = design.table4_plan()[10]

VALID = {
    "char_key": "CHAR_01",
    "name": "High-Neuroticism worrier",
    "occupation": "hospital pharmacist",
    "big_five": {"O": 0.55, "C": 0.6, "E": 0.4, "A": 0.55, "N": 0.95},
    "big_five_str": "O=0.55, C=0.60, E=0.40, A=0.55, N=0.95",
    "description": "A careful pharmacist who expects trouble. She checks everything twice.",
    "self_value_logic": "If I foresee every failure, nothing can catch me off guard.",
    "core_patterns": [f"pattern {i}: checks habit number {i} twice" for i in range(1, 9)],
}


def changed(**fields):
    profile = copy.deepcopy(VALID)
    profile.update(fields)
    return profile


def test_a_valid_profile_passes_the_schema_and_the_checks():
    assert SchemaValidator(PROFILE_SCHEMA).errors(VALID) == []
    check = check_profile(VALID, N_HIGH)
    assert check.ok and check.warnings == []
    assert check.values["neuroticism"] == 0.95 and check.values["construction_label"].startswith(
        "High"
    )


def test_the_schema_wants_every_field_and_exactly_eight_patterns():
    validator = SchemaValidator(PROFILE_SCHEMA)
    assert validator.errors(changed(core_patterns=VALID["core_patterns"][:7]))
    missing = copy.deepcopy(VALID)
    del missing["self_value_logic"]
    assert any("self_value_logic" in e for e in validator.errors(missing))
    assert validator.errors(changed(big_five={**VALID["big_five"], "N": 1.2}))


def test_a_wrong_anchor_score_and_a_wrong_key_are_problems():
    check = check_profile(
        changed(char_key="CHAR_02", big_five={**VALID["big_five"], "N": 0.8}), N_HIGH
    )
    assert any("char_key must be CHAR_01" in p for p in check.problems)
    assert any("big_five.N must be exactly 0.95" in p for p in check.problems)


def test_a_second_extreme_is_a_problem_and_a_score_outside_the_range_a_warning():
    second = check_profile(
        changed(
            big_five={**VALID["big_five"], "E": 0.92},
            big_five_str="O=0.55, C=0.60, E=0.92, A=0.55, N=0.95",
        ),
        N_HIGH,
    )
    assert any("second extreme" in p for p in second.problems)
    outside = check_profile(
        changed(
            big_five={**VALID["big_five"], "E": 0.25},
            big_five_str="O=0.55, C=0.60, E=0.25, A=0.55, N=0.95",
        ),
        N_HIGH,
    )
    assert outside.ok and any("outside the suggested 0.30-0.70" in w for w in outside.warnings)


def test_patterns_must_be_distinct_and_say_something():
    patterns = list(VALID["core_patterns"])
    patterns[3] = "pattern 4: checks habit number 1 twice"
    patterns[6] = "pattern 7:   "
    check = check_profile(changed(core_patterns=patterns), N_HIGH)
    assert any("core_patterns 1, 4 repeat" in p for p in check.problems)
    assert any("core_patterns 7 say nothing" in p for p in check.problems)


def test_big_five_str_must_agree_with_the_scores():
    check = check_profile(changed(big_five_str="O=0.55, C=0.60, E=0.40, A=0.55, N=0.90"), N_HIGH)
    assert any("big_five_str" in p and "N" in p for p in check.problems)


def test_the_neutral_vector_is_the_designs_whatever_the_model_returns():
    returned = changed(
        char_key="CHAR_11", big_five={"O": 0.7, "C": 0.5, "E": 0.5, "A": 0.5, "N": 0.5}
    )
    check = check_profile(returned, NEUTRAL)
    assert check.ok
    assert [
        check.values[f]
        for f in ("openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism")
    ] == [0.5] * 5
    assert any("the design fixes" in w for w in check.warnings)


def test_description_and_self_value_logic_lengths_are_warnings():
    check = check_profile(
        changed(description="One sentence only.", self_value_logic="First. Second."), N_HIGH
    )
    assert check.ok
    assert any("description has 1 sentences" in w for w in check.warnings)
    assert any("self-value logic has more than one sentence" in w for w in check.warnings)
