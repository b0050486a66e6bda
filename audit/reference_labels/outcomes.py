"""The reference-label audit's outcomes (Table 14): the counts over the sample and Fleiss'
κ of the three experts, for the adjudicator and admin (they see the key)."""

from dataclasses import dataclass, field

import numpy as np

from adjudication.mcq.models import OPTION_LABELS
from agreement import UndefinedStatisticError, constants, fleiss_kappa
from audit.reference_labels.models import (
    LabelAudit,
    LabelAuditExpert,
    LabelAuditItem,
    LabelSelection,
)
from core import display, plots
from core.protocol import AUDIT_EXPERTS

OUTCOME_ROWS = (
    ("sampled", "Items in the sample"),
    ("agree_3", "All three experts selected the key (3/3)"),
    ("agree_2", "Two of three selected the key (2/3)"),
    ("agree_1", "One of three selected the key (1/3)"),
    ("agree_0", "None selected the key (0/3)"),
    ("awaiting_selection", "Awaiting the experts' selections"),
    ("adjudicated_entered", "Entered adjudication"),
    ("usable_as_is", "Adjudicated: usable as-is"),
    ("edited", "Adjudicated: wording edited"),
    ("key_changed", "Adjudicated: key changed"),
    ("removed", "Adjudicated: removed"),
    ("awaiting_adjudication", "Awaiting the adjudicator"),
    ("approved", "Approved with the existing key, unchanged (3/3 + usable as-is)"),
)


@dataclass
class LabelOutcomes:
    audit: LabelAudit
    counts: dict
    rows: list[dict]  # key, label, n, percent (of the sample)
    kappa: float | None = None
    kappa_ci: tuple[float, float] | None = None
    kappa_items: int = 0
    kappa_note: str = ""
    n_boot: int = 0
    per_item: list[dict] = field(default_factory=list)


def outcome_counts(items: list[dict]) -> dict:
    """Table 14's counts from per-item dicts with ``status``, ``n_on_key``, ``outcome``."""
    counts = dict.fromkeys((k for k, _ in OUTCOME_ROWS), 0)
    counts["sampled"] = len(items)
    for it in items:
        if it["n_on_key"] is None:
            counts["awaiting_selection"] += 1
            continue
        counts[f"agree_{it['n_on_key']}"] += 1
        if it["n_on_key"] < AUDIT_EXPERTS:
            counts["adjudicated_entered"] += 1
        outcome = it["outcome"]
        if outcome in ("usable_as_is", "edited", "key_changed", "removed"):
            counts[outcome] += 1
        elif it["status"] == LabelAuditItem.Status.ADJUDICATING:
            counts["awaiting_adjudication"] += 1
    counts["approved"] = counts["agree_3"] + counts["usable_as_is"]
    return counts


def label_audit_outcomes(*, audit: LabelAudit, n_boot: int = constants.N_BOOTSTRAP):
    """Table 14 over the audit's sample, and Fleiss' κ of the three experts over the four
    options (items all three have submitted), with a percentile bootstrap CI over items
    seeded with the audit's recorded seed. Three queries."""
    positions = dict(
        LabelAuditExpert.objects.filter(audit=audit).values_list("expert_id", "position")
    )
    items = list(
        LabelAuditItem.objects.filter(audit=audit)
        .order_by("position")
        .values(
            "pk",
            "position",
            "item__question_id",
            "character_key",
            "stage",
            "status",
            "key_at_audit",
            "n_on_key",
            "outcome",
        )
    )
    choices: dict[int, dict[int, str]] = {}
    for audit_item_id, expert_id, choice in LabelSelection.objects.filter(
        audit_item__audit=audit, submitted_at__isnull=False
    ).values_list("audit_item_id", "expert_id", "choice"):
        choices.setdefault(audit_item_id, {})[positions.get(expert_id, 0)] = choice
    counts = outcome_counts(items)
    size = counts["sampled"]
    rows = [
        {
            "key": key,
            "label": label,
            "n": counts[key],
            "percent": 100 * counts[key] / size if size else 0.0,
        }
        for key, label in OUTCOME_ROWS
    ]
    per_item = []
    ratings = []
    for it in items:
        chosen = choices.get(it["pk"], {})
        row = {**it, "choices": [chosen.get(p, "") for p in sorted(set(positions.values()))]}
        per_item.append(row)
        if len(chosen) == len(positions) and positions:
            ratings.append([OPTION_LABELS.index(c) for _, c in sorted(chosen.items())])
    result = LabelOutcomes(
        audit=audit, counts=counts, rows=rows, per_item=per_item, kappa_items=len(ratings)
    )
    if not ratings:
        result.kappa_note = "No item has all three selections yet."
        return result
    boot = n_boot if len(ratings) > 1 else 0
    try:
        estimate = fleiss_kappa(
            np.array(ratings),
            n_categories=len(OPTION_LABELS),
            n_boot=boot,
            seed=audit.seed,
            ci_level=constants.CI_LEVEL,
        )
    except UndefinedStatisticError as error:
        result.kappa_note = str(error)
        return result
    result.kappa = estimate.estimate
    result.n_boot = boot
    if estimate.ci_low is not None:
        result.kappa_ci = (estimate.ci_low, estimate.ci_high)
    if estimate.n_undefined:
        result.kappa_note = (
            f"{estimate.n_undefined} of {boot} resamples had every selection in one option "
            "(κ undefined) and are left out of the interval."
        )
    return result


def outcome_plots(outcomes: LabelOutcomes) -> dict:
    """The outcome page's plots by name: the items by agreement with the key and by
    adjudication outcome, as a share of the sample, in two blocks."""
    agreement, outcome = "Experts on the key", "Adjudication outcome"
    short = {
        "agree_3": (agreement, "3 of 3"),
        "agree_2": (agreement, "2 of 3"),
        "agree_1": (agreement, "1 of 3"),
        "agree_0": (agreement, "0 of 3"),
        "usable_as_is": (outcome, "Usable as-is"),
        "edited": (outcome, "Edited"),
        "key_changed": (outcome, "Key changed"),
        "removed": (outcome, "Removed"),
    }
    title = (
        "Items by agreement with the key and by adjudication outcome, "
        "as a share of the sampled items"
    )
    if not outcomes.counts["sampled"]:
        return {
            "outcomes": plots.no_data(
                title, "No item has been sampled for this audit yet, so there is nothing to plot."
            )
        }
    bars = [
        plots.Bar(
            short[r["key"]][1],
            r["percent"] / 100,
            value_text=f"{display.format_count(r['n'])} "
            f"({display.format_percent(r['percent'] / 100)})",
            group=short[r["key"]][0],
        )
        for r in outcomes.rows
        if r["key"] in short
    ]
    return {
        "outcomes": plots.hbar_chart(
            bars,
            title=title,
            x_label="Share of the sampled items",
            y_label="Outcome",
            tick_format=plots.percent_ticks,
            x_range=(0.0, 1.0),
        )
    }
