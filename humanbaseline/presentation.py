"""What the admin pages show of a selection's record and of a report: tables and chart
geometry built from stored JSON, no query."""

from .report import report_rows, source_order
from .subset import BALANCE_GROUPS, GROUP_LABELS


def range_rows(parameters: dict) -> list[dict]:
    """The quota and balance rows of a selection's (or proposal's) record, for a table."""
    if not parameters or "quotas" not in parameters:
        return []
    overrides, slack = parameters.get("overrides", {}), parameters.get("slack", {})
    rows = [
        {
            "label": GROUP_LABELS["source"],
            "ranges": {s: str(q) for s, q in parameters["quotas"].items()},
            "how": "quota",
        }
    ]
    for group in BALANCE_GROUPS:
        how = "set by hand" if group in overrides else "scaled (App. J's rule)"
        if slack.get(group):
            how += f", tolerance ±{slack[group]}"
        rows.append(
            {
                "label": GROUP_LABELS[group],
                "ranges": parameters.get("ranges", {}).get(group, {}),
                "how": how,
            }
        )
    return rows


def display_rows(results: dict) -> list[dict]:
    """Accuracies and differences in percent (one decimal, as Table 19); κ and p as is."""
    rows = []
    for section, name, value, low, high in report_rows(results):
        raw = "kappa" in name or name.endswith(" p")
        fmt = (lambda v: f"{v:.3f}") if raw else (lambda v: f"{100 * v:.1f}")
        rows.append(
            {
                "section": section,
                "name": name,
                "value": fmt(value),
                "ci": "" if low is None else f"{fmt(low)}–{fmt(high)}",
            }
        )
    return rows


def table19_rows(results: dict) -> list[dict]:
    """The Table 19 layout in percent, one decimal; sources in the report's order."""

    def pct(v):
        return "–" if v is None else f"{100 * v:.1f}"

    return [
        {
            "name": row["name"],
            "overall": pct(row["overall"]),
            "per_source": [pct(row["per_source"].get(s)) for s in results["source_items"]],
            "reweighted": pct(row["reweighted"]),
        }
        for row in results.get("table19", [])
    ]


def charts(results: dict) -> list[dict]:
    """Bars (percent) with optional CI whiskers for the report's inline SVG plots."""

    def bar(label, value, low=None, high=None):
        return {
            "label": label,
            "value": round(100 * value, 1),
            "low": None if low is None else round(100 * low, 1),
            "high": None if high is None else round(100 * high, 1),
        }

    m = results["mean_accuracy"]
    accuracy = [bar("Humans (mean)", m["estimate"], m["ci_low"], m["ci_high"])]
    accuracy += [bar(f"Annotator {name}", v) for name, v in results["per_annotator"].items()]
    accuracy += [bar(label, model["accuracy"]) for label, model in results["models"].items()]
    sources = [bar(f"{s}-origin", v) for s, v in results["per_source"].items()]
    return [
        {"title": title, "bars": _layout(bars), "height": 16 + 26 * len(bars)}
        for title, bars in (
            ("Accuracy on the subset (%)", accuracy),
            ("Human accuracy by answer-key source (%)", sources),
        )
    ]


def _layout(bars: list[dict]) -> list[dict]:
    """Pixel geometry of horizontal bars on a 0–100 axis, 400 px wide."""
    for n, b in enumerate(bars):
        b["y"] = 8 + 26 * n
        b["width"] = round(4 * b["value"], 1)
        b["label_x"] = b["width"] + 204
        if b["low"] is not None:
            b["x_low"], b["x_high"] = round(4 * b["low"], 1), round(4 * b["high"], 1)
            b["label_x"] = max(b["width"], b["x_high"]) + 204
    return bars


def best_model_view(results: dict) -> dict | None:
    """How the report's best model was fixed, for the sentence under Table 19."""
    basis = results.get("best_model_basis")
    if not basis:
        return None
    return {
        **basis,
        "chosen_on": basis["chosen_at"][:16].replace("T", " "),
        "runs_text": ", ".join(f"{r['label']} {100 * r['accuracy']:.1f}%" for r in basis["runs"]),
        "changes": [
            {**c, "on": c["at"][:16].replace("T", " "), "from": c["from"] or "(none)"}
            for c in basis["changes_after_answers"]
        ],
    }


def reweighting_view(results: dict) -> dict:
    """The final-set counts the report reweighted to, in the paper's source order."""
    final_set = results.get("final_set") or {}
    return {
        "targets": source_order(results.get("target_counts", {})),
        "final_set": source_order(final_set.get("counts", {})),
        "unweighted": source_order(final_set.get("unweighted", {})),
        "n_without_source": final_set.get("n_without_source", 0),
    }
