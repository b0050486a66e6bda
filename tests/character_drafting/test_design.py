"""The drafting design (pure: no database): Table 4's anchors, the fixed neutral vector,
custom lines, and the brief each prompt carries."""

import pytest

from annotation.character_drafting import design
from annotation.character_drafting.design import DesignError, PlannedCharacter


def test_table4_has_one_high_and_one_low_anchor_per_trait_and_the_neutral_reference():
    plan = design.table4_plan()
    assert [p.char_key for p in plan] == [f"CHAR_{n:02d}" for n in range(1, 12)]
    anchors = [(p.anchor_trait, p.pole, p.required) for p in plan[:10]]
    for trait in "OCEAN":
        assert (trait, "high", {trait: 0.95}) in anchors
        assert (trait, "low", {trait: 0.10}) in anchors
    # The release's memory ids: CHAR_01 N high, CHAR_06 E low, CHAR_09 O high.
    assert plan[0].anchor == "N high" and plan[5].anchor == "E low" and plan[8].anchor == "O high"
    assert not any(p.vector_fixed for p in plan[:10])
    neutral = plan[10]
    assert neutral.char_key == "CHAR_11" and neutral.vector_fixed
    assert neutral.required == dict.fromkeys("OCEAN", 0.5)
    assert neutral.anchor == "neutral (all 0.50)"


def test_high_and_low_anchors_differ_by_085_and_each_by_at_least_040_from_neutral():
    assert design.HIGH_ANCHOR - design.LOW_ANCHOR == pytest.approx(0.85)
    assert design.HIGH_ANCHOR - design.NEUTRAL_SCORE >= 0.40
    assert design.NEUTRAL_SCORE - design.LOW_ANCHOR >= 0.40


def test_custom_lines_give_anchors_the_neutral_reference_and_fixed_vectors():
    plan = design.parse_custom_design(
        "CHAR_12: E low\n\nchar_13: neutral\nCHAR_14: O=0.95 C=0.40 E=0.55 A=0.60 N=0.35\n"
    )
    assert [(p.char_key, p.anchor) for p in plan] == [
        ("CHAR_12", "E low"),
        ("CHAR_13", "neutral (all 0.50)"),
        ("CHAR_14", "O high"),
    ]
    assert plan[0].required == {"E": 0.10} and not plan[0].vector_fixed
    assert plan[2].vector_fixed and plan[2].required["C"] == 0.40


def test_custom_problems_are_all_named_with_their_line():
    with pytest.raises(DesignError) as caught:
        design.parse_custom_design(
            "CHAR_12: X high\nCHAR12: E low\nCHAR_14: O=0.95 C=0.95 E=0.5 A=0.5 N=0.5\n"
            "CHAR_15: E low\nCHAR_15: N high"
        )
    message = str(caught.value)
    assert "Line 1" in message and "Line 2" in message and "not a character key" in message
    assert "Line 3" in message and "exactly one extreme" in message
    assert "CHAR_15 appear more than once" in message


def test_the_brief_names_the_key_and_required_scores_and_what_is_free():
    brief = design.design_brief(design.table4_plan()[5])
    assert "Character key: CHAR_06" in brief
    assert "Required scores: E=0.10" in brief
    assert "Extraversion (E), low pole" in brief and "O, C, A, N" in brief and "0.30" in brief
    neutral = design.design_brief(design.table4_plan()[10])
    assert "O=0.50, C=0.50, E=0.50, A=0.50, N=0.50" in neutral and "not yours to choose" in neutral


def test_a_planned_character_round_trips_through_json():
    for planned in design.table4_plan():
        assert PlannedCharacter.from_dict(planned.as_dict()) == planned
