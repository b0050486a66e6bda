"""Krippendorff's α against Krippendorff (2011)'s worked examples and a pairwise reference."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agreement
from agreement import AgreementInputError, UndefinedStatisticError

from .published import (
    KRIPPENDORFF_2011_A,
    KRIPPENDORFF_2011_A_ALPHA,
    KRIPPENDORFF_2011_C,
    KRIPPENDORFF_2011_C_ALPHA,
    WIKIPEDIA_ALPHA_EXAMPLE,
    WIKIPEDIA_ALPHA_INTERVAL,
    WIKIPEDIA_ALPHA_NOMINAL,
)

SETTINGS = settings(max_examples=40, deadline=None)


def reference_alpha(ratings, level):
    """α straight from its definition over pairs of values (Krippendorff 2011, eq. 1).

    Observed disagreement: every ordered pair of values within a unit, weighted 1/(m_u − 1);
    expected: every ordered pair of distinct pairable values pooled over units.
    """
    units = [[v for v in row if not math.isnan(v)] for row in np.asarray(ratings, dtype=float)]
    units = [u for u in units if len(u) >= 2]
    pooled = [v for u in units for v in u]
    n = len(pooled)
    frequency = {v: pooled.count(v) for v in set(pooled)}

    def delta(c, k):
        if level == "nominal":
            return float(c != k)
        if level == "interval":
            return (c - k) ** 2
        if level == "ratio":
            return ((c - k) / (c + k)) ** 2 if c + k else 0.0
        low, high = min(c, k), max(c, k)
        between = sum(f for v, f in frequency.items() if low <= v <= high)
        return (between - (frequency[c] + frequency[k]) / 2) ** 2

    observed = sum(
        delta(u[i], u[j]) / (len(u) - 1)
        for u in units
        for i, j in itertools.permutations(range(len(u)), 2)
    )
    expected = sum(delta(pooled[i], pooled[j]) for i, j in itertools.permutations(range(n), 2))
    return 1 - (n - 1) * observed / expected


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_krippendorff_2011_section_c_reproduces_the_published_alphas(level):
    ratings = KRIPPENDORFF_2011_C.T  # the paper puts observers in rows
    result = agreement.krippendorff_alpha(ratings, level=level, value_domain=range(1, 6))
    assert round(result.estimate, 3) == KRIPPENDORFF_2011_C_ALPHA[level]
    assert result.estimate == pytest.approx(reference_alpha(ratings, level), abs=1e-12)


def test_krippendorff_2011_section_a_binary_example():
    result = agreement.krippendorff_alpha(
        KRIPPENDORFF_2011_A.T, level="nominal", value_domain=[0, 1]
    )
    assert round(result.estimate, 3) == KRIPPENDORFF_2011_A_ALPHA


def test_wikipedia_example_with_many_missing_values():
    ratings = WIKIPEDIA_ALPHA_EXAMPLE.T
    nominal = agreement.krippendorff_alpha(ratings, level="nominal", value_domain=range(1, 5))
    interval = agreement.krippendorff_alpha(ratings, level="interval", value_domain=range(1, 5))
    assert round(nominal.estimate, 3) == WIKIPEDIA_ALPHA_NOMINAL
    assert round(interval.estimate, 3) == WIKIPEDIA_ALPHA_INTERVAL


def test_coincidence_matrix_of_the_2011_example_has_the_counted_marginals():
    # Counted by hand from the table: the pairable values are nine 1s, thirteen 2s, ten 3s,
    # five 4s and three 5s, n = 40 (unit 12 has a single value and is not pairable); the
    # paper's n_.. = 40.
    matrix = agreement.coincidence_matrix(KRIPPENDORFF_2011_C.T, value_domain=range(1, 6))
    np.testing.assert_allclose(matrix.sum(axis=1), [9, 13, 10, 5, 3])
    np.testing.assert_allclose(matrix, matrix.T)
    assert matrix.sum() == pytest.approx(40)


@st.composite
def diamonds_ratings(draw):
    """Two reviewers' 1–7 ratings of scenario × dimension units, some missing (App. C.2)."""
    n_units = draw(st.integers(3, 30))
    n_raters = draw(st.integers(2, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 8, n_units)
    ratings = np.clip(truth[:, None] + rng.integers(-1, 2, (n_units, n_raters)), 1, 7).astype(float)
    ratings[rng.random(ratings.shape) < 0.1] = np.nan
    ratings[0, :2] = [1, 7]  # at least two values in a pairable unit
    return ratings


@SETTINGS
@given(diamonds_ratings(), st.sampled_from(["nominal", "ordinal", "interval", "ratio"]))
def test_alpha_matches_the_pairwise_definition(ratings, level):
    result = agreement.krippendorff_alpha(ratings, level=level, value_domain=range(1, 8))
    assert result.estimate == pytest.approx(reference_alpha(ratings, level), abs=1e-10)


@SETTINGS
@given(diamonds_ratings(), st.randoms(use_true_random=False))
def test_alpha_is_invariant_to_rater_order_and_ordinal_alpha_to_monotone_recoding(ratings, rnd):
    raters = rnd.sample(range(ratings.shape[1]), ratings.shape[1])
    for level in ("nominal", "ordinal", "interval"):
        base = agreement.krippendorff_alpha(ratings, level=level, value_domain=range(1, 8))
        moved = agreement.krippendorff_alpha(
            ratings[:, raters], level=level, value_domain=range(1, 8)
        )
        assert moved.estimate == pytest.approx(base.estimate, abs=1e-12)
    # Ordinal α depends only on the order of the values: square them and it stays put.
    ordinal = agreement.krippendorff_alpha(ratings, level="ordinal", value_domain=range(1, 8))
    squared = agreement.krippendorff_alpha(
        ratings**2, level="ordinal", value_domain=[v * v for v in range(1, 8)]
    )
    assert squared.estimate == pytest.approx(ordinal.estimate, abs=1e-12)


def test_alpha_is_one_under_perfect_agreement():
    ratings = np.array([[1, 1], [4, 4], [7, 7], [2, 2]])
    for level in ("nominal", "ordinal", "interval"):
        result = agreement.krippendorff_alpha(ratings, level=level, value_domain=range(1, 8))
        assert result.estimate == pytest.approx(1.0)


def test_alpha_degenerate_inputs_raise_clear_errors():
    with pytest.raises(UndefinedStatisticError, match="every pairable rating is the value 4"):
        agreement.krippendorff_alpha(
            [[4, 4], [4, 4], [4, np.nan]], level="ordinal", value_domain=range(1, 8)
        )
    with pytest.raises(UndefinedStatisticError, match="no unit has ratings from at least two"):
        agreement.krippendorff_alpha(
            [[1, np.nan], [np.nan, 2]], level="nominal", value_domain=[1, 2]
        )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"ratings": [[1, 8]], "level": "ordinal"}, "unit 0, rater 1 is 8, outside the value"),
        ({"ratings": [[1, 2]], "level": "cardinal"}, "level must be one of"),
        ({"ratings": [1, 2], "level": "ordinal"}, "2-D array"),
        ({"ratings": [[1, "x"]], "level": "ordinal"}, "must be numbers"),
    ],
)
def test_alpha_input_errors(kwargs, message):
    with pytest.raises(AgreementInputError, match=message):
        agreement.krippendorff_alpha(**kwargs, value_domain=range(1, 8))


def test_missing_sentinel_is_missing_only_when_outside_the_domain():
    with_sentinel = [[1, agreement.MISSING], [2, 2], [3, 1], [1, 1]]
    with_nan = [[1, np.nan], [2, 2], [3, 1], [1, 1]]
    a = agreement.krippendorff_alpha(with_sentinel, level="nominal", value_domain=[1, 2, 3])
    b = agreement.krippendorff_alpha(with_nan, level="nominal", value_domain=[1, 2, 3])
    assert a.estimate == b.estimate


def test_alpha_bootstrap_equals_a_reference_loop_over_the_pairable_units():
    rng = np.random.default_rng(2)
    truth = rng.integers(1, 8, 64 * 8)
    ratings = np.clip(truth[:, None] + rng.integers(-1, 2, (truth.size, 2)), 1, 7).astype(float)
    ratings[:5, 1] = np.nan  # five units with a single rating: not pairable, not resampled
    result = agreement.krippendorff_alpha(
        ratings, level="ordinal", value_domain=range(1, 8), n_boot=200, seed=20261012
    )
    pairable = ratings[5:]
    counts = np.stack([(pairable == v).sum(axis=1) for v in range(1, 8)], axis=1)
    indices = agreement.bootstrap_unit_indices(counts, 200, 20261012)
    loop = [
        agreement.krippendorff_alpha(
            pairable[rows], level="ordinal", value_domain=range(1, 8)
        ).estimate
        for rows in indices
    ]
    assert (result.ci_low, result.ci_high) == pytest.approx(
        tuple(np.quantile(loop, [0.025, 0.975])), abs=1e-12
    )
    assert result.ci_low <= result.estimate <= result.ci_high
