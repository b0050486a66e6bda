"""The bootstrap engine: both exact samplers against plain loops, and against each other."""

import numpy as np
import pytest

import agreement
from agreement import AgreementInputError, resampling


def loop_sums(rows, key, n_boot, seed):
    indices = agreement.bootstrap_unit_indices(key, n_boot, seed)
    return np.array([rows[i].sum(axis=0) for i in indices], dtype=float)


@pytest.mark.parametrize(
    "case",
    [
        "integers, many distinct rows (bit-packed index path)",
        "floats (count-matrix index path)",
        "few distinct rows (multinomial path)",
        "wide integers needing several packed words",
    ],
)
def test_row_sums_equal_a_loop_over_the_same_resamples(case):
    rng = np.random.default_rng(len(case))
    if case.startswith("integers"):
        rows = rng.integers(0, 5, (150, 5))
    elif case.startswith("floats"):
        rows = rng.random((64, 3))
    elif case.startswith("few"):
        rows = rng.integers(0, 2, (673, 3))  # at most 8 distinct rows
    else:
        rows = rng.integers(0, 2**20, (97, 6))  # 27-bit sums per field: 3 fields a word at most
    n_boot = 2 * resampling._chunk_resamples(rows.shape[0]) + 7  # crosses chunk boundaries
    fast = agreement.resampled_row_sums(rows, n_boot, 42)
    slow = loop_sums(rows, rows, n_boot, 42)
    if rows.dtype.kind == "f":  # the same numbers added in another order
        np.testing.assert_allclose(fast, slow, rtol=1e-12)
    else:  # integer sums are exact, however they are packed
        np.testing.assert_array_equal(fast, slow)


def test_a_key_decides_the_resamples_and_must_describe_the_same_units():
    rng = np.random.default_rng(1)
    key = rng.integers(0, 3, (300, 2))
    rows = np.column_stack([key, key.sum(axis=1) ** 2])  # a function of the key
    fast = agreement.resampled_row_sums(rows, 500, 9, key=key)
    np.testing.assert_array_equal(fast, loop_sums(rows, key, 500, 9))
    with pytest.raises(AgreementInputError, match="key has 2 units and rows 300"):
        agreement.resampled_row_sums(rows, 5, 9, key=key[:2])


def test_the_two_samplers_are_the_same_bootstrap(monkeypatch):
    rng = np.random.default_rng(2)
    rows = rng.integers(0, 3, (600, 2))  # 9 distinct rows: the multinomial sampler by default
    multinomial = agreement.resampled_row_sums(rows, 20_000, 3)
    monkeypatch.setattr(resampling, "_MULTINOMIAL_CELL_COST", 10**9)  # force the index path
    indexed = agreement.resampled_row_sums(rows, 20_000, 3)
    assert not np.array_equal(multinomial, indexed)
    expected_mean = rows.sum(axis=0)
    expected_sd = np.sqrt(rows.shape[0]) * rows.std(axis=0)  # sd of a resampled sum
    for sums in (multinomial, indexed):
        np.testing.assert_allclose(sums.mean(axis=0), expected_mean, rtol=2e-3)
        np.testing.assert_allclose(sums.std(axis=0), expected_sd, rtol=0.03)


def test_same_seed_same_resamples_and_a_generator_advances():
    rows = np.arange(40).reshape(20, 2)
    assert np.array_equal(
        agreement.resampled_row_sums(rows, 50, 7), agreement.resampled_row_sums(rows, 50, 7)
    )
    rng = np.random.default_rng(7)
    first = agreement.resampled_row_sums(rows, 50, rng)
    second = agreement.resampled_row_sums(rows, 50, rng)
    assert not np.array_equal(first, second)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rows": np.ones((0, 2)), "n_boot": 5, "seed": 1}, "non-empty"),
        ({"rows": np.ones((3, 2)), "n_boot": 0, "seed": 1}, "n_boot must be an integer >= 1"),
        ({"rows": np.ones((3, 2)), "n_boot": 5, "seed": None}, "explicit seed"),
        ({"rows": np.ones((3, 2)), "n_boot": 5, "seed": -1}, "non-negative"),
        ({"rows": np.ones((3, 2)), "n_boot": 5, "seed": 1.5}, "int or numpy Generator"),
    ],
)
def test_engine_input_errors(kwargs, message):
    with pytest.raises(AgreementInputError, match=message):
        agreement.resampled_row_sums(**kwargs)
