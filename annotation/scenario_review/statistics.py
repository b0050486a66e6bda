"""Scenario coverage (App. C.2, Table 13) as tidy tables (core.tidy_tables): the
final DIAMONDS ratings, the scenarios per life-stage bin and the agreement before
re-assessment, for the page's CSV and Parquet downloads, the API rows and the statistics
export."""

from annotation.scenario_review import selectors
from core.roles import Role
from core.tidy_tables import TidySpec, TidyTable, tidy_api

DIAMONDS_FINAL_RATINGS = TidySpec(
    "diamonds_final_ratings",
    {"dimension": str, "label": str, "rating": int, "scenarios": int},
    "One row per DIAMONDS dimension and rating on the 1-7 scale: how many scenarios have "
    "that final rating (Table 13).",
)
SCENARIOS_PER_LIFE_STAGE = TidySpec(
    "scenarios_per_life_stage",
    {
        "life_stage": str,
        "label": str,
        "age_range": str,
        "scenarios": int,
        "target": int,
        "reviewed": int,
        "identity_anchor_hits": str,
    },
    "One row per life-stage bin: its scenarios against the protocol's target, how many "
    "finished review, and the scenarios whose text may anchor an identity (space-separated).",
)
DIAMONDS_AGREEMENT = TidySpec(
    "diamonds_agreement",
    {
        "dimension": str,
        "units": int,
        "exact_agreement_pct": float,
        "within_one_pct": float,
        "krippendorff_alpha_ordinal": float,
        "cohen_kappa_linear": float,
        "cohen_kappa_quadratic": float,
    },
    "One row per DIAMONDS dimension: the two independent pass-2 ratings' agreement before "
    "re-assessment over the scenarios both reviewers rated (coefficients to 3 decimals; "
    "empty where undefined).",
)


def diamonds_final_ratings_table(coverage=None) -> TidyTable:
    coverage = coverage or selectors.scenario_coverage()
    return DIAMONDS_FINAL_RATINGS.table(
        {"dimension": r.field, "label": r.label, "rating": rating, "scenarios": n}
        for r in coverage.distribution
        for rating, n in zip(coverage.scale, r.counts, strict=True)
    )


def scenarios_per_life_stage_table(coverage=None) -> TidyTable:
    coverage = coverage or selectors.scenario_coverage()
    return SCENARIOS_PER_LIFE_STAGE.table(
        {
            "life_stage": s.key,
            "label": s.label,
            "age_range": s.age_range,
            "scenarios": s.total,
            "target": coverage.per_stage_target,
            "reviewed": s.complete,
            "identity_anchor_hits": " ".join(s.anchored),
        }
        for s in coverage.stages
    )


def diamonds_agreement_table(coverage=None) -> TidyTable:
    coverage = coverage or selectors.scenario_coverage()
    return DIAMONDS_AGREEMENT.table(
        {
            "dimension": a.label,
            "units": a.n_units,
            "exact_agreement_pct": a.exact,
            "within_one_pct": a.within_one,
            "krippendorff_alpha_ordinal": a.alpha.value,
            "cohen_kappa_linear": a.kappa_linear.value,
            "cohen_kappa_quadratic": a.kappa_quadratic.value,
        }
        for a in coverage.agreement
    )


#: The page's tables by URL slug, in the page's order.
TABLES = {
    "ratings": diamonds_final_ratings_table,
    "life-stages": scenarios_per_life_stage_table,
    "agreement": diamonds_agreement_table,
}

READERS = [Role.SCENARIO_REVIEWER, Role.ADMIN]

DiamondsFinalRatingRowsApi = tidy_api(
    DIAMONDS_FINAL_RATINGS,
    lambda request: diamonds_final_ratings_table(),
    roles=READERS,
    summary="Final DIAMONDS ratings as tidy rows",
    description=DIAMONDS_FINAL_RATINGS.description,
    example={"dimension": "duty", "label": "Duty", "rating": 5, "scenarios": 12},
)
ScenariosPerLifeStageRowsApi = tidy_api(
    SCENARIOS_PER_LIFE_STAGE,
    lambda request: scenarios_per_life_stage_table(),
    roles=READERS,
    summary="Scenarios per life-stage bin as tidy rows",
    description=SCENARIOS_PER_LIFE_STAGE.description,
    example={
        "life_stage": "school_age",
        "label": "School age",
        "age_range": "6-12",
        "scenarios": 8,
        "target": 8,
        "reviewed": 8,
        "identity_anchor_hits": "",
    },
)
DiamondsAgreementRowsApi = tidy_api(
    DIAMONDS_AGREEMENT,
    lambda request: diamonds_agreement_table(),
    roles=READERS,
    summary="DIAMONDS agreement before re-assessment as tidy rows",
    description=DIAMONDS_AGREEMENT.description,
    example={
        "dimension": "Duty",
        "units": 64,
        "exact_agreement_pct": 62.5,
        "within_one_pct": 93.8,
        "krippendorff_alpha_ordinal": 0.812,
        "cohen_kappa_linear": 0.701,
        "cohen_kappa_quadratic": 0.846,
    },
)
