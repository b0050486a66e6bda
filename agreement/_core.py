"""Shared plumbing: errors, seeds, input checks, resampling and percentile intervals.

The bootstrap engine itself is in :mod:`agreement.resampling`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Integral

import numpy as np

#: Code for "no rating" in an integer category matrix (an unanswered item, an invalid response).
MISSING = -1


class AgreementInputError(ValueError):
    """The input cannot be analysed as given; the message says what is wrong and where."""


class UndefinedStatisticError(ValueError):
    """The statistic has no value for this input (e.g. κ when every rating is one category)."""


@dataclass(frozen=True, slots=True)
class BootstrapEstimate:
    """A point estimate with an optional percentile bootstrap interval.

    ``ci_low``/``ci_high`` are ``None`` when ``n_boot`` is 0. ``n_undefined`` counts resamples
    on which the statistic had no value (e.g. a resample of items all rated one category); they
    are left out of the interval, and a report should say how many there were.
    """

    estimate: float
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    n_boot: int
    n_undefined: int = 0

    def contains(self, value: float) -> bool:
        if self.ci_low is None or self.ci_high is None:
            raise ValueError("this estimate has no interval (n_boot=0)")
        return self.ci_low <= value <= self.ci_high


# --- seeds and resampling ---------------------------------------------------------------------


def make_rng(seed: int | np.random.Generator | None) -> np.random.Generator:
    """A Generator from an explicit seed; a Generator is used as it is (and advanced)."""
    if seed is None:
        raise AgreementInputError(
            "a random procedure needs an explicit seed=...; the paper uses 20261012 for the "
            "human baseline and 20261008/20261010 for App. K.1 (agreement.constants)"
        )
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, Integral):
        raise AgreementInputError(f"seed must be an int or numpy Generator, got {seed!r}")
    if seed < 0:
        raise AgreementInputError(f"seed must be non-negative, got {seed}")
    return np.random.default_rng(int(seed))


def check_count(value: int, name: str, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
        raise AgreementInputError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_ci_level(ci_level: float) -> float:
    if not 0.0 < float(ci_level) < 1.0:
        raise AgreementInputError(f"ci_level must be strictly between 0 and 1, got {ci_level!r}")
    return float(ci_level)


def percentile_interval(replicates: np.ndarray, ci_level: float) -> tuple[float, float, int]:
    """Percentile interval of the finite replicates, and how many were undefined (NaN)."""
    replicates = np.asarray(replicates, dtype=np.float64)
    defined = replicates[np.isfinite(replicates)]
    n_undefined = int(replicates.size - defined.size)
    if defined.size == 0:
        raise UndefinedStatisticError(
            f"the statistic is undefined on all {replicates.size} bootstrap resamples"
        )
    tail = (1.0 - ci_level) / 2.0
    low, high = np.quantile(defined, [tail, 1.0 - tail])
    return float(low), float(high), n_undefined


def bootstrap_estimate(
    estimate: float, replicates: np.ndarray | None, ci_level: float
) -> BootstrapEstimate:
    if replicates is None:
        return BootstrapEstimate(float(estimate), None, None, ci_level, 0, 0)
    low, high, n_undefined = percentile_interval(replicates, ci_level)
    n_boot = int(len(replicates))
    return BootstrapEstimate(float(estimate), low, high, ci_level, n_boot, n_undefined)


def check_bootstrap_args(
    n_boot: int, seed: int | np.random.Generator | None, ci_level: float
) -> tuple[int, float]:
    n_boot = check_count(n_boot, "n_boot", minimum=0)
    ci_level = check_ci_level(ci_level)
    if n_boot > 0 and seed is None:
        make_rng(None)  # raises with the message naming the paper's seeds
    return n_boot, ci_level


# --- input checks -----------------------------------------------------------------------------


def _describe_position(position: tuple[int, ...], axes: Sequence[str]) -> str:
    return ", ".join(f"{axis} {index}" for axis, index in zip(axes, position, strict=True))


def as_category_matrix(
    ratings,
    *,
    n_categories: int,
    name: str = "ratings",
    axes: Sequence[str] = ("item", "rater"),
    allow_missing: bool,
    min_columns: int = 1,
) -> np.ndarray:
    """Integer codes ``0..n_categories-1`` (``MISSING`` for no rating) as an int64 matrix.

    Accepts integers, floats holding integers (``NaN`` = missing) and Python objects (``None``
    = missing). Anything else is an error naming the first offending cell.
    """
    n_categories = check_count(n_categories, "n_categories", minimum=1)
    matrix = np.asarray(ratings)
    if matrix.ndim != 2:
        raise AgreementInputError(
            f"{name} must be a 2-D array of shape (n_{axes[0]}s, n_{axes[1]}s); "
            f"got shape {matrix.shape}"
        )
    if matrix.shape[0] == 0 or matrix.shape[1] == 0:
        raise AgreementInputError(f"{name} is empty: shape {matrix.shape}")
    if matrix.shape[1] < min_columns:
        raise AgreementInputError(
            f"{name} needs at least {min_columns} {axes[1]}s (columns); got {matrix.shape[1]}"
        )
    codes = _to_codes(matrix, name=name, axes=axes)
    out_of_range = (codes != MISSING) & ((codes < 0) | (codes >= n_categories))
    if out_of_range.any():
        position = tuple(int(i) for i in np.argwhere(out_of_range)[0])
        raise AgreementInputError(
            f"{name} at {_describe_position(position, axes)} is {codes[position]}, outside "
            f"the categories 0..{n_categories - 1} (use {MISSING} or NaN for a missing rating)"
        )
    if not allow_missing:
        missing = codes == MISSING
        if missing.any():
            position = tuple(int(i) for i in np.argwhere(missing)[0])
            raise AgreementInputError(
                f"{name} has {int(missing.sum())} missing "
                f"value{'s' if missing.sum() > 1 else ''}, the first at "
                f"{_describe_position(position, axes)}; this statistic needs every "
                f"{axes[1]} to rate every {axes[0]}"
            )
    return codes


def _to_codes(matrix: np.ndarray, *, name: str, axes: Sequence[str]) -> np.ndarray:
    if matrix.dtype == object:
        flat = matrix.ravel()
        out = np.empty(flat.shape, dtype=np.int64)
        for index, value in enumerate(flat):
            if value is None or (isinstance(value, float) and np.isnan(value)):
                out[index] = MISSING
            elif isinstance(value, Integral) and not isinstance(value, bool):
                out[index] = int(value)
            elif isinstance(value, float) and value.is_integer():
                out[index] = int(value)
            else:
                position = np.unravel_index(index, matrix.shape)
                raise AgreementInputError(
                    f"{name} at {_describe_position(tuple(int(p) for p in position), axes)} is "
                    f"{value!r}; ratings must be integer category codes (map labels to codes "
                    f"with agreement.encode_categories)"
                )
        return out.reshape(matrix.shape)
    if matrix.dtype.kind == "b":
        return matrix.astype(np.int64)
    if matrix.dtype.kind in "iu":
        return matrix.astype(np.int64)
    if matrix.dtype.kind == "f":
        missing = np.isnan(matrix)
        fractional = ~missing & (np.floor(matrix) != matrix)
        if fractional.any() or np.isinf(matrix).any():
            bad = fractional | np.isinf(matrix)
            position = tuple(int(i) for i in np.argwhere(bad)[0])
            raise AgreementInputError(
                f"{name} at {_describe_position(position, axes)} is {matrix[position]!r}; "
                f"ratings must be integer category codes"
            )
        codes = np.where(missing, MISSING, matrix).astype(np.int64)
        return codes
    raise AgreementInputError(
        f"{name} has dtype {matrix.dtype}; ratings must be integer category codes (map labels "
        f"to codes with agreement.encode_categories)"
    )


def as_vector(values, *, name: str, length: int | None = None, dtype=np.float64) -> np.ndarray:
    vector = np.asarray(values, dtype=dtype)
    if vector.ndim != 1:
        raise AgreementInputError(f"{name} must be 1-D; got shape {vector.shape}")
    if vector.size == 0:
        raise AgreementInputError(f"{name} is empty")
    if length is not None and vector.size != length:
        raise AgreementInputError(f"{name} has {vector.size} entries; expected {length}")
    return vector


def as_correctness(
    values, *, name: str = "correct", n_items: int | None = None, ndim: tuple[int, ...] = (1, 2)
) -> np.ndarray:
    """Per-item correctness as float64 in [0, 1]: booleans, 0/1, or per-item averages."""
    array = np.asarray(values)
    if array.dtype == object:
        raise AgreementInputError(
            f"{name} contains non-numeric values (None?); score a missing answer as incorrect "
            f"(agreement.correctness does this) before computing accuracy"
        )
    array = array.astype(np.float64)
    if array.ndim not in ndim:
        shapes = " or ".join(f"{d}-D" for d in ndim)
        raise AgreementInputError(f"{name} must be {shapes}; got shape {array.shape}")
    if array.size == 0 or array.shape[0] == 0:
        raise AgreementInputError(f"{name} is empty: shape {array.shape}")
    if n_items is not None and array.shape[0] != n_items:
        raise AgreementInputError(
            f"{name} has {array.shape[0]} items (rows); expected {n_items}, one per item"
        )
    if np.isnan(array).any():
        position = tuple(int(i) for i in np.argwhere(np.isnan(array))[0])
        raise AgreementInputError(
            f"{name} is missing at {position}; score a missing answer as incorrect "
            f"(agreement.correctness does this) before computing accuracy"
        )
    if ((array < 0) | (array > 1)).any():
        position = tuple(int(i) for i in np.argwhere((array < 0) | (array > 1))[0])
        raise AgreementInputError(
            f"{name} at {position} is {array[position]}; correctness must lie in [0, 1]"
        )
    return array


def group_codes(labels, *, name: str, n_items: int) -> tuple[tuple, np.ndarray]:
    """Distinct labels (in order of first appearance) and each item's index into them."""
    labels = list(labels) if not isinstance(labels, np.ndarray) else labels.tolist()
    if len(labels) != n_items:
        raise AgreementInputError(f"{name} has {len(labels)} entries; expected {n_items}")
    if any(label is None for label in labels):
        index = next(i for i, label in enumerate(labels) if label is None)
        raise AgreementInputError(f"{name} is missing for item {index}")
    order: dict = {}
    codes = np.empty(n_items, dtype=np.int64)
    for i, label in enumerate(labels):
        codes[i] = order.setdefault(label, len(order))
    return tuple(order), codes


def encode_categories(values, categories: Sequence) -> np.ndarray:
    """Map labels (e.g. option letters ``"A".."D"``) to integer codes; ``None``/"" → MISSING.

    ``encode_categories([["A", "C"], ["B", None]], "ABCD")`` → ``[[0, 2], [1, -1]]``.
    """
    lookup = {category: code for code, category in enumerate(categories)}
    if len(lookup) != len(categories):
        raise AgreementInputError(f"categories contain duplicates: {list(categories)!r}")
    array = np.asarray(values, dtype=object)
    out = np.empty(array.shape, dtype=np.int64)
    for position, value in np.ndenumerate(array):
        if value is None or value == "":
            out[position] = MISSING
        elif value in lookup:
            out[position] = lookup[value]
        else:
            raise AgreementInputError(
                f"value {value!r} at {position} is not one of the categories {list(categories)!r}"
            )
    return out
