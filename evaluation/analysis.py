"""The numbers of the evaluation pages, from plain arrays (seed 000 §3.1, App. G, I, K.2).

Selectors turn rows into :class:`PredictionTable`; this module computes with
``agreement/`` (cluster bootstrap, paired cluster permutation, Holm, pairwise agreement)
and numpy. Invalid responses, refusals, leak-blocked items and failed calls that were not
re-run are incorrect. The App. K.1, K.3 and K.4 tables are in :mod:`evaluation.analysis_k`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

import agreement
from agreement import constants

LETTERS = "ABCD"
#: §3.1: 95% scenario-cluster bootstrap intervals; App. K.1's seed and resample count.
BOOTSTRAP_SEED = constants.CLUSTER_BOOTSTRAP_SEED
N_BOOTSTRAP = constants.N_BOOTSTRAP
#: §3.1 / App. G: scenario-level permutation (sign-flip) tests, Holm-corrected.
PERMUTATION_SEED = constants.SIGN_FLIP_SEED
N_PERMUTATIONS = constants.N_PERMUTATIONS
HOLM_ALPHA = constants.HOLM_ALPHA

HIDDEN, DISCLOSED, DISCLOSED_MEMORY = "naive_rag", "disclosed_profile", "disclosed_profile_memory"
NO_RETRIEVAL = "no_retrieval"
#: §3.1: the memory-augmented settings (Naive-RAG, Mem0, PersonaDB). Their runs make a
#: model's Memory-Augmented Avg., and each against No-Retrieval is one retrieval gain.
MEMORY_AUGMENTED_SETTINGS = ("naive_rag", "mem0", "personadb")


#: The source family of an item whose reference has none recorded (an imported release).
SOURCE_NOT_RECORDED = "not recorded"
#: App. K.1: the model families that produced candidates, hence references.
SOURCE_FAMILIES = ("gemini", "claude", "gpt")
#: A provider kind that fixes the family when the label names none.
FAMILY_OF_PROVIDER_KIND = {"gemini": "gemini", "anthropic": "claude", "openai": "gpt"}


def model_family(label: str, provider_kind: str = "") -> str:
    """The source family a run's model belongs to (App. K.1), "" for none: the family
    its label names ("gemini-3.1-pro", "Claude Sonnet", "gpt-5.4"), else its provider's
    (Gemini, Anthropic, OpenAI; an OpenAI-compatible endpoint serves any model)."""
    words = label.lower()
    named = [f for f in SOURCE_FAMILIES if f in words]
    if len(named) == 1:
        return named[0]
    return FAMILY_OF_PROVIDER_KIND.get(provider_kind, "") if not named else ""


@dataclass(frozen=True)
class Column:
    """One run: its model label, setting and answer per item (None: no valid answer).

    ``failed`` lists the items whose call failed and was not re-run: their answer is
    None. ``family`` is the model's source family ("" for none)."""

    run_id: int
    label: str
    setting: str
    answers: dict  # item pk -> "A".."D" or None
    failed: frozenset = frozenset()
    family: str = ""


@dataclass(frozen=True)
class PredictionTable:
    item_ids: tuple  # item pks
    key: dict  # item pk -> correct letter
    scenario: dict  # item pk -> scenario id (the cluster)
    character: dict
    stage: dict
    source_family: dict
    columns: tuple[Column, ...] = field(default_factory=tuple)
    #: item pk -> the source families of its distractors, in option order (App. K.1)
    distractor_family: dict = field(default_factory=dict)


@dataclass(frozen=True)
class AccuracyRow:
    run_id: int
    label: str
    setting: str
    n_items: int
    n_correct: int
    n_invalid: int
    n_failed: int
    accuracy: float
    ci_low: float | None
    ci_high: float | None


@dataclass(frozen=True)
class Comparison:
    """A paired test of ``a`` against ``b`` (difference Acc(a) − Acc(b)).

    ``holm`` says whether the pair belongs to a Holm family; a pair outside one keeps
    its uncorrected p-value only (``p_holm`` None, ``reject`` False)."""

    kind: str  # "setting" (same model) or "model" (same setting)
    a: Column
    b: Column
    n_items: int
    difference: float
    p_value: float
    p_holm: float | None = 1.0
    reject: bool = False
    holm: bool = True


def correct_vector(table: PredictionTable, column: Column, items) -> np.ndarray:
    return np.array(
        [1.0 if column.answers.get(i) == table.key[i] else 0.0 for i in items], dtype=np.float64
    )


def accuracy_rows(
    table: PredictionTable, *, n_boot=N_BOOTSTRAP, seed=BOOTSTRAP_SEED
) -> list[AccuracyRow]:
    rows = []
    for col in table.columns:
        items = [i for i in table.item_ids if i in col.answers]
        if not items:
            continue
        correct = correct_vector(table, col, items)
        estimate = agreement.cluster_bootstrap_accuracy(
            correct, [table.scenario[i] for i in items], n_boot=n_boot, seed=seed
        )
        rows.append(
            AccuracyRow(
                run_id=col.run_id,
                label=col.label,
                setting=col.setting,
                n_items=len(items),
                n_correct=int(correct.sum()),
                n_invalid=sum(col.answers[i] is None and i not in col.failed for i in items),
                n_failed=len(col.failed),
                accuracy=estimate.estimate,
                ci_low=estimate.ci_low,
                ci_high=estimate.ci_high,
            )
        )
    return rows


def _common(table: PredictionTable, *columns: Column) -> list:
    return [i for i in table.item_ids if all(i in c.answers for c in columns)]


def _compare(table, kind, a, b, n_permutations, seed) -> Comparison | None:
    items = _common(table, a, b)
    if not items:
        return None
    test = agreement.paired_cluster_permutation_test(
        correct_vector(table, a, items),
        correct_vector(table, b, items),
        [table.scenario[i] for i in items],
        n_permutations=n_permutations,
        seed=seed,
    )
    return Comparison(kind, a, b, len(items), test.difference, test.p_value)


def _holm(comparisons: list[Comparison]) -> list[Comparison]:
    """Holm over the comparisons marked ``holm``; the others keep their uncorrected p."""
    family = [c for c in comparisons if c.holm]
    if not family:
        return comparisons
    holm = agreement.holm_correction([c.p_value for c in family], alpha=HOLM_ALPHA)
    corrected = {
        id(c): dataclasses.replace(c, p_holm=adj, reject=rej)
        for c, adj, rej in zip(family, holm.adjusted, holm.reject, strict=True)
    }
    return [corrected.get(id(c), c) for c in comparisons]


def is_retrieval_gain(a: Column, b: Column) -> bool:
    """§3.2: one model's memory-augmented run against its own No-Retrieval run."""
    return a.label == b.label and (
        (a.setting in MEMORY_AUGMENTED_SETTINGS and b.setting == NO_RETRIEVAL)
        or (b.setting in MEMORY_AUGMENTED_SETTINGS and a.setting == NO_RETRIEVAL)
    )


def paired_comparisons(
    table: PredictionTable, *, n_permutations=N_PERMUTATIONS, seed=PERMUTATION_SEED
) -> dict[str, list[Comparison]]:
    """Setting vs setting within each model, and model vs model within each setting, on
    the items both runs answered. Every test uses the same seed, so each is reproducible
    on its own.

    The settings' Holm family is the paper's (§3.2, App. G): the retrieval gains, each
    memory-augmented run of a model against its No-Retrieval run (16 models × 3 settings
    = 48 in the paper), oriented memory minus No-Retrieval. The model's other setting
    pairs (between two memory backends, the App. I diagnostics, any ablation) are
    reported with their uncorrected p-value and marked outside the family (``holm``
    False). The models family (same setting, two models) is the platform's own: Holm
    over all its pairs."""
    settings_family, models_family = [], []
    columns = list(table.columns)
    for a, b in combinations(columns, 2):
        if a.label == b.label and a.setting != b.setting:
            gain = is_retrieval_gain(a, b)
            if gain and a.setting == NO_RETRIEVAL:
                a, b = b, a
            comparison = _compare(table, "setting", a, b, n_permutations, seed)
            if comparison is not None:
                settings_family.append(
                    comparison if gain else dataclasses.replace(comparison, p_holm=None, holm=False)
                )
        elif a.setting == b.setting and a.label != b.label:
            comparison = _compare(table, "model", a, b, n_permutations, seed)
            if comparison is not None:
                models_family.append(comparison)
    return {"settings": _holm(settings_family), "models": _holm(models_family)}


def breakdown(table: PredictionTable, by: str) -> tuple[list, list[dict]]:
    """Accuracy of each run within each group of ``by`` (character, stage, source_family)."""
    groups_of = getattr(table, by)
    groups = sorted({groups_of[i] for i in table.item_ids})
    rows = []
    for col in table.columns:
        cells = {}
        for g in groups:
            items = [i for i in table.item_ids if groups_of[i] == g and i in col.answers]
            if items:
                correct = correct_vector(table, col, items)
                cells[g] = {
                    "n": len(items),
                    "correct": int(correct.sum()),
                    "accuracy": float(correct.mean()),
                }
        rows.append({"column": col, "cells": cells})
    return groups, rows


@dataclass(frozen=True)
class DisclosureDiagnostic:
    """App. I for one model: Δprofile = 100[Acc(D+M) − Acc(H)], Δmemory = 100[Acc(D+M) − Acc(D)]."""

    label: str
    n_items: int
    hidden: float
    disclosed: float
    disclosed_memory: float

    @property
    def delta_profile(self) -> float:
        return 100 * (self.disclosed_memory - self.hidden)

    @property
    def delta_memory(self) -> float:
        return 100 * (self.disclosed_memory - self.disclosed)


def disclosure_diagnostics(table: PredictionTable) -> list[DisclosureDiagnostic]:
    """Descriptive, on the items all three conditions answered (no CI or test, App. I)."""
    by_label: dict[str, dict[str, Column]] = {}
    for col in table.columns:
        by_label.setdefault(col.label, {})[col.setting] = col
    out = []
    for label, cols in sorted(by_label.items()):
        if not all(s in cols for s in (HIDDEN, DISCLOSED, DISCLOSED_MEMORY)):
            continue
        h, d, dm = cols[HIDDEN], cols[DISCLOSED], cols[DISCLOSED_MEMORY]
        items = _common(table, h, d, dm)
        if not items:
            continue
        out.append(
            DisclosureDiagnostic(
                label,
                len(items),
                float(correct_vector(table, h, items).mean()),
                float(correct_vector(table, d, items).mean()),
                float(correct_vector(table, dm, items).mean()),
            )
        )
    return out


@dataclass(frozen=True)
class AgreementMatrix:
    setting: str
    labels: tuple[str, ...]
    rate: np.ndarray
    agree: np.ndarray
    jointly_valid: np.ndarray
    mean_rate: float
    n_items: int


def agreement_matrices(table: PredictionTable) -> list[AgreementMatrix]:
    """App. K.2: per setting, pairwise answer agreement over jointly valid questions, on
    the items every model of that setting was asked."""
    out = []
    for setting in dict.fromkeys(c.setting for c in table.columns):
        cols = [c for c in table.columns if c.setting == setting]
        if len({c.label for c in cols}) < 2:
            continue
        items = _common(table, *cols)
        if not items:
            continue
        ratings = [
            [LETTERS.index(c.answers[i]) if c.answers[i] else agreement.MISSING for c in cols]
            for i in items
        ]
        try:
            result = agreement.pairwise_agreement(np.array(ratings), n_categories=len(LETTERS))
        except agreement.UndefinedStatisticError:
            continue
        out.append(
            AgreementMatrix(
                setting,
                tuple(c.label for c in cols),
                result.rate,
                result.agree,
                result.jointly_valid,
                result.mean_rate,
                len(items),
            )
        )
    return out
