"""How far apart two characters' Big Five vectors are (seed 004 App. A.3).

Seed 004 checks that its eleven characters are distinct individuals with two distances
between every two of them: the L1 distance of their attributes and Kendall's τ between
their personality rankings, combined as ``(d_L1 + 1 - τ) / 2`` with both terms on [0, 1].
Here the same two distances are taken on the five OCEAN scores (0-1), whatever produced
them: a profile's design vector, or the vector observers recovered from its memories.

* **L1 distance**: ``sum |x_t - y_t|`` over the five traits, on the score scale
  (0 to 5). Its normalised form is ``l1 / 5``.
* **Kendall distance of the trait orderings**: each of the ten pairs of traits is
  compared in both vectors. A pair ordered one way in one vector and the other way in
  the other is discordant and counts 1; a pair tied in one vector but not in the other
  counts 1/2; a pair tied in both, or ordered the same way in both, counts 0. This is
  Kendall's distance with the tie penalty p = 1/2 (Fagin et al., 2006, K^(1/2)). The
  count over ten pairs is the normalised distance in [0, 1]. Without ties it equals
  ``(1 - τ) / 2`` (τ-a = τ-b then); with ties it is the mean of that quantity over every
  way of breaking the ties by one common order of the traits, so the all-0.50 neutral
  reference sits at 1/2 from any vector without ties, and identical vectors at 0.
  ``scipy.stats.kendalltau`` alone cannot serve here: its τ-b has no value when one
  vector is constant, which the neutral reference is.
* **Combined**: ``(l1 / 5 + kendall) / 2``, seed 004's ``d_total`` with both terms on
  [0, 1].

A pair is a **near-duplicate** when its scores are close (L1 below
``NEAR_DUPLICATE_L1_BELOW``) and its orderings are no further apart than unrelated
orderings are on average (Kendall distance at most ``NEAR_DUPLICATE_KENDALL_AT_MOST``).
Why these values: seed 000's design puts one 0.95 or 0.10 anchor per character and the
other four scores in 0.30-0.70, so two of its characters are at least 0.40 apart in L1
(two low anchors on different traits: 0.20 + 0.20; a low anchor against the all-0.50
reference: 0.40); 0.35 leaves a margin under that floor, and means the scores differ by
less than 0.07 per trait on average. The ordering condition only spares a pair whose
scores are close but lean in opposite directions (more than half the trait pairs
reversed), which a reader can tell apart.

Pure: numpy only, no Django.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from ._core import AgreementInputError

TRAITS = ("O", "C", "E", "A", "N")
#: The ten unordered pairs of traits whose order the Kendall distance compares.
TRAIT_PAIRS = tuple(combinations(range(len(TRAITS)), 2))
#: A pair tied in one vector and not in the other counts this much (K^(p), p = 1/2).
TIE_PENALTY = 0.5
#: Flag a pair whose L1 distance (0-5 scale) is below this ...
NEAR_DUPLICATE_L1_BELOW = 0.35
#: ... and whose Kendall distance (0-1) is at most this.
NEAR_DUPLICATE_KENDALL_AT_MOST = 0.5
#: Distances are rounded to this many decimals before a threshold is applied, so that
#: float noise (0.1 + 0.25 != 0.35) never decides a flag.
DECIMALS = 10

VectorLike = Mapping[str, float] | Sequence[float]


@dataclass(frozen=True, slots=True)
class PairDistance:
    """The distances between two characters; ``first`` sorts before ``second``."""

    first: str
    second: str
    l1: float
    discordant_pairs: float  # 0-10 in steps of 1/2
    kendall: float  # discordant_pairs / 10
    combined: float  # (l1 / 5 + kendall) / 2
    near_duplicate: bool

    @property
    def l1_normalised(self) -> float:
        return self.l1 / len(TRAITS)


@dataclass(frozen=True, slots=True)
class DistinctnessSummary:
    """Seed 004 App. A.3 reports the averages over all pairs."""

    characters: int
    pairs: int
    near_duplicates: int
    mean_l1: float | None
    mean_kendall: float | None
    mean_combined: float | None


def as_vector(scores: VectorLike, *, name: str = "vector") -> np.ndarray:
    """Five scores in O, C, E, A, N order from a mapping keyed by those letters (or a
    sequence already in that order); each must be a number in [0, 1]."""
    if isinstance(scores, Mapping):
        missing = [t for t in TRAITS if t not in scores]
        if missing:
            raise AgreementInputError(f"{name} has no score for {', '.join(missing)}.")
        values = [scores[t] for t in TRAITS]
    else:
        values = list(scores)
        if len(values) != len(TRAITS):
            raise AgreementInputError(
                f"{name} has {len(values)} scores; it needs five (O, C, E, A, N)."
            )
    try:
        vector = np.array(values, dtype=float)
    except (TypeError, ValueError):
        raise AgreementInputError(f"{name} has a score that is not a number: {values}.") from None
    for trait, value in zip(TRAITS, vector, strict=True):
        if not np.isfinite(value) or not 0.0 <= value <= 1.0:
            raise AgreementInputError(f"{name}: {trait} is {value}, outside 0-1.")
    return vector


def _orderings(matrix: np.ndarray) -> np.ndarray:
    """(n, 10): the sign of x_i - x_j for each pair of traits (0 for a tie)."""
    firsts = [i for i, _ in TRAIT_PAIRS]
    seconds = [j for _, j in TRAIT_PAIRS]
    return np.sign(matrix[:, firsts] - matrix[:, seconds])


def _discordant(signs_x: np.ndarray, signs_y: np.ndarray) -> np.ndarray:
    """Discordant trait pairs (ties at 1/2) between orderings broadcast against each other."""
    reversed_ = (signs_x * signs_y) < 0
    tied_in_one = (signs_x == 0) != (signs_y == 0)
    return reversed_.sum(axis=-1) + TIE_PENALTY * tied_in_one.sum(axis=-1)


def l1_distance(x: VectorLike, y: VectorLike) -> float:
    """``sum |x_t - y_t|`` over O, C, E, A, N (0 to 5)."""
    a, b = as_vector(x, name="first vector"), as_vector(y, name="second vector")
    return round(float(np.abs(a - b).sum()), DECIMALS)


def discordant_trait_pairs(x: VectorLike, y: VectorLike) -> float:
    """Of the ten pairs of traits, how many the two vectors order differently (a pair
    tied in one vector only counts 1/2)."""
    a, b = as_vector(x, name="first vector"), as_vector(y, name="second vector")
    signs = _orderings(np.vstack([a, b]))
    return float(_discordant(signs[0], signs[1]))


def kendall_distance(x: VectorLike, y: VectorLike) -> float:
    """The discordant trait pairs over ten: 0 for the same ordering, 1 for the reverse."""
    return discordant_trait_pairs(x, y) / len(TRAIT_PAIRS)


def is_near_duplicate(
    l1: float,
    kendall: float,
    *,
    l1_below: float = NEAR_DUPLICATE_L1_BELOW,
    kendall_at_most: float = NEAR_DUPLICATE_KENDALL_AT_MOST,
) -> bool:
    return round(l1, DECIMALS) < l1_below and round(kendall, DECIMALS) <= kendall_at_most


class DistinctnessTable(Sequence[PairDistance]):
    """Every pair of characters, closest first, held as arrays: a row becomes a
    :class:`PairDistance` only when it is read, so a page of 50 pairs out of a few
    hundred characters' tens of thousands costs 50 objects. Indexing and slicing work as
    on a list; ``near_duplicates()`` and ``involving(keys)`` are tables of their own."""

    def __init__(self, keys, first, second, l1, discordant, near):
        self.keys = list(keys)
        self._first, self._second = first, second
        self._l1, self._discordant, self._near = l1, discordant, near

    def __len__(self) -> int:
        return len(self._l1)

    def _row(self, i: int) -> PairDistance:
        l1 = float(self._l1[i])
        kendall = float(self._discordant[i]) / len(TRAIT_PAIRS)
        return PairDistance(
            first=self.keys[self._first[i]],
            second=self.keys[self._second[i]],
            l1=l1,
            discordant_pairs=float(self._discordant[i]),
            kendall=kendall,
            combined=(l1 / len(TRAITS) + kendall) / 2,
            near_duplicate=bool(self._near[i]),
        )

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._row(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("pair index out of range")
        return self._row(index)

    def _subset(self, mask) -> DistinctnessTable:
        return DistinctnessTable(
            self.keys,
            self._first[mask],
            self._second[mask],
            self._l1[mask],
            self._discordant[mask],
            self._near[mask],
        )

    def near_duplicates(self) -> DistinctnessTable:
        return self._subset(self._near)

    def involving(self, keys) -> DistinctnessTable:
        """The pairs in which at least one of ``keys`` takes part, in the same order."""
        chosen = set(keys)
        wanted = np.array([k in chosen for k in self.keys] or [False])
        return self._subset(wanted[self._first] | wanted[self._second])

    def summary(self) -> DistinctnessSummary:
        """The averages over all pairs, as seed 004 reports them (None without a pair)."""
        characters = len(self.keys)
        if not len(self):
            return DistinctnessSummary(characters, 0, 0, None, None, None)
        l1 = float(np.mean(self._l1))
        kendall = float(np.mean(self._discordant)) / len(TRAIT_PAIRS)
        return DistinctnessSummary(
            characters=characters,
            pairs=len(self),
            near_duplicates=int(self._near.sum()),
            mean_l1=l1,
            mean_kendall=kendall,
            mean_combined=(l1 / len(TRAITS) + kendall) / 2,
        )


def distinctness_table(
    vectors: Mapping[str, VectorLike],
    *,
    l1_below: float = NEAR_DUPLICATE_L1_BELOW,
    kendall_at_most: float = NEAR_DUPLICATE_KENDALL_AT_MOST,
) -> DistinctnessTable:
    """Every pair of characters of ``{key: vector}``, closest first: by L1, then by the
    Kendall distance, then by the keys. O(n²) in numpy: 300 characters (44,850 pairs)
    take a few tens of milliseconds."""
    keys = sorted(vectors)
    matrix = np.vstack([as_vector(vectors[k], name=str(k)) for k in keys] or [np.zeros(5)])
    l1 = np.round(np.abs(matrix[:, None, :] - matrix[None, :, :]).sum(axis=-1), DECIMALS)
    signs = _orderings(matrix)
    discordant = _discordant(signs[:, None, :], signs[None, :, :])
    first, second = np.triu_indices(len(keys), k=1)
    pair_l1 = l1[first, second]
    pair_discordant = discordant[first, second]
    pair_kendall = np.round(pair_discordant / len(TRAIT_PAIRS), DECIMALS)
    near = (pair_l1 < l1_below) & (pair_kendall <= kendall_at_most)
    order = np.lexsort((second, first, pair_kendall, pair_l1))
    return DistinctnessTable(
        keys, first[order], second[order], pair_l1[order], pair_discordant[order], near[order]
    )


def distinctness_summary(rows: DistinctnessTable) -> DistinctnessSummary:
    """The averages over all pairs of ``rows`` (``rows.summary()``)."""
    return rows.summary()


def distinctness_against(
    vectors: Mapping[str, VectorLike],
    chosen,
    *,
    l1_below: float = NEAR_DUPLICATE_L1_BELOW,
    kendall_at_most: float = NEAR_DUPLICATE_KENDALL_AT_MOST,
) -> DistinctnessTable:
    """The pairs of ``vectors`` in which at least one of the ``chosen`` keys takes part,
    closest first, with the same distances and flags as :func:`distinctness_table`: the
    chosen rows against every row, O(k·n) instead of O(n²) (a launch check of k
    characters among n)."""
    keys = sorted(vectors)
    picked = [i for i, k in enumerate(keys) if k in set(chosen)]
    matrix = np.vstack([as_vector(vectors[k], name=str(k)) for k in keys] or [np.zeros(5)])
    rows = np.array(picked, dtype=int)
    l1 = np.round(np.abs(matrix[rows][:, None, :] - matrix[None, :, :]).sum(axis=-1), DECIMALS)
    signs = _orderings(matrix)
    discordant = _discordant(signs[rows][:, None, :], signs[None, :, :])
    row_index, column = np.nonzero(np.ones((len(rows), len(keys)), dtype=bool))
    mine = rows[row_index]
    is_picked = np.isin(column, rows)
    # A pair of two chosen keys appears twice (once from each side): keep it once.
    keep = (mine != column) & (~is_picked | (mine < column))
    mine, column, row_index = mine[keep], column[keep], row_index[keep]
    first, second = np.minimum(mine, column), np.maximum(mine, column)
    pair_l1 = l1[row_index, column]
    pair_discordant = discordant[row_index, column]
    pair_kendall = np.round(pair_discordant / len(TRAIT_PAIRS), DECIMALS)
    near = (pair_l1 < l1_below) & (pair_kendall <= kendall_at_most)
    order = np.lexsort((second, first, pair_kendall, pair_l1))
    return DistinctnessTable(
        keys, first[order], second[order], pair_l1[order], pair_discordant[order], near[order]
    )
