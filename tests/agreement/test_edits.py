"""Word-level edit rate (App. D.2) against hand-worked examples and a plain recursive reference."""

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agreement
from agreement import AgreementInputError, UndefinedStatisticError


def reference_edit_distance(source, target):
    @functools.cache
    def distance(i, j):
        if i == 0 or j == 0:
            return i + j
        return min(
            distance(i - 1, j) + 1,
            distance(i, j - 1) + 1,
            distance(i - 1, j - 1) + (source[i - 1] != target[j - 1]),
        )

    return distance(len(source), len(target))


def test_hand_worked_example_counts_each_kind_of_edit():
    candidate = "I choose to go home now."
    adjudicated = "I choose to walk home quickly now, alone."
    edits = agreement.word_edit_rate(candidate, adjudicated)
    # go → walk (replaced); quickly, alone (added); 6 candidate words.
    assert (edits.added, edits.deleted, edits.replaced, edits.candidate_words) == (2, 0, 1, 6)
    assert edits.rate == pytest.approx(3 / 6)


def test_deletions_and_an_unchanged_candidate():
    edits = agreement.word_edit_rate(
        "I stand up, smile, and say: let's go.", "I stand up and say go."
    )
    assert (edits.added, edits.deleted, edits.replaced) == (0, 2, 0)
    assert agreement.word_edit_rate("Same words.", "same   words").rate == 0.0


def test_chinese_counts_characters_as_words():
    assert agreement.words("选择逃避压力，我说：“好。”") == list("选择逃避压力我说好")
    edits = agreement.word_edit_rate("选择逃避巨大压力", "选择面对压力")
    assert edits.candidate_words == 8
    assert edits.edits == reference_edit_distance("选择逃避巨大压力", "选择面对压力") == 4


def test_words_keep_contractions_and_hyphens_together():
    assert agreement.words("Don't re-check it—now!") == ["don't", "re-check", "it", "now"]


word_lists = st.lists(st.sampled_from(["i", "go", "home", "now", "say", "no", "yes"]), max_size=15)


@settings(max_examples=60, deadline=None)
@given(word_lists.filter(bool), word_lists)
def test_edit_counts_are_a_minimum_alignment(source, target):
    edits = agreement.word_edit_rate(" ".join(source), " ".join(target))
    assert edits.edits == reference_edit_distance(tuple(source), tuple(target))
    assert edits.added - edits.deleted == len(target) - len(source)
    assert edits.candidate_words == len(source)


def test_mean_rate_over_pairs_and_errors():
    pairs = [("a b c d", "a b c d"), ("a b", "a c")]
    assert agreement.mean_word_edit_rate(pairs) == pytest.approx((0 + 0.5) / 2)
    with pytest.raises(UndefinedStatisticError, match="candidate has no words"):
        agreement.word_edit_rate(" ... ", "something")
    with pytest.raises(AgreementInputError, match="no .* pairs"):
        agreement.mean_word_edit_rate([])
    with pytest.raises(AgreementInputError, match="expected text"):
        agreement.word_edit_rate(None, "x")
