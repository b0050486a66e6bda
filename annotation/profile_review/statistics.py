"""The initial profile-review outcomes (like seed 000 Table 6) as a tidy table
(core.tidy_tables), for the page's CSV and Parquet downloads, the API rows and
the statistics export."""

from annotation.profile_review import selectors
from core.roles import Role
from core.tidy_tables import TidySpec, TidyTable, tidy_api

PROFILE_REVIEW_OUTCOMES = TidySpec(
    "profile_review_outcomes",
    {"outcome": str, "label": str, "profiles": int, "percent": float, "characters": str},
    "One row per initial-review outcome (seed 000 Table 6), in the paper's order: the "
    "number of profiles, their percent of every profile and the character keys "
    "(space-separated), from the latest review round of each character.",
)


def profile_review_outcomes_table() -> TidyTable:
    table = selectors.profile_outcome_table()
    return PROFILE_REVIEW_OUTCOMES.table(
        {
            "outcome": r.key,
            "label": r.label,
            "profiles": r.count,
            "percent": r.percent,
            "characters": " ".join(r.characters),
        }
        for r in table.rows
    )


ProfileReviewOutcomeRowsApi = tidy_api(
    PROFILE_REVIEW_OUTCOMES,
    lambda request: profile_review_outcomes_table(),
    roles=[Role.ARBITRATOR, Role.ADMIN],
    summary="Initial profile-review outcomes as tidy rows",
    description=PROFILE_REVIEW_OUTCOMES.description,
    example={
        "outcome": "local_1",
        "label": "Local revision requested by one reviewer",
        "profiles": 2,
        "percent": 18.2,
        "characters": "CHAR_03 CHAR_07",
    },
)
