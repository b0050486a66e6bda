"""Fleiss' κ, Cohen's κ and pairwise agreement against published values and statsmodels/sklearn."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

import agreement
from agreement import AgreementInputError, UndefinedStatisticError

from .published import (
    FLEISS_1971_DIAGNOSES,
    FLEISS_1971_KAPPA,
    WIKIPEDIA_14_RATERS,
    WIKIPEDIA_14_RATERS_KAPPA,
    WIKIPEDIA_14_RATERS_P_I,
)

SETTINGS = settings(max_examples=40, deadline=None)


def noisy_ratings(rng, n_items, n_raters, n_categories, agree=0.6):
    truth = rng.integers(0, n_categories, n_items)
    noise = rng.integers(0, n_categories, (n_items, n_raters))
    return np.where(rng.random((n_items, n_raters)) < agree, truth[:, None], noise)


@st.composite
def rating_matrices(draw, min_items=2, max_items=40):
    n_items = draw(st.integers(min_items, max_items))
    n_raters = draw(st.integers(2, 6))
    n_categories = draw(st.integers(2, 5))
    seed = draw(st.integers(0, 2**32 - 1))
    ratings = noisy_ratings(np.random.default_rng(seed), n_items, n_raters, n_categories)
    # Guarantee two categories in use, so κ is defined.
    ratings[0, 0] = 0
    ratings[-1, -1] = 1
    return ratings, n_categories


# --- Fleiss' κ: published values and statsmodels -----------------------------------------------


def test_fleiss_1971_diagnoses_reproduces_the_published_kappa():
    result = agreement.fleiss_kappa(FLEISS_1971_DIAGNOSES - 1, n_categories=5)
    assert result.estimate == pytest.approx(FLEISS_1971_KAPPA, abs=5e-8)
    assert round(result.estimate, 3) == 0.430


def test_wikipedia_fourteen_raters_table_reproduces_kappa_and_item_agreement():
    assert agreement.fleiss_kappa_from_counts(WIKIPEDIA_14_RATERS) == pytest.approx(
        WIKIPEDIA_14_RATERS_KAPPA, abs=5e-4
    )
    n = 14
    p_i = ((WIKIPEDIA_14_RATERS**2).sum(axis=1) - n) / (n * (n - 1))
    np.testing.assert_allclose(p_i, WIKIPEDIA_14_RATERS_P_I, atol=5e-4)


@SETTINGS
@given(rating_matrices())
def test_fleiss_matches_statsmodels(case):
    ratings, n_categories = case
    table, _ = aggregate_raters(ratings, n_cat=n_categories)
    expected = sm_fleiss_kappa(table)
    assert agreement.fleiss_kappa(ratings, n_categories=n_categories).estimate == pytest.approx(
        expected, abs=1e-12
    )


@SETTINGS
@given(rating_matrices(), st.randoms(use_true_random=False))
def test_fleiss_is_invariant_to_relabeling_rater_order_and_item_order(case, random):
    ratings, n_categories = case
    base = agreement.fleiss_kappa(ratings, n_categories=n_categories).estimate
    relabel = np.array(random.sample(range(n_categories), n_categories))
    raters = random.sample(range(ratings.shape[1]), ratings.shape[1])
    items = random.sample(range(ratings.shape[0]), ratings.shape[0])
    moved = relabel[ratings][:, raters][items]
    assert agreement.fleiss_kappa(moved, n_categories=n_categories).estimate == pytest.approx(
        base, abs=1e-12
    )


@SETTINGS
@given(st.lists(st.integers(0, 3), min_size=2, max_size=30), st.integers(2, 6))
def test_fleiss_is_one_under_perfect_agreement(categories, n_raters):
    if len(set(categories)) < 2:
        categories = [0, 1, *categories]
    ratings = np.repeat(np.array(categories)[:, None], n_raters, axis=1)
    assert agreement.fleiss_kappa(ratings, n_categories=4).estimate == pytest.approx(1.0)


def test_fleiss_single_category_everywhere_is_an_error_not_nan():
    with pytest.raises(UndefinedStatisticError, match="every one of the 12 ratings is category 2"):
        agreement.fleiss_kappa(np.full((4, 3), 2), n_categories=4)


def test_fleiss_unused_categories_do_not_change_kappa():
    ratings = FLEISS_1971_DIAGNOSES - 1
    assert agreement.fleiss_kappa(ratings, n_categories=8).estimate == pytest.approx(
        agreement.fleiss_kappa(ratings, n_categories=5).estimate
    )


@pytest.mark.parametrize(
    ("ratings", "message"),
    [
        (np.zeros(5, dtype=int), "2-D array of shape"),
        (np.zeros((0, 3), dtype=int), "empty"),
        ([[0, 1], [2, 4]], r"at item 1, rater 1 is 4, outside the categories 0..3"),
        ([[0, 1], [-3, 1]], "outside the categories"),
        ([[0, 1], [None, 1]], r"1 missing value, the first at item 1, rater 0"),
        ([[0.0, 1.0], [np.nan, 1.0]], "missing value"),
        ([[0, 1], [agreement.MISSING, 1]], "missing value"),
        ([[0.5, 1.0], [1.0, 1.0]], "integer category codes"),
        ([["A", "B"], ["C", "D"]], "encode_categories"),
        ([[0], [1], [2]], "at least 2 raters"),
    ],
)
def test_fleiss_rejects_bad_ratings_with_a_message_naming_the_problem(ratings, message):
    with pytest.raises(AgreementInputError, match=message):
        agreement.fleiss_kappa(ratings, n_categories=4)


def test_count_table_with_unequal_raters_per_item_is_rejected():
    with pytest.raises(AgreementInputError, match="item 0 has 3, item 1 has 2"):
        agreement.fleiss_kappa_from_counts([[3, 0], [1, 1]])


def test_encode_categories_maps_letters_and_flags_unknown_labels():
    np.testing.assert_array_equal(
        agreement.encode_categories([["A", "C"], ["B", None]], "ABCD"), [[0, 2], [1, -1]]
    )
    with pytest.raises(AgreementInputError, match="'E' at"):
        agreement.encode_categories([["A", "E"]], "ABCD")


# --- Fleiss' κ bootstrap --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n_items", "n_raters", "n_categories"),
    [
        (150, 4, 4),  # App. J shape: many distinct count rows, the index sampler
        (673, 3, 3),  # adjudication shape: at most 10 distinct rows, the multinomial sampler
    ],
)
def test_fleiss_bootstrap_replicates_equal_a_statsmodels_loop_on_the_same_resamples(
    n_items, n_raters, n_categories
):
    ratings = noisy_ratings(np.random.default_rng(n_items), n_items, n_raters, n_categories)
    table = agreement.rating_counts(ratings, n_categories=n_categories)
    fast = agreement.fleiss_kappa_replicates(table, n_boot=300, seed=20261012)
    indices = agreement.bootstrap_unit_indices(table, 300, 20261012)
    slow = np.array([sm_fleiss_kappa(table[rows]) for rows in indices])
    np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-12)


def test_fleiss_bootstrap_ci_contains_estimate_and_is_reproducible():
    ratings = noisy_ratings(np.random.default_rng(3), 150, 4, 4)
    first = agreement.fleiss_kappa(ratings, n_categories=4, n_boot=2000, seed=20261012)
    again = agreement.fleiss_kappa(ratings, n_categories=4, n_boot=2000, seed=20261012)
    other = agreement.fleiss_kappa(ratings, n_categories=4, n_boot=2000, seed=1)
    assert first == again
    assert (first.ci_low, first.ci_high) != (other.ci_low, other.ci_high)
    assert first.ci_low < first.estimate < first.ci_high
    assert first.n_boot == 2000 and first.n_undefined == 0
    # Percentile interval of the replicates, as documented.
    reps = agreement.fleiss_kappa_replicates(
        agreement.rating_counts(ratings, n_categories=4), n_boot=2000, seed=20261012
    )
    assert (first.ci_low, first.ci_high) == tuple(np.quantile(reps, [0.025, 0.975]))


@SETTINGS
@given(rating_matrices(min_items=30, max_items=80), st.integers(0, 2**32 - 1))
def test_fleiss_bootstrap_ci_contains_the_point_estimate(case, seed):
    ratings, n_categories = case
    result = agreement.fleiss_kappa(ratings, n_categories=n_categories, n_boot=400, seed=seed)
    assert result.ci_low <= result.estimate <= result.ci_high


def test_fleiss_bootstrap_counts_undefined_resamples_instead_of_returning_nan():
    # Two items of one category and one item of another: some resamples hold one category only.
    ratings = np.array([[0, 0], [0, 0], [1, 1]])
    result = agreement.fleiss_kappa(ratings, n_categories=2, n_boot=500, seed=5)
    assert result.estimate == pytest.approx(1.0)
    assert 0 < result.n_undefined < 500
    assert result.ci_low == result.ci_high == pytest.approx(1.0)


def test_fleiss_without_resamples_has_no_interval_and_bootstrap_needs_a_seed():
    ratings = FLEISS_1971_DIAGNOSES - 1
    result = agreement.fleiss_kappa(ratings, n_categories=5)
    assert result.ci_low is None and result.n_boot == 0
    with pytest.raises(AgreementInputError, match="explicit seed"):
        agreement.fleiss_kappa(ratings, n_categories=5, n_boot=100)
    with pytest.raises(AgreementInputError, match="ci_level"):
        agreement.fleiss_kappa(ratings, n_categories=5, n_boot=100, seed=1, ci_level=95)


def test_a_generator_seed_is_advanced_so_successive_calls_differ():
    ratings = FLEISS_1971_DIAGNOSES - 1
    rng = np.random.default_rng(8)
    first = agreement.fleiss_kappa(ratings, n_categories=5, n_boot=300, seed=rng)
    second = agreement.fleiss_kappa(ratings, n_categories=5, n_boot=300, seed=rng)
    assert (first.ci_low, first.ci_high) != (second.ci_low, second.ci_high)
    replay = np.random.default_rng(8)
    assert agreement.fleiss_kappa(ratings, n_categories=5, n_boot=300, seed=replay) == first


# --- Cohen's κ --------------------------------------------------------------------------------


@SETTINGS
@given(
    st.integers(2, 60),
    st.integers(2, 5),
    st.sampled_from([None, "linear", "quadratic"]),
    st.integers(0, 2**32 - 1),
)
def test_cohen_matches_sklearn(n_items, n_categories, weights, seed):
    rng = np.random.default_rng(seed)
    pair = noisy_ratings(rng, n_items, 2, n_categories)
    pair[0] = [0, 1]
    # labels= makes sklearn weight by distance on the whole 0..K-1 scale, as the platform does,
    # rather than between the labels that happen to occur.
    labels = list(range(n_categories))
    expected = cohen_kappa_score(pair[:, 0], pair[:, 1], labels=labels, weights=weights)
    result = agreement.cohen_kappa(
        pair[:, 0], pair[:, 1], n_categories=n_categories, weights=weights
    )
    assert result.estimate == pytest.approx(expected, abs=1e-12)


def test_cohen_bootstrap_equals_an_sklearn_loop_on_the_same_resamples():
    pair = noisy_ratings(np.random.default_rng(4), 120, 2, 4)
    result = agreement.cohen_kappa(pair[:, 0], pair[:, 1], n_categories=4, n_boot=300, seed=9)
    indices = agreement.bootstrap_unit_indices(pair, 300, 9)
    loop = [cohen_kappa_score(pair[rows, 0], pair[rows, 1], labels=range(4)) for rows in indices]
    low, high = np.quantile(loop, [0.025, 0.975])
    assert (result.ci_low, result.ci_high) == pytest.approx((low, high), abs=1e-12)


def test_cohen_with_one_shared_category_is_undefined_and_with_one_constant_rater_is_zero():
    with pytest.raises(UndefinedStatisticError, match="same single category"):
        agreement.cohen_kappa([1, 1, 1], [1, 1, 1], n_categories=3)
    assert agreement.cohen_kappa([1, 1, 1, 1], [1, 0, 1, 2], n_categories=3).estimate == 0.0


def test_cohen_rejects_mismatched_raters_and_unknown_weights():
    with pytest.raises(AgreementInputError, match="rater_a has 3 ratings and rater_b has 2"):
        agreement.cohen_kappa([0, 1, 1], [0, 1], n_categories=2)
    with pytest.raises(AgreementInputError, match="weights must be one of"):
        agreement.cohen_kappa([0, 1], [0, 1], n_categories=2, weights="cubic")
    with pytest.raises(AgreementInputError, match="missing"):
        agreement.cohen_kappa([0, None], [0, 1], n_categories=2)


# --- pairwise agreement (App. K.2) ------------------------------------------------------------


def test_pairwise_agreement_matches_a_reference_loop_over_jointly_valid_items():
    rng = np.random.default_rng(11)
    answers = noisy_ratings(rng, 673, 5, 4).astype(object)
    answers[rng.random(answers.shape) < 0.02] = None  # invalid responses
    result = agreement.pairwise_agreement(answers, n_categories=4)
    for r in range(5):
        for s in range(5):
            both = [
                (a, b)
                for a, b in zip(answers[:, r], answers[:, s], strict=True)
                if None not in (a, b)
            ]
            assert result.jointly_valid[r, s] == len(both)
            assert result.agree[r, s] == sum(a == b for a, b in both)
            assert result.rate[r, s] == pytest.approx(sum(a == b for a, b in both) / len(both))
    upper = [result.rate[r, s] for r in range(5) for s in range(r + 1, 5)]
    assert result.mean_rate == pytest.approx(np.mean(upper))

    common = agreement.pairwise_agreement(answers, n_categories=4, common_items_only=True)
    complete = np.array([all(v is not None for v in row) for row in answers])
    assert common.n_items == complete.sum()
    assert (common.jointly_valid == complete.sum()).all()


def test_pairwise_agreement_with_a_pair_that_never_overlaps_is_an_error():
    with pytest.raises(UndefinedStatisticError, match="raters 0 and 1 have no item"):
        agreement.pairwise_agreement([[0, None], [None, 1]], n_categories=2)
