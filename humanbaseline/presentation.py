"""What the admin pages show of a selection's record and of a report: tables and plots
built from stored JSON, no query."""

from core import display, plots
from core.protocol import CHANCE_LEVEL

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
        how = "set by hand" if group in overrides else "scaled (the paper's rule)"
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


def report_plots(results: dict) -> dict[str, plots.Scene]:
    """The report's plots by name: accuracy of humans (with the 95% interval of the mean),
    of each participant and of each model; human accuracy by answer-key source."""

    def bar(label, value, low=None, high=None, colour=""):
        return plots.Bar(label, value, low, high, display.format_percent(value), colour=colour)

    people, models = plots.PALETTE[0], plots.PALETTE[1]
    m = results["mean_accuracy"]
    accuracy = [bar("Humans (mean)", m["estimate"], m["ci_low"], m["ci_high"], people)]
    accuracy += [
        bar(f"Participant {name}", v, colour=people) for name, v in results["per_annotator"].items()
    ]
    accuracy += [
        bar(label, model["accuracy"], colour=models) for label, model in results["models"].items()
    ]
    chance = [plots.Reference(CHANCE_LEVEL, "Chance level (25%, one of four options)")]
    sources = display.sort_families(list(results["per_source"].items()), key=lambda kv: kv[0])
    return {
        "accuracy": plots.hbar_chart(
            accuracy,
            title="Accuracy on the subset: humans, each participant and each model",
            x_label="Accuracy on the subset",
            y_label="Who answered",
            tick_format=plots.percent_ticks,
            x_range=(0.0, 1.0),
            references=chance,
            categories=[(people, "Humans"), (models, "Models")]
            if results["models"]
            else [(people, "Humans")],
            interval_label="95% CI of the mean (item × participant bootstrap)",
        ),
        "sources": plots.hbar_chart(
            [bar(f"{display.family_label(s)}-origin items", v) for s, v in sources],
            title="Human accuracy by answer-key source",
            x_label="Human accuracy",
            y_label="Answer-key source",
            tick_format=plots.percent_ticks,
            x_range=(0.0, 1.0),
            references=chance,
            series_label="Human accuracy",
        ),
    }


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
