"""The App. K tables of the analysis page, from a :class:`~evaluation.analysis.PredictionTable`.

* K.1: accuracy stratified by the reference's source family (Table 20), the no-retrieval
  own-source check, rank stability and Spearman correlations between the source subsets'
  rankings, and the provenance interactions (difference-in-differences) with wild
  sign-flip tests, Holm-corrected over the families.
* The Memory-Augmented Avg. (Table 2, K.1): a model's mean over its memory-augmented runs.
* K.3: accuracy per life-stage bin, pooled over models and memory-augmented settings.
* K.4: accuracy per character, pooled over models within each memory-augmented setting,
  then averaged over the settings.

Every statistic comes from ``agreement/``; this module only chooses items and columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

import agreement
from agreement import constants

from .analysis import (
    MEMORY_AUGMENTED_SETTINGS,
    NO_RETRIEVAL,
    SOURCE_FAMILIES,
    Column,
    PredictionTable,
    correct_vector,
)

# §3.1 / Table 2 / App. K.1: the Memory-Augmented Avg. is a model's mean over its
# memory-augmented runs (Naive-RAG, Mem0, PersonaDB: ``MEMORY_AUGMENTED_SETTINGS``); the
# platform runs Naive-RAG and imports Mem0 and PersonaDB predictions, and the average is
# over those of them the model has runs in.
#: The settings of Table 20, in column order (the App. I diagnostics are not main settings).
MAIN_SETTINGS = (NO_RETRIEVAL, *MEMORY_AUGMENTED_SETTINGS)
#: App. K.1: "jointly in the top two positions".
RANK_TOP_K = 2


def _cells(table: PredictionTable, column: Column, items) -> tuple[int, int]:
    items = [i for i in items if i in column.answers]
    return len(items), int(correct_vector(table, column, items).sum()) if items else 0


def _sources(table: PredictionTable) -> list[str]:
    present = {table.source_family[i] for i in table.item_ids}
    return [f for f in SOURCE_FAMILIES if f in present] + sorted(present - set(SOURCE_FAMILIES))


def _models(table: PredictionTable) -> dict[str, dict[str, Column]]:
    """{label: {setting: column}} for the main settings, labels in table order."""
    out: dict[str, dict[str, Column]] = {}
    for col in table.columns:
        if col.setting in MAIN_SETTINGS:
            out.setdefault(col.label, {})[col.setting] = col
    return out


# --- K.1 Table 20 ---------------------------------------------------------------------------


@dataclass(frozen=True)
class StratifiedCell:
    n: int
    correct: int
    accuracy: float | None
    best: bool = False


@dataclass(frozen=True)
class StratifiedRow:
    label: str
    family: str
    cells: dict  # (source, setting or "memory_avg") -> StratifiedCell


@dataclass(frozen=True)
class SourceTable:
    sources: tuple[str, ...]
    settings: tuple[str, ...]  # main settings present, then "memory_avg" if any
    counts: dict  # source -> items of that source in the table
    rows: tuple[StratifiedRow, ...]


MEMORY_AVG = "memory_avg"


def source_stratified(table: PredictionTable) -> SourceTable:
    """Accuracy of each model in each main setting on each source subset, and its
    Memory-Augmented Avg. there (the mean over its memory-augmented settings' accuracies
    on the subset); ``best`` marks the best per subset and setting, ties included."""
    sources = _sources(table)
    models = _models(table)
    present = [s for s in MAIN_SETTINGS if any(s in cols for cols in models.values())]
    has_memory = any(s in MEMORY_AUGMENTED_SETTINGS for s in present)
    settings = (*present, MEMORY_AVG) if has_memory else tuple(present)
    by_source = {s: [i for i in table.item_ids if table.source_family[i] == s] for s in sources}
    rows = []
    for label, cols in models.items():
        cells = {}
        for source in sources:
            memory = []
            for setting in present:
                if setting not in cols:
                    continue
                n, correct = _cells(table, cols[setting], by_source[source])
                if n:
                    cells[(source, setting)] = StratifiedCell(n, correct, correct / n)
                    if setting in MEMORY_AUGMENTED_SETTINGS:
                        memory.append(correct / n)
            if memory:
                cells[(source, MEMORY_AVG)] = StratifiedCell(0, 0, float(np.mean(memory)))
        family = next(iter(cols.values())).family
        rows.append(StratifiedRow(label, family, cells))
    for source in sources:
        for setting in settings:
            values = [
                r.cells[(source, setting)].accuracy for r in rows if (source, setting) in r.cells
            ]
            if not values:
                continue
            top = max(values)
            for r in rows:
                cell = r.cells.get((source, setting))
                if cell is not None and np.isclose(cell.accuracy, top, rtol=0, atol=1e-12):
                    r.cells[(source, setting)] = StratifiedCell(
                        cell.n, cell.correct, cell.accuracy, True
                    )
    return SourceTable(
        tuple(sources), settings, {s: len(v) for s, v in by_source.items()}, tuple(rows)
    )


@dataclass(frozen=True)
class OwnSource:
    """No-Retrieval: a family's models on items its own pipeline produced, vs the others."""

    family: str
    n_items: int
    family_models: tuple[str, ...]
    family_mean: float
    other_models: int
    other_mean: float


def own_source_no_retrieval(table: PredictionTable) -> list[OwnSource]:
    """App. K.1 "own-source recognition": mean accuracy of a family's models on that
    family's items under No-Retrieval, against the mean of every other model."""
    cols = [c for c in table.columns if c.setting == NO_RETRIEVAL]
    out = []
    for family in SOURCE_FAMILIES:
        items = [i for i in table.item_ids if table.source_family[i] == family]
        accuracy = {}
        for col in cols:
            n, correct = _cells(table, col, items)
            if n:
                accuracy[col.label] = (col.family == family, correct / n)
        inside = [a for is_in, a in accuracy.values() if is_in]
        outside = [a for is_in, a in accuracy.values() if not is_in]
        if inside and outside:
            out.append(
                OwnSource(
                    family,
                    len(items),
                    tuple(label for label, (is_in, _) in accuracy.items() if is_in),
                    float(np.mean(inside)),
                    len(outside),
                    float(np.mean(outside)),
                )
            )
    return out


# --- K.1 rank stability, Spearman, interactions ---------------------------------------------


@dataclass(frozen=True)
class MemoryMatrix:
    """Per-item Memory-Augmented Avg. correctness of each model on the items every
    model's memory-augmented runs answered, restricted to items of a known source."""

    labels: tuple[str, ...]
    families: tuple[str, ...]
    items: tuple
    correct: np.ndarray  # (n_items, n_models)


def memory_matrix(table: PredictionTable, *, sources: Sequence[str] = SOURCE_FAMILIES):
    models = {
        label: [cols[s] for s in MEMORY_AUGMENTED_SETTINGS if s in cols]
        for label, cols in _models(table).items()
    }
    models = {label: cols for label, cols in models.items() if cols}
    if not models:
        return None
    every = [c for cols in models.values() for c in cols]
    items = [
        i
        for i in table.item_ids
        if table.source_family[i] in sources and all(i in c.answers for c in every)
    ]
    if not items:
        return None
    correct = np.column_stack(
        [
            np.mean([correct_vector(table, c, items) for c in cols], axis=0)
            for cols in models.values()
        ]
    )
    return MemoryMatrix(
        tuple(models),
        tuple(cols[0].family for cols in models.values()),
        tuple(items),
        correct,
    )


@dataclass(frozen=True)
class RankStability:
    members: tuple[str, ...]  # the top-k models by Memory-Augmented Avg. on all items
    k: int
    shares: dict  # source -> share of resamples with every member in the top k
    n_defined: dict  # source -> resamples that drew an item of the source


@dataclass(frozen=True)
class ProvenanceAnalysis:
    matrix: MemoryMatrix
    sources: tuple[str, ...]
    n_clusters: int
    accuracy: dict  # source -> {label: Memory-Augmented Avg. on that subset}
    overall: dict  # label -> Memory-Augmented Avg. on all items of the matrix
    stability: RankStability | None
    correlations: tuple  # agreement.RankCorrelation
    interactions: tuple  # agreement.FamilyInteraction
    n_boot: int
    n_flips: int


def provenance_analysis(
    table: PredictionTable,
    *,
    n_boot: int = constants.N_BOOTSTRAP,
    boot_seed: int = constants.CLUSTER_BOOTSTRAP_SEED,
    n_flips: int = constants.N_SIGN_FLIPS,
    flip_seed: int = constants.SIGN_FLIP_SEED,
    k: int = RANK_TOP_K,
) -> ProvenanceAnalysis | None:
    """App. K.1 on the Memory-Augmented Avg.: one shared scenario-cluster bootstrap
    (``boot_seed``) behind the rank stability, the Spearman intervals and the interaction
    intervals; interaction p-values from ``n_flips`` wild sign flips (``flip_seed``),
    Holm over the families tested. None without two models on common items."""
    matrix = memory_matrix(table)
    if matrix is None or len(matrix.labels) < 2:
        return None
    clusters = [table.scenario[i] for i in matrix.items]
    strata = [table.source_family[i] for i in matrix.items]
    boot = agreement.stratified_cluster_bootstrap(
        matrix.correct, clusters, strata, n_boot=n_boot, seed=boot_seed
    )
    sources = [s for s in SOURCE_FAMILIES if s in boot.strata]
    accuracy = {s: dict(zip(matrix.labels, boot.accuracy([s]), strict=True)) for s in sources}
    overall = dict(zip(matrix.labels, matrix.correct.mean(axis=0), strict=True))
    stability = None
    if len(matrix.labels) > k:
        order = sorted(range(len(matrix.labels)), key=lambda m: (-overall[matrix.labels[m]], m))
        members = order[:k]
        shares, defined = {}, {}
        for s in sources:
            replicates = boot.replicate_accuracy([s])
            rows = replicates[np.isfinite(replicates).all(axis=1)]
            defined[s] = int(rows.shape[0])
            shares[s] = agreement.top_k_membership(rows, members, k=k) if rows.size else None
        stability = RankStability(tuple(matrix.labels[m] for m in members), k, shares, defined)
    correlations = tuple(agreement.spearman_between_strata(boot)) if len(matrix.labels) >= 3 else ()
    interactions = tuple(
        agreement.family_interactions(
            boot,
            matrix.correct,
            clusters,
            strata,
            matrix.families,
            families=SOURCE_FAMILIES,
            n_flips=n_flips,
            seed=flip_seed,
            alpha=constants.HOLM_ALPHA,
        )
    )
    return ProvenanceAnalysis(
        matrix,
        tuple(sources),
        boot.n_clusters,
        accuracy,
        overall,
        stability,
        correlations,
        interactions,
        n_boot,
        n_flips,
    )


# --- K.3 and K.4 ----------------------------------------------------------------------------


@dataclass(frozen=True)
class GroupAccuracy:
    group: str
    n: int  # predictions pooled
    correct: int
    accuracy: float
    per_setting: dict  # setting -> accuracy pooled over models
    per_model: dict  # label -> Memory-Augmented Avg. within the group


def _memory_columns(table: PredictionTable) -> list[Column]:
    return [c for c in table.columns if c.setting in MEMORY_AUGMENTED_SETTINGS]


def group_accuracy(
    table: PredictionTable, by: str, *, order: Sequence[str] | None = None
) -> list[GroupAccuracy]:
    """Accuracy per group of ``by`` ("stage" for K.3, "character" for K.4) from every
    memory-augmented run: ``accuracy`` pools all predictions of the group (K.3's pooled
    figure); ``per_setting`` pools the models within each setting, and the K.4 figure is
    their mean (:attr:`setting_mean`); ``per_model`` is each model's Memory-Augmented
    Avg. within the group (the family representatives of Fig. 7)."""
    groups_of = getattr(table, by)
    columns = _memory_columns(table)
    present = {groups_of[i] for c in columns for i in c.answers}
    groups = [g for g in (order or []) if g in present] + sorted(present - set(order or []))
    out = []
    for group in groups:
        items = [i for i in table.item_ids if groups_of[i] == group]
        pooled_n = pooled_correct = 0
        setting_sums: dict[str, list[int]] = {}
        model_acc: dict[str, list[float]] = {}
        for col in columns:
            n, correct = _cells(table, col, items)
            if not n:
                continue
            pooled_n += n
            pooled_correct += correct
            sums = setting_sums.setdefault(col.setting, [0, 0])
            sums[0] += n
            sums[1] += correct
            model_acc.setdefault(col.label, []).append(correct / n)
        if not pooled_n:
            continue
        out.append(
            GroupAccuracy(
                group,
                pooled_n,
                pooled_correct,
                pooled_correct / pooled_n,
                {s: c / n for s, (n, c) in setting_sums.items()},
                {label: float(np.mean(v)) for label, v in model_acc.items()},
            )
        )
    return out


def setting_mean(row: GroupAccuracy) -> float:
    """K.4: the mean of the setting-specific pooled accuracies."""
    return float(np.mean(list(row.per_setting.values())))


@dataclass(frozen=True)
class MemoryAverage:
    label: str
    family: str
    settings: dict  # memory-augmented setting -> accuracy of the model's run
    average: float


def memory_averages(table: PredictionTable) -> list[MemoryAverage]:
    """Table 2's Memory-Augmented Avg.: per model, the mean of its memory-augmented runs'
    accuracies (each over the items of its run, failed calls incorrect)."""
    out = []
    for label, cols in _models(table).items():
        accuracy = {}
        for setting in MEMORY_AUGMENTED_SETTINGS:
            if setting in cols:
                n, correct = _cells(table, cols[setting], table.item_ids)
                if n:
                    accuracy[setting] = correct / n
        if accuracy:
            family = next(iter(cols.values())).family
            out.append(
                MemoryAverage(label, family, accuracy, float(np.mean(list(accuracy.values()))))
            )
    return out
