"""The evaluation analysis as a stored report (issue #34).

``evaluation.analysis`` is the whole analysis (:mod:`evaluation.analysis_figures`): what
the analysis page, its CSV, Parquet and plot downloads and the API rows read, the paired
permutation tests among them. Rows stored under the former kind
``evaluation.paired_comparisons`` (the paired tests alone, which no page read) are left
as they are; nothing reads or queues them.

It is keyed by the chosen run ids (comma-joined, "" for the default choice: the latest
run of each model and setting). Their inputs are the runs chosen, their status
and finish time, their predictions (count and last id), the items those predictions
answer (key, version and reference: an adjudicated key changes the accuracy) and the
seeds and resample counts: a new or re-run run or a changed key changes the fingerprint.
"""

import hashlib

from django.db.models import Count, Max

from adjudication.mcq.models import McqItem
from core.reports.services import Inputs, register

from . import analysis, analysis_figures, selectors
from .models import EvaluationPrediction

ANALYSIS_KIND = "evaluation.analysis"


def key_for(run_ids) -> str:
    return ",".join(str(i) for i in sorted(set(run_ids)))


def _runs(key: str):
    return selectors.analysis_runs([int(x) for x in key.split(",") if x] or None)


def inputs(key: str) -> Inputs:
    runs = _runs(key)
    predictions = EvaluationPrediction.objects.filter(run__in=runs).aggregate(
        n=Count("pk"), last=Max("pk")
    )
    identity = {
        "runs": [[r.pk, r.status, r.finished_at] for r in sorted(runs, key=lambda r: r.pk)],
        "predictions": predictions,
        "items": _items_signature(runs),
        "seed": analysis.PERMUTATION_SEED,
        "permutations": analysis.N_PERMUTATIONS,
        "bootstrap": [analysis.BOOTSTRAP_SEED, analysis.N_BOOTSTRAP],
        "figures": analysis_figures.FIGURES_VERSION,
    }
    ids = ", ".join(str(r.pk) for r in sorted(runs, key=lambda r: r.pk)) or "none"
    described = (
        f"{len(runs)} run{'s' if len(runs) != 1 else ''} ({ids}), "
        f"{predictions['n']} predictions, seed {analysis.PERMUTATION_SEED}"
    )
    return Inputs(identity=identity, described=described)


def _items_signature(runs) -> list:
    """The number of items the runs answered and one digest of their keys, versions and
    references (hashed here: the demo also runs on SQLite, which has no string_agg)."""
    rows = (
        McqItem.objects.filter(
            pk__in=EvaluationPrediction.objects.filter(run__in=runs).values("item_id")
        )
        .order_by("pk")
        .values_list("pk", "correct_answer", "version", "reference_id")
    )
    digest = hashlib.sha256()
    n = 0
    for row in rows.iterator(chunk_size=5000):
        digest.update(repr(row).encode())
        n += 1
    return [n, digest.hexdigest()]


def compute_analysis(key: str) -> dict:
    """Every figure of the analysis page, in :func:`analysis_figures.to_json`'s form."""
    figures = analysis_figures.compute(selectors.prediction_table(_runs(key)))
    return analysis_figures.to_json(figures)


register(ANALYSIS_KIND, inputs=inputs, compute=compute_analysis)
