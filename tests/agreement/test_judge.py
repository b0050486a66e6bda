"""LLM-judge validation (seed 002 §4.5) against textbook formulas computed in the test."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agreement
from agreement import AgreementInputError, UndefinedStatisticError


def pearson_by_formula(x, y):
    dx, dy = x - x.mean(), y - y.mean()
    return (dx * dy).sum() / np.sqrt((dx * dx).sum() * (dy * dy).sum())


def average_ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for position in range(i, j + 1):
            ranks[order[position]] = (i + j) / 2 + 1
        i = j + 1
    return np.array(ranks)


def kendall_tau_b_by_pairs(x, y):
    concordant = discordant = ties_x = ties_y = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        sx, sy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        if sx == 0 and sy == 0:
            continue
        if sx == 0:
            ties_x += 1
        elif sy == 0:
            ties_y += 1
        elif sx == sy:
            concordant += 1
        else:
            discordant += 1
    return (concordant - discordant) / np.sqrt(
        (concordant + discordant + ties_x) * (concordant + discordant + ties_y)
    )


@settings(max_examples=40, deadline=None)
@given(st.integers(5, 100), st.integers(0, 2**32 - 1))
def test_correlations_and_calibration_match_textbook_formulas(n, seed):
    rng = np.random.default_rng(seed)
    human = rng.integers(1, 11, n).astype(float)  # 1–10 Likert, many ties
    judge = np.clip(np.round(0.7 * human + 3 + rng.normal(0, 1.5, n)), 1, 10)
    judge[:2], human[:2] = [1, 10], [2, 9]  # neither side constant
    result = agreement.judge_human_agreement(judge, human)
    assert result.pearson_r == pytest.approx(pearson_by_formula(judge, human), abs=1e-10)
    spearman = pearson_by_formula(average_ranks(list(judge)), average_ranks(list(human)))
    assert result.spearman_rho == pytest.approx(spearman, abs=1e-10)
    assert result.kendall_tau == pytest.approx(kendall_tau_b_by_pairs(judge, human), abs=1e-10)
    slope, intercept = np.polyfit(judge, human, 1)
    assert (result.slope, result.intercept) == pytest.approx((slope, intercept), abs=1e-9)
    np.testing.assert_allclose(result.calibrate(judge), intercept + slope * judge, atol=1e-9)
    assert (result.judge_mean, result.human_mean) == pytest.approx((judge.mean(), human.mean()))
    assert 0 <= result.pearson_p <= 1 and 0 <= result.kendall_p <= 1


def test_calibration_maps_a_biased_judge_back_onto_the_human_scale():
    human = np.array([4, 6, 7, 8, 9, 5, 6, 7], dtype=float)
    judge = human * 0.5 + 4.5  # a judge that compresses and inflates, as in seed 002 Table 14
    result = agreement.judge_human_agreement(judge, human)
    assert result.pearson_r == pytest.approx(1.0)
    np.testing.assert_allclose(result.calibrate(judge), human)


@pytest.mark.parametrize(
    ("judge", "human", "error", "message"),
    [
        ([1, 2, 3], [1, 2], AgreementInputError, "judge_scores has 3 scores and human_scores 2"),
        ([1, 2], [1, 2], AgreementInputError, "at least 3 instances"),
        ([1, 2, np.nan], [1, 2, 3], AgreementInputError, "missing or infinite score at 2"),
        ([5, 5, 5, 5], [1, 2, 3, 4], UndefinedStatisticError, "every judge score is 5"),
        ([1, 2, 3, 4], [7, 7, 7, 7], UndefinedStatisticError, "every human score is 7"),
    ],
)
def test_judge_input_errors(judge, human, error, message):
    with pytest.raises(error, match=message):
        agreement.judge_human_agreement(judge, human)
