"""The App. J report (Table 19) from a raw answer matrix: a pure core over ``agreement``.

No Django: the service turns rows into the arrays below, this computes, the service stores
the JSON-ready dict it returns. Every statistic is the ``agreement`` function of the same
name with the one seed (App. J: 10,000 resamples, seed 20261012).

Two inputs come from outside the subset and are passed in, never derived here: the final
set's item counts by source (the reweighting's targets) and the best model, fixed before
the report (choosing it on the subset would favour the model that happens to do well on
these items).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction

import numpy as np

from agreement import (
    BootstrapEstimate,
    encode_categories,
    human_baseline_summary,
    human_model_difference,
    reweighted_accuracy,
)

OPTIONS = "ABCD"
PAPER_SOURCE_ORDER = ("gemini", "claude", "gpt", "expert_rewrite")
#: App. J: "at least three of the four" annotators, read as a share of the annotators who
#: answered (every finalized participant answers every item), so that a study with more or
#: fewer than four participants keeps the paper's bar rather than an absolute three.
MIN_CORRECT_SHARE = Fraction(3, 4)


def min_correct_for(n_annotators: int) -> int:
    """The fewest correct annotators that make at least ``MIN_CORRECT_SHARE`` of them."""
    return max(1, math.ceil(MIN_CORRECT_SHARE * n_annotators))


def _estimate(value: BootstrapEstimate) -> dict:
    return {
        "estimate": float(value.estimate),
        "ci_low": None if value.ci_low is None else float(value.ci_low),
        "ci_high": None if value.ci_high is None else float(value.ci_high),
        "n_boot": int(value.n_boot),
    }


def model_correctness(predictions: Sequence[str | None], keys: Sequence[str]) -> np.ndarray:
    """0/1 per item; a missing or invalid prediction is incorrect (seed 000 §3.1, L.1)."""
    return np.array(
        [p is not None and p == k for p, k in zip(predictions, keys, strict=True)], dtype=float
    )


def build_report(
    *,
    answers: Sequence[Sequence[str]],
    keys: Sequence[str],
    sources: Sequence[str],
    annotators: Sequence[str],
    model_predictions: Mapping[str, Sequence[str | None]],
    seed: int,
    n_boot: int,
    n_permutations: int,
    target_counts: Mapping[str, int],
    n_without_source: int = 0,
    best_model: str | None = None,
    best_model_basis: Mapping | None = None,
    excluded_models: Mapping[str, int] | None = None,
) -> dict:
    """``answers`` is ``(n_items, n_annotators)`` letters; ``model_predictions`` maps a model
    label to one letter (or None, scored incorrect) per item, in the same item order;
    ``target_counts`` are the final set's items per source (App. J reweights to them; a
    source the subset has no item of cannot be weighted and is named); ``best_model`` is the
    label fixed before the report (``best_model_basis`` says how, passed through), None
    for no best-model row; ``excluded_models`` (label → items covered) is passed through
    for the report to name."""
    codes = encode_categories(np.asarray(answers, dtype=object), OPTIONS)
    # App. J's "at least three of the four" as a share: 3 of 4, 2 of 2, 3 of 3, 4 of 5, 6 of 8.
    min_correct = min_correct_for(codes.shape[1])
    key_codes = encode_categories(np.asarray(keys, dtype=object), OPTIONS)
    present = sorted(set(sources))
    targets = {s: int(target_counts[s]) for s in present if s in target_counts}
    unweighted = {s: int(n) for s, n in target_counts.items() if n and s not in present}
    model_correct = {
        label: model_correctness(preds, keys) for label, preds in model_predictions.items()
    }
    accuracy = {label: float(c.mean()) for label, c in model_correct.items()}
    comparisons = {}
    best = best_model if best_model in model_correct else None
    if best:
        comparisons[f"best:{best}"] = model_correct[best]
    if model_correct:
        comparisons["mean_of_models"] = np.column_stack(list(model_correct.values()))
    summary = human_baseline_summary(
        codes,
        key_codes,
        n_options=len(OPTIONS),
        seed=seed,
        n_boot=n_boot,
        min_correct=min_correct,
        sources=list(sources),
        target_counts=targets if len(targets) == len(present) else None,
        n_permutations=n_permutations if len(present) > 1 else 0,
        model_correct=comparisons,
    )
    per_model = {
        label: {
            "accuracy": accuracy[label],
            "difference": _estimate(
                human_model_difference(
                    codes == key_codes[:, None], model_correct[label], n_boot=n_boot, seed=seed
                )
            ),
        }
        for label in sorted(model_correct)
    }
    source_items = {s: int(sum(1 for x in sources if x == s)) for s in present}
    human_correct = codes == key_codes[:, None]
    table = [_table_row("Humans (mean of annotators)", human_correct, sources, targets, present)]
    if best:
        table.append(
            _table_row(f"Best model: {best}", model_correct[best], sources, targets, present)
        )
    if model_correct:
        table.append(
            _table_row(
                f"Mean of {len(model_correct)} models",
                comparisons["mean_of_models"],
                sources,
                targets,
                present,
            )
        )
        table += [
            _table_row(label, model_correct[label], sources, targets, present)
            for label in sorted(model_correct)
        ]
    return {
        "n_items": summary.n_items,
        "n_annotators": summary.n_annotators,
        "seed": seed,
        "n_boot": n_boot,
        "n_permutations": n_permutations,
        "mean_accuracy": _estimate(summary.mean_accuracy),
        "per_annotator": dict(
            zip(annotators, (float(a) for a in summary.per_annotator), strict=True)
        ),
        "min_correct": min_correct,
        "share_correct_by_min": summary.share_correct_by_min,
        "plurality": {
            "accuracy": summary.plurality.accuracy,
            "n_correct": summary.plurality.n_correct,
            "n_tied": summary.plurality.n_tied,
            "n_outvoted": summary.plurality.n_outvoted,
        },
        "fleiss_kappa": _estimate(summary.fleiss_kappa),
        "source_items": source_items,
        "per_source": (
            dict(summary.source_test.per_source)
            if summary.source_test
            else {
                s: float((codes == key_codes[:, None])[np.asarray(sources) == s].mean())
                for s in present
            }
        ),
        "source_test": (
            {
                "observed_range": summary.source_test.observed_range,
                "p_value": summary.source_test.p_value,
                "n_permutations": summary.source_test.n_permutations,
            }
            if summary.source_test
            else None
        ),
        "reweighted": (
            {"estimate": summary.reweighted.estimate, "weights": dict(summary.reweighted.weights)}
            if summary.reweighted
            else None
        ),
        "target_counts": dict(targets),
        "final_set": {
            "counts": {s: int(n) for s, n in target_counts.items()},
            "unweighted": unweighted,
            "n_without_source": int(n_without_source),
        },
        "models": per_model,
        "table19": table,
        "excluded_models": dict(excluded_models or {}),
        "best_model": best,
        "best_model_basis": dict(best_model_basis) if best_model_basis else None,
        # A best model fixed before the report that was not graded on every subset item.
        "best_model_missing": best_model if best_model and not best else None,
        "best_model_difference": (
            _estimate(summary.model_differences[f"best:{best}"]) if best else None
        ),
        "mean_of_models": (
            {
                "accuracy": float(np.mean(list(accuracy.values()))),
                "n_models": len(accuracy),
                "difference": _estimate(summary.model_differences["mean_of_models"]),
            }
            if model_correct
            else None
        ),
    }


def _table_row(name, correct, sources, targets, present) -> dict:
    """One row of the Table 19 layout: overall, per source, reweighted (proportions)."""
    item_accuracy = np.asarray(correct, dtype=float)
    if item_accuracy.ndim == 2:
        item_accuracy = item_accuracy.mean(axis=1)
    labels = np.asarray(sources)
    row = {
        "name": name,
        "overall": float(item_accuracy.mean()),
        "per_source": {s: float(item_accuracy[labels == s].mean()) for s in present},
        "reweighted": None,
    }
    if len(targets) == len(present):
        row["reweighted"] = reweighted_accuracy(
            item_accuracy, list(sources), target_counts=targets
        ).estimate
    return row


def source_order(counts: Mapping[str, int]) -> list[tuple[str, int]]:
    """``(source, count)`` in the paper's order (Gemini, Claude, GPT, then the rest by
    name): a stored JSON object does not keep its keys' order."""
    rank = {s: n for n, s in enumerate(PAPER_SOURCE_ORDER)}
    return sorted(counts.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0]))


def report_rows(results: dict) -> list[tuple[str, str, float | None, float | None, float | None]]:
    """(section, name, estimate, ci_low, ci_high) rows of the CSV export and the table."""
    rows = []

    def add(section, name, value, low=None, high=None):
        rows.append((section, name, value, low, high))

    m = results["mean_accuracy"]
    add("humans", "mean annotator accuracy", m["estimate"], m["ci_low"], m["ci_high"])
    for name, value in results["per_annotator"].items():
        add("humans", f"annotator {name}", value)
    add(
        "humans",
        f"items correct by at least {results['min_correct']} annotators",
        results["share_correct_by_min"],
    )
    add("humans", "plurality-vote accuracy (ties incorrect)", results["plurality"]["accuracy"])
    k = results["fleiss_kappa"]
    add("agreement", "Fleiss' kappa (four options)", k["estimate"], k["ci_low"], k["ci_high"])
    for source, value in results["per_source"].items():
        add("sources", f"human accuracy on {source}-origin items", value)
    if results["source_test"]:
        add("sources", "source permutation test p", results["source_test"]["p_value"])
    if results["reweighted"]:
        counts = ", ".join(f"{s} {n}" for s, n in source_order(results["target_counts"]))
        add(
            "sources",
            f"reweighted human accuracy (final set: {counts})",
            results["reweighted"]["estimate"],
        )
    if results.get("best_model"):
        d = results["best_model_difference"]
        add(
            "models",
            f"human − best model {results['best_model']} (fixed before the report)",
            d["estimate"],
            d["ci_low"],
            d["ci_high"],
        )
    for label, model in results["models"].items():
        add("models", f"{label} accuracy", model["accuracy"])
        d = model["difference"]
        add("models", f"human − {label} (difference)", d["estimate"], d["ci_low"], d["ci_high"])
    if results["mean_of_models"]:
        mean = results["mean_of_models"]
        add("models", f"mean of {mean['n_models']} models accuracy", mean["accuracy"])
        d = mean["difference"]
        add("models", "human − model mean (difference)", d["estimate"], d["ci_low"], d["ci_high"])
    return rows
