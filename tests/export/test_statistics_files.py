"""The statistics export (issue #23): every statistics table as CSV and Parquet, loadable
by pandas with the same columns, byte-identical on a second build of unchanged data."""

import io

import pandas as pd
import pytest

from adjudication.export.statistics import STEPS, statistics_files
from tests.arbitration.test_analytics import decided  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db

TABLES = {
    "profile_review_outcomes",
    "memory_audit_outcomes",
    "memory_audit_criteria",
    "diamonds_final_ratings",
    "scenarios_per_life_stage",
    "diamonds_agreement",
    "comparison_outcomes",
    "arbitration_analytics",
    "judge_report",
    "blinding_report",
    "label_audit_outcomes",
    "label_audit_items",
    "baseline_report",
    "evaluation_analysis",
}


def test_every_table_loads_with_pandas_and_two_builds_are_byte_identical(decided):  # noqa: F811
    seen = []
    files = statistics_files(lambda done, total, step: seen.append((done, total, step)))
    assert set(files) == {f"{t}.{ext}" for t in TABLES for ext in ("csv", "parquet")}
    for name in TABLES:
        from_csv = pd.read_csv(io.BytesIO(files[f"{name}.csv"]))
        from_parquet = pd.read_parquet(io.BytesIO(files[f"{name}.parquet"]))
        assert list(from_csv.columns) == list(from_parquet.columns), name
        assert len(from_csv) == len(from_parquet), name
    outcomes = pd.read_parquet(io.BytesIO(files["comparison_outcomes.parquet"]))
    assert outcomes[outcomes.statistic == "pairs"].value.item() == 4
    # The export is the admin's view: the source families are there.
    assert "references_by_source_family" in set(outcomes.statistic)
    analytics = pd.read_csv(io.BytesIO(files["arbitration_analytics.csv"]))
    assert set(analytics.annotator) >= {"cmp-annotator-1", "cmp-annotator-2", "(all)"}
    # Empty tables keep their typed schema.
    empty = pd.read_parquet(io.BytesIO(files["baseline_report.parquet"]))
    assert len(empty) == 0 and str(empty.dtypes["estimate"]) == "float64"

    assert [s[0] for s in seen] == list(range(len(STEPS) + 1))
    assert all(total == len(STEPS) for _, total, _ in seen) and seen[-1][2] == "done"
    assert statistics_files() == files
