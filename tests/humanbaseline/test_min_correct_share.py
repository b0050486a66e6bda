"""App. J's "at least three of the four annotators" is a share (three quarters of the
annotators who answered), not an absolute three: a study with five or eight participants
keeps the paper's bar."""

import math

import numpy as np
import pytest

from humanbaseline import report as baseline_report
from humanbaseline.report import build_report


def three_quarters(n_annotators: int) -> int:
    """App. J's bar worked out here, not read from the code under test."""
    return math.ceil(0.75 * n_annotators)


def _report(answers, keys):
    n = len(keys)
    return build_report(
        answers=answers,
        keys=keys,
        sources=["gemini"] * n,
        annotators=[f"a{j}" for j in range(len(answers[0]))],
        model_predictions={},
        seed=20261012,
        n_boot=0,
        n_permutations=0,
        target_counts={"gemini": n},
    )


def _answers(n_correct_per_item, n_annotators):
    """Item i: the first ``n_correct_per_item[i]`` annotators choose the key A, the rest B."""
    return [["A"] * k + ["B"] * (n_annotators - k) for k in n_correct_per_item], ["A"] * len(
        n_correct_per_item
    )


@pytest.mark.parametrize(
    ("n_annotators", "expected"), [(2, 2), (3, 3), (4, 3), (5, 4), (6, 5), (8, 6), (12, 9)]
)
def test_the_bar_is_three_quarters_of_the_annotators_rounded_up(n_annotators, expected):
    """seed 000 App. J: "at least three of the four" is 75% of the annotators."""
    assert baseline_report.min_correct_for(n_annotators) == expected == three_quarters(n_annotators)
    assert expected / n_annotators >= 0.75 > (expected - 1) / n_annotators


@pytest.mark.parametrize("n_annotators", [5, 8])
def test_three_correct_of_more_than_four_annotators_do_not_meet_the_bar(n_annotators):
    """seed 000 App. J: with five (or eight) annotators, an item three of them answered
    correctly is below three quarters; an absolute three would count it."""
    counts = [3, 3, n_annotators - 1, n_annotators, 0, three_quarters(n_annotators)]
    answers, keys = _answers(counts, n_annotators)

    result = _report(answers, keys)

    correct = np.array(answers) == np.array(keys)[:, None]
    independent = float((correct.mean(axis=1) >= 0.75).mean())
    assert result["share_correct_by_min"] == pytest.approx(independent) == pytest.approx(3 / 6)
    assert result["min_correct"] == three_quarters(n_annotators) > 3


def test_four_annotators_keep_the_papers_three():
    """seed 000 App. J: with the paper's four annotators the bar is three, as printed."""
    answers, keys = _answers([3, 2, 4, 1], 4)
    result = _report(answers, keys)
    assert result["min_correct"] == 3
    assert result["share_correct_by_min"] == pytest.approx(0.5)
