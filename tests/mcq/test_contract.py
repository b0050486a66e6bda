"""The D.3.1 contract's consistency rules on their own (pure core, no database)."""

from adjudication.mcq.screening import contract_problems, expected_needs_review


class Item:
    question_id = "Q_CHAR_01_SCN_1"
    version = 2
    correct_answer = "B"


def out(**changes):
    from tests.mcq.conftest import verdict

    o = verdict(Item(), **changes)
    return o


def problems(o, key="B"):
    text = "Your teacher trusted you with the class plants."
    return contract_problems(o, item_id="Q_CHAR_01_SCN_1", item_version=2, key=key, input_text=text)


def test_a_clean_pass_has_no_problems():
    assert problems(out()) == []


def test_multiple_best_needs_two_distinct_tied_options():
    o = out(status="multiple_best", checks={"R1": "flag"})
    o["selection"]["tied_options"] = ["A"]
    assert "multiple_best needs at least two distinct tied_options." in problems(o)


def test_best_option_is_null_unless_unique_best():
    o = out(status="no_acceptable", checks={"R1": "flag"})
    o["selection"]["best_option"] = "A"
    assert "best_option must be null when the status is no_acceptable." in problems(o)


def test_an_invented_excerpt_is_refused():
    o = out()
    o["option_assessments"][0]["evidence_anchors"][0]["excerpt"] = "loves dogs"
    assert problems(o) == ["option_assessments[0]: the excerpt 'loves dogs' is not in the input."]


def test_item_id_and_version_must_be_copied():
    o = out()
    o["item_version"] = 1
    assert problems(o) == ["item_version is 1; the input's is 2."]


def test_duplicate_rule_ids_are_refused():
    o = out()
    o["checks"][5]["rule_id"] = "R5"
    assert any("R1-R6 once each" in p for p in problems(o))


def test_needs_review_rule():
    assert not expected_needs_review(out(), "B")
    assert expected_needs_review(out(), "C")  # best_option B differs from the key C
    assert expected_needs_review(out(checks={"R4": "uncertain"}), "B")
