"""How much the arbitrator changed a selected candidate (App. D.2: "experts added, deleted, or
replaced approximately 15% of the words in the selected LLM-generated candidates").

The rate is the word-level edit distance (insertions + deletions + substitutions of a
minimum alignment) divided by the candidate's word count. Words are runs of letters/digits
(with inner apostrophes or hyphens); Chinese, Japanese and Korean characters count one word
each, because those scripts do not separate words with spaces. Punctuation is not a word.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ._core import AgreementInputError, UndefinedStatisticError

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_WORD = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+(?:['’\-][^\W_{_CJK}]+)*")


def words(text: str) -> list[str]:
    """The word tokens of ``text``, case-folded, as the edit rate counts them."""
    if not isinstance(text, str):
        raise AgreementInputError(f"expected text, got {type(text).__name__}")
    return [token.casefold() for token in _WORD.findall(text)]


@dataclass(frozen=True, slots=True)
class WordEdits:
    added: int
    deleted: int
    replaced: int
    candidate_words: int

    @property
    def edits(self) -> int:
        return self.added + self.deleted + self.replaced

    @property
    def rate(self) -> float:
        return self.edits / self.candidate_words


def _alignment_table(source: list[str], target: list[str]) -> np.ndarray:
    """Levenshtein table over words; each row is filled with vectorized operations.

    Within a row, d[j] = min(up/diagonal candidate c[j], d[j-1] + 1) unrolls to
    d[j] = j + min_{i ≤ j}(c[i] − i): a running minimum.
    """
    m = len(target)
    vocabulary: dict[str, int] = {}
    target_ids = np.array([vocabulary.setdefault(w, len(vocabulary)) for w in target], dtype=int)
    table = np.empty((len(source) + 1, m + 1), dtype=np.int64)
    table[0] = np.arange(m + 1)
    offsets = np.arange(m + 1)
    for i, word in enumerate(source, start=1):
        word_id = vocabulary.get(word, -1)
        previous = table[i - 1]
        candidate = np.empty(m + 1, dtype=np.int64)
        candidate[0] = i
        candidate[1:] = np.minimum(previous[1:] + 1, previous[:-1] + (target_ids != word_id))
        table[i] = np.minimum.accumulate(candidate - offsets) + offsets
    return table


def word_edit_rate(candidate: str, adjudicated: str) -> WordEdits:
    """Words added, deleted and replaced to turn ``candidate`` into ``adjudicated``.

    Among minimum alignments, replacements are preferred to a deletion plus an addition, so
    ``replaced`` is as large as the minimum allows; the total is the word edit distance.
    """
    source = words(candidate)
    target = words(adjudicated)
    if not source:
        raise UndefinedStatisticError(
            "the candidate has no words, so an edit rate relative to it is undefined"
        )
    table = _alignment_table(source, target)
    added = deleted = replaced = 0
    i, j = len(source), len(target)
    while i > 0 or j > 0:
        differ = i > 0 and j > 0 and source[i - 1] != target[j - 1]
        if i > 0 and j > 0 and table[i, j] == table[i - 1, j - 1] + differ:
            replaced += differ
            i, j = i - 1, j - 1
        elif i > 0 and table[i, j] == table[i - 1, j] + 1:
            deleted += 1
            i -= 1
        else:
            added += 1
            j -= 1
    return WordEdits(added=added, deleted=deleted, replaced=replaced, candidate_words=len(source))


def mean_word_edit_rate(pairs: Iterable[tuple[str, str]]) -> float:
    """Mean over (candidate, adjudicated) pairs of the per-pair edit rate ("on average")."""
    rates = [word_edit_rate(candidate, adjudicated).rate for candidate, adjudicated in pairs]
    if not rates:
        raise AgreementInputError("no (candidate, adjudicated) pairs were given")
    return float(np.mean(rates))
