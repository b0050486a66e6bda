"""The bootstrap engine: sums of per-unit rows over many resamples of the units, at once.

Every bootstrap in the package needs, for each resample of the units (items, scenarios),
the sum over the drawn units of a small per-unit row of sufficient statistics (Fleiss' κ:
the unit's agreement numerator and category counts; accuracy: a 0/1 per annotator). So the
engine returns the ``(n_boot, n_fields)`` matrix of those sums, computed one of two exact ways:

* **Few distinct rows** (673 pairs × 3 annotators × 3 candidates has at most 10 distinct
  count rows): units with the same row are interchangeable, so a resample is fully described
  by how many units of each distinct row it draws, a multinomial(n_units, row frequencies)
  draw. That costs per distinct row instead of per unit.
* **Otherwise** unit indices are drawn uniformly with replacement, in chunks that stay in
  cache. Integer rows are bit-packed into one int64 per unit, each field in its own bit lane
  wide enough for its largest possible sum, so one gather-and-sum adds every field at once;
  other rows are summed through a count matrix and one matrix product.

Both are the ordinary nonparametric bootstrap; which one runs depends on the data (and is
deterministic), so the same data and seed always give the same resamples.
:func:`bootstrap_unit_indices` returns those resamples as unit indices for reference loops.
"""

from __future__ import annotations

import numpy as np

from ._core import AgreementInputError, check_count, make_rng

#: One multinomial cell costs about as much as this many uniform index draws (measured on
#: numpy 2.4); it only decides which exact sampler is faster.
_MULTINOMIAL_CELL_COST = 20

#: Index draws made and reduced together on the index path: the block stays in cache, which
#: roughly halves the time against one large block (measured on this 2-core machine).
_CHUNK_DRAWS = 1 << 16

_WORD_BITS = 62


def _as_rows(rows) -> np.ndarray:
    array = np.asarray(rows)
    if array.ndim == 1:
        array = array[:, None]
    if array.ndim != 2 or array.shape[0] == 0:
        raise AgreementInputError(
            f"rows must be a non-empty (n_units, n_fields) array; got shape {array.shape}"
        )
    return array


def _classes(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each distinct key row (in sorted order): the first unit holding it, and how many do."""
    _, first, frequency = np.unique(key, axis=0, return_index=True, return_counts=True)
    return first, frequency


def _key_rows(key, rows: np.ndarray) -> np.ndarray:
    if key is None:
        return rows
    key = _as_rows(key)
    if key.shape[0] != rows.shape[0]:
        raise AgreementInputError(
            f"key has {key.shape[0]} units and rows {rows.shape[0]}; both must describe the "
            f"same units"
        )
    return key


def _chunk_resamples(n_units: int) -> int:
    return max(1, _CHUNK_DRAWS // n_units)


def _uses_multinomial(n_units: int, n_distinct: int) -> bool:
    return n_distinct * _MULTINOMIAL_CELL_COST < n_units


class _BitPacker:
    """Adds many integer fields with one int64 sum by giving each field its own bit lane."""

    def __init__(self, rows: np.ndarray):
        n_units = rows.shape[0]
        widths = [max(1, int(n_units * int(column.max())).bit_length()) for column in rows.T]
        self.words: list[list[tuple[int, int, int]]] = []  # per word: (field, shift, width)
        used = _WORD_BITS
        for field, width in enumerate(widths):
            if used + width > _WORD_BITS:
                self.words.append([])
                used = 0
            self.words[-1].append((field, used, width))
            used += width
        self.n_fields = rows.shape[1]
        self.packed = [
            sum(rows[:, field].astype(np.int64) << shift for field, shift, _ in word)
            for word in self.words
        ]

    @staticmethod
    def fits(rows: np.ndarray) -> bool:
        if rows.dtype.kind not in "iub":
            if rows.dtype.kind != "f" or not np.all(np.floor(rows) == rows):
                return False
        return bool(rows.min() >= 0) and all(
            int(rows.shape[0] * int(column.max())).bit_length() <= _WORD_BITS for column in rows.T
        )

    def sums(self, indices: np.ndarray) -> np.ndarray:
        out = np.empty((indices.shape[0], self.n_fields), dtype=np.float64)
        for word, packed in zip(self.words, self.packed, strict=True):
            total = np.take(packed, indices).sum(axis=1)
            for field, shift, width in word:
                out[:, field] = (total >> shift) & ((1 << width) - 1)
        return out


def resample_counts(indices: np.ndarray, n_units: int) -> np.ndarray:
    """How often each unit appears in each resample: ``(n_boot, n_units)`` float64 counts."""
    n_boot = indices.shape[0]
    flat = (indices + (np.arange(n_boot) * n_units)[:, None]).ravel()
    counts = np.bincount(flat, minlength=n_boot * n_units)
    return counts.reshape(n_boot, n_units).astype(np.float64)


def resampled_row_sums(
    rows, n_boot: int, seed: int | np.random.Generator | None, *, key=None
) -> np.ndarray:
    """``(n_boot, n_fields)``: for each bootstrap resample of the units, the sum of their rows.

    ``rows`` is ``(n_units, n_fields)`` (or 1-D for one field). ``key`` (default: ``rows``)
    says which units are interchangeable: units with equal key rows must have equal rows. The
    resamples depend only on the key, ``n_boot`` and the seed, so two statistics computed with
    the same key and seed see the same resamples. A Generator passed as ``seed`` is advanced.
    """
    rows = _as_rows(rows)
    key = _key_rows(key, rows)
    n_boot = check_count(n_boot, "n_boot", minimum=1)
    rng = make_rng(seed)
    n_units = rows.shape[0]
    first, frequency = _classes(key)
    if _uses_multinomial(n_units, first.size):
        counts = rng.multinomial(n_units, frequency / n_units, size=n_boot)
        return counts.astype(np.float64) @ rows[first].astype(np.float64)
    packer = _BitPacker(rows) if _BitPacker.fits(rows) else None
    values = rows.astype(np.float64)
    out = np.empty((n_boot, rows.shape[1]))
    chunk = _chunk_resamples(n_units)
    for start in range(0, n_boot, chunk):
        stop = min(n_boot, start + chunk)
        indices = rng.integers(0, n_units, size=(stop - start, n_units))
        if packer is not None:
            out[start:stop] = packer.sums(indices)
        else:
            out[start:stop] = resample_counts(indices, n_units) @ values
    return out


def bootstrap_unit_indices(key, n_boot: int, seed: int | np.random.Generator | None) -> np.ndarray:
    """The resamples :func:`resampled_row_sums` uses for the same key and seed, as indices.

    ``(n_boot, n_units)``: row b lists the units of resample b. When the multinomial sampler
    runs, a resample is "so many units of each distinct key", and the indices name the first
    unit holding each key; any unit with that key would give the same statistic. For
    reference loops and benchmarks; the vectorized functions never build this matrix.
    """
    key = _as_rows(key)
    n_boot = check_count(n_boot, "n_boot", minimum=1)
    rng = make_rng(seed)
    n_units = key.shape[0]
    first, frequency = _classes(key)
    if _uses_multinomial(n_units, first.size):
        counts = rng.multinomial(n_units, frequency / n_units, size=n_boot)
        return np.repeat(np.tile(first, n_boot), counts.ravel()).reshape(n_boot, n_units)
    chunk = _chunk_resamples(n_units)
    chunks = [
        rng.integers(0, n_units, size=(min(n_boot, start + chunk) - start, n_units))
        for start in range(0, n_boot, chunk)
    ]
    return np.concatenate(chunks, axis=0)
