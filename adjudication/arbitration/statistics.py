"""The comparison outcomes (App. D.2) and the arbitration analytics (issue 22) as tidy
tables (core.tidy_tables): the pages' CSV and Parquet downloads, the API rows and
the statistics export read these builders, so their columns never drift apart."""

from adjudication.arbitration import analytics, selectors
from core.tidy_tables import TidySpec, TidyTable

COMPARISON_OUTCOMES = TidySpec(
    "comparison_outcomes",
    {
        "statistic": str,
        "category": str,
        "value": float,
        "ci_low": float,
        "ci_high": float,
        "n": int,
    },
    "One row per outcome statistic of the comparison workflow (App. D.2); a count or a "
    "share in value, a category where the statistic has several (pair status, source "
    "family, edit-rate bin, displayed letter).",
)

ARBITRATION_ANALYTICS = TidySpec(
    "arbitration_analytics",
    {
        "annotator": str,
        "statistic": str,
        "hits": int,
        "n": int,
        "share": float,
        "ci_low": float,
        "ci_high": float,
        "ci_method": str,
    },
    "One row per annotator and statistic (agreement with the final reference, overturned, "
    "revision guidance followed; Wilson intervals), then the agreement-lift rows of all "
    "annotators ((all); bootstrap intervals over pairs).",
)


def comparison_outcomes_table(*, families: bool, outcomes=None) -> TidyTable:
    """``families``: whether the reader may see the source families (admins; arbitrators
    when the adjudication settings allow)."""
    o = outcomes or selectors.comparison_outcomes()
    rows = [{"statistic": "pairs", "value": o.pairs_total, "n": o.pairs_total}]
    rows += [
        {"statistic": "pairs_by_status", "category": k, "value": v, "n": o.pairs_total}
        for k, v in o.by_status.items()
    ]
    rows += [
        {"statistic": "discarded_at_suitability", "value": o.discarded_at_suitability},
        {"statistic": "discarded_at_arbitration", "value": o.discarded_at_arbitration},
        {"statistic": "adopted_unanimously", "value": o.unanimous},
        {"statistic": "adopted_unanimously_share", "value": o.unanimous_share},
    ]
    if families:
        total = sum(o.references_by_family.values())
        rows += [
            {"statistic": "references_by_source_family", "category": k, "value": v, "n": total}
            for k, v in o.references_by_family.items()
        ]
    for name, rates, bins in (
        ("keyed_decision", o.keyed_edit_rates, o.keyed_edit_rate_bins),
        ("all_fields", o.edit_rates, o.edit_rate_bins),
    ):
        mean = sum(rates) / len(rates) if rates else None
        rows.append({"statistic": f"mean_word_edit_rate_{name}", "value": mean, "n": len(rates)})
        rows += [
            {
                "statistic": f"word_edit_rate_{name}_bin",
                "category": label,
                "value": count,
                "n": len(rates),
            }
            for label, count in bins
        ]
    ci = o.kappa_ci or (None, None)
    rows.append(
        {
            "statistic": "fleiss_kappa",
            "value": o.kappa,
            "ci_low": ci[0],
            "ci_high": ci[1],
            "n": o.kappa_items,
        }
    )
    rows += [
        {"statistic": "selected_letter", "category": k, "value": v, "n": o.position_total}
        for k, v in o.position_counts.items()
    ]
    return COMPARISON_OUTCOMES.table(rows)


def arbitration_analytics_table(result=None) -> TidyTable:
    result = result or analytics.arbitration_analytics()
    rows = result.csv_rows()
    header = next(rows)
    assert tuple(header) == tuple(ARBITRATION_ANALYTICS.columns)
    return ARBITRATION_ANALYTICS.table(
        {k: None if v == "" else v for k, v in zip(header, row, strict=True)} for row in rows
    )
