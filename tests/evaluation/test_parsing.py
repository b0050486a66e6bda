"""App. L.1 parsing, with no database: every path a reply can take."""

import json

import pytest

from evaluation.parsing import INVALID, JSON, RAW_TEXT, REFUSAL, normalize_choice, parse_response

RATIONALE = {
    "system_1_impulse": {"thought": "I pick D", "emotion": "calm", "citation": "MEM_CHAR_01_0001"},
    "system_2_rational": {"analysis": "Option D fits", "plan": "do D"},
    "inner_consciousness": "D is me",
    "final_decision": "I choose option D.",
}


def test_valid_json_reads_decision_choice_and_keeps_the_rationale():
    answer = parse_response(json.dumps({**RATIONALE, "decision_choice": "b"}))
    assert (answer.choice, answer.path) == ("B", JSON)
    assert answer.parsed["final_decision"] == "I choose option D."


@pytest.mark.parametrize(
    "value, expected",
    [
        ("A", "A"),
        ("c", "C"),
        ("(B)", "B"),
        ("Option D", "D"),
        ("C. I stay", "C"),
        (" a ", "A"),
        ("E", None),
        ("AB", None),
        ("", None),
        (3, None),
        ("Both", None),
        ("none", None),
    ],
)
def test_normalization_to_a_single_letter(value, expected):
    assert normalize_choice(value) == expected


def test_fenced_json_is_json():
    answer = parse_response("```json\n" + json.dumps({"decision_choice": "C"}) + "\n```")
    assert (answer.choice, answer.path) == ("C", JSON)


def test_broken_json_recovers_an_explicitly_named_choice():
    text = '{"inner_consciousness": "I would choose A, really", "decision_choice": "D", "final'
    answer = parse_response(text)
    assert (answer.choice, answer.path) == ("D", RAW_TEXT)


def test_prose_naming_decision_choice_is_recovered():
    assert parse_response("My decision_choice: B because...").choice == "B"


def test_prose_without_the_field_is_invalid_even_when_it_names_an_option():
    answer = parse_response("I would definitely go with option A. final_decision: A")
    assert (answer.choice, answer.path) == (None, INVALID)


def test_json_without_a_valid_choice_never_falls_back_to_the_rationale():
    answer = parse_response(json.dumps({**RATIONALE, "decision_choice": "Z"}))
    assert (answer.choice, answer.path) == (None, INVALID)
    assert parse_response(json.dumps(RATIONALE)).choice is None


def test_two_different_named_choices_are_invalid():
    assert parse_response('decision_choice: "A" ... decision_choice: "C"').path == INVALID


def test_refusal_is_incorrect_whatever_the_text():
    answer = parse_response('{"decision_choice": "A"}', refused=True)
    assert (answer.choice, answer.path) == (None, REFUSAL)
