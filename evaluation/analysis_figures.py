"""Every figure of the evaluation analysis, computed in one pass and stored as JSON (issue #34).

:func:`compute` runs everything whose cost grows with the data (the bootstrap intervals,
the paired permutation tests, the App. K tables) on a
:class:`~evaluation.analysis.PredictionTable`; the worker stores :func:`to_json` of it,
and the page, its CSV, Parquet and plot downloads and the API rows read
:func:`from_json` of the same stored row, so they never disagree and a request never
computes a statistic.

The JSON keeps the dataclasses of :mod:`evaluation.analysis`, :mod:`evaluation.analysis_k`
and ``agreement`` as they are, so the formatting code reads the same objects as before.
Two fields are left out because only the computation needs them: a run's answers per
item (the page shows a run by id, label and setting) and the per-item correctness
matrix behind the provenance analysis (the page shows its item count).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from core import figure_json
from core.life_stages import LIFE_STAGE_KEYS

from . import analysis, analysis_k, analysis_k1

#: The breakdowns of the page and the CSV, in their order: (title, the table's field).
BREAKDOWNS = (
    ("Character", "character"),
    ("Life-stage bin", "stage"),
    ("Answer-key source family", "source_family"),
)


@dataclass(frozen=True)
class AnalysisFigures:
    accuracy: list  # analysis.AccuracyRow
    comparisons: dict  # "settings" / "models" -> [analysis.Comparison]
    breakdowns: dict  # field -> (groups, rows) as analysis.breakdown returns them
    diagnostics: list  # analysis.DisclosureDiagnostic
    matrices: list  # analysis.AgreementMatrix
    memory_averages: list  # analysis_k.MemoryAverage
    memory_settings: list  # the memory-augmented settings with a run, in order
    source_table: analysis_k.SourceTable
    own_source: list  # analysis_k.OwnSource
    provenance: analysis_k.ProvenanceAnalysis | None
    stages: list  # analysis_k.GroupAccuracy per life-stage bin
    characters: list  # analysis_k.GroupAccuracy per character
    # App. K.1's robustness check and distractor counts (None in figures stored before them)
    fixed_effects: analysis_k1.FixedEffectCheck | None = None
    distractors: analysis_k1.DistractorProvenance | None = None


def compute(table: analysis.PredictionTable) -> AnalysisFigures:
    return AnalysisFigures(
        accuracy=analysis.accuracy_rows(table),
        comparisons=analysis.paired_comparisons(table),
        breakdowns={by: analysis.breakdown(table, by) for _, by in BREAKDOWNS},
        diagnostics=analysis.disclosure_diagnostics(table),
        matrices=analysis.agreement_matrices(table),
        memory_averages=analysis_k.memory_averages(table),
        memory_settings=[
            s
            for s in analysis_k.MEMORY_AUGMENTED_SETTINGS
            if any(c.setting == s for c in table.columns)
        ],
        source_table=analysis_k.source_stratified(table),
        own_source=analysis_k.own_source_no_retrieval(table),
        provenance=analysis_k.provenance_analysis(table),
        stages=analysis_k.group_accuracy(table, "stage", order=LIFE_STAGE_KEYS),
        characters=analysis_k.group_accuracy(table, "character"),
        fixed_effects=analysis_k1.item_fixed_effect_check(table),
        distractors=analysis_k1.distractor_provenance(table),
    )


# --- JSON -----------------------------------------------------------------------------------

#: The modules whose dataclasses a stored result may name (nothing else is rebuilt).
TRUSTED_MODULES = (
    "evaluation.analysis",
    "evaluation.analysis_k",
    "evaluation.analysis_k1",
    "agreement.",
)
#: Bumped when the figures gain a section, so reports stored before are computed again.
FIGURES_VERSION = 2


def _light(obj):
    """The stored form of the two objects whose bulk only the computation reads."""
    if isinstance(obj, analysis.Column):
        return dataclasses.replace(obj, answers={}, failed=frozenset())
    if isinstance(obj, analysis_k.MemoryMatrix):
        return dataclasses.replace(obj, correct=np.zeros((0, len(obj.labels))))
    return obj


def to_json(figures: AnalysisFigures) -> dict:
    return figure_json.to_json(figures, shrink=_light)


def from_json(data: dict) -> AnalysisFigures:
    return figure_json.from_json(data, trusted_modules=(*TRUSTED_MODULES, __name__))
