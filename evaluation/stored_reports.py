"""The evaluation analysis's paired permutation tests as a stored report (issue #34).

The kind ``evaluation.paired_comparisons`` is keyed by the chosen run ids (comma-joined,
"" for the default choice: the latest run of each model and setting). Its inputs are the
runs chosen, their status and finish time, their predictions (count and last id) and the
permutation seed and count: a new or re-run run changes the fingerprint.
"""

from django.db.models import Count, Max

from core.reports.services import Inputs, register

from . import analysis, selectors
from .models import EvaluationPrediction

KIND = "evaluation.paired_comparisons"


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
        "seed": analysis.PERMUTATION_SEED,
        "permutations": analysis.N_PERMUTATIONS,
    }
    ids = ", ".join(str(r.pk) for r in sorted(runs, key=lambda r: r.pk)) or "none"
    described = (
        f"{len(runs)} run{'s' if len(runs) != 1 else ''} ({ids}), "
        f"{predictions['n']} predictions, seed {analysis.PERMUTATION_SEED}"
    )
    return Inputs(identity=identity, described=described)


def compute(key: str) -> dict:
    """The two Holm families, each comparison with its runs named by id, label, setting."""
    table = selectors.prediction_table(_runs(key))

    def column(c):
        return {"run_id": c.run_id, "label": c.label, "setting": c.setting}

    return {
        family: [
            {
                "kind": c.kind,
                "a": column(c.a),
                "b": column(c.b),
                "n_items": c.n_items,
                "difference": c.difference,
                "p_value": c.p_value,
                "p_holm": c.p_holm,
                "reject": bool(c.reject),
            }
            for c in comparisons
        ]
        for family, comparisons in analysis.paired_comparisons(table).items()
    }


register(KIND, inputs=inputs, compute=compute)
