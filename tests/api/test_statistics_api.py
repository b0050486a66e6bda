"""Statistics as tidy tables (issue #23): each statistic's CSV and Parquet downloads and its
API rows carry the same columns and the same values, checked against an independent
computation; the roles of the page apply to all three."""

import io

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from django.test import Client
from django.urls import reverse
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from adjudication.arbitration import stored_reports as arbitration_reports
from annotation.comparison.models import ComparisonJudgment
from audit.memory_quality.models import MemoryCase
from audit.reference_labels import stored_reports as label_reports
from audit.reference_labels.models import LabelAuditItem
from core.roles import Role
from evaluation.models import Setting
from humanbaseline.models import BaselineReport
from humanbaseline.report import build_report
from tests.arbitration.test_analytics import decided  # noqa: F401 (fixture)
from tests.evaluation.conftest import admin_user  # noqa: F401 (fixture)
from tests.evaluation.test_analysis import RUNS, imported, vector  # noqa: F401 (fixture)
from tests.humanbaseline.conftest import make_study
from tests.judging.test_report import run  # noqa: F401 (fixture)
from tests.judging.test_report_page import independent_figures
from tests.memory_quality.test_pages import audited  # noqa: F401 (fixture)
from tests.reference_labels.conftest import make_team, team  # noqa: F401 (fixture)
from tests.reference_labels.test_outcomes import EXPECTED, played  # noqa: F401 (fixture)
from tests.review.conftest import annotators, scenario_reviewers  # noqa: F401 (fixtures)
from tests.review.test_coverage import FIELDS, RATINGS, reviewed  # noqa: F401 (fixture)
from tests.review.test_outcomes import paper_fixture  # noqa: F401 (fixture)
from tests.stored_reports import compute_analysis, compute_judge_report, computed

pytestmark = pytest.mark.django_db


def page_client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def tidy_three_ways(page, api, page_url: str, api_url: str):
    """The table from the page's CSV link, its Parquet link and the API (every page of
    rows); asserts the three name the same columns in the same order and hold the same
    rows. Returns the rows as a DataFrame (from the Parquet file)."""
    sep = "&" if "?" in page_url else "?"
    csv_response = page.get(f"{page_url}{sep}format=csv")
    assert csv_response.status_code == 200, csv_response.content[:300]
    assert csv_response["Content-Type"].startswith("text/csv")
    parquet_response = page.get(f"{page_url}{sep}format=parquet")
    assert parquet_response.status_code == 200
    from_csv = pd.read_csv(io.BytesIO(csv_response.content), keep_default_na=True)
    parquet = pq.read_table(io.BytesIO(parquet_response.content))
    from_parquet = parquet.to_pandas()
    rows, url = [], api_url
    while url:
        body = api.get(url).json()
        rows += body["results"]
        url = body["next"]
    columns = list(parquet.schema.names)
    assert list(from_csv.columns) == columns
    assert all(list(row) == columns for row in rows)
    assert len(from_csv) == len(from_parquet) == len(rows)
    from_api = pd.DataFrame(rows, columns=columns)
    for column in columns:
        a, b, c = (frame[column].tolist() for frame in (from_csv, from_parquet, from_api))
        assert _same(a, b) and _same(b, c), column
    return from_parquet


def _same(xs, ys):
    def norm(v):
        if v is None or (isinstance(v, float) and np.isnan(v)):
            return None
        if isinstance(v, (bool, np.bool_)):
            return bool(v)
        if isinstance(v, (int, float, np.integer, np.floating)):
            return round(float(v), 12)
        return str(v)

    return [norm(x) for x in xs] == [norm(y) for y in ys]


# --- Comparison outcomes and arbitration analytics ----------------------------------------


def test_comparison_outcomes_three_ways_and_kappa_recomputed(decided, api_as):  # noqa: F811
    admin = decided["admin"]
    table = tidy_three_ways(
        page_client(admin),
        api_as(admin),
        reverse("adjudication:outcomes-table"),
        reverse("adjudication-api:outcome-rows") + "?page_size=7",
    )
    assert list(table.columns) == ["statistic", "category", "value", "ci_low", "ci_high", "n"]
    by_status = table[table.statistic == "pairs_by_status"].set_index("category")["value"]
    assert by_status["adopted"] == 1 and by_status["resolved"] == 2
    assert by_status["discarded"] == 1
    # Fleiss' κ over every pair's three canonical selections, by statsmodels.
    codes = {"claude": 0, "gpt": 1, "gemini": 2}
    selections = [
        ["claude"] * 3,
        ["claude", "claude", "gpt"],
        ["gemini", "gpt", "gpt"],
        ["claude", "gemini", "gemini"],
    ]
    counts = aggregate_raters(np.array([[codes[f] for f in s] for s in selections]), n_cat=3)[0]
    kappa = table[table.statistic == "fleiss_kappa"].iloc[0]
    assert kappa["value"] == pytest.approx(fleiss_kappa(counts))
    assert kappa["n"] == 4
    assert "references_by_source_family" in set(table.statistic)


def test_comparison_outcome_rows_hide_families_from_an_arbitrator(decided, api_as):  # noqa: F811
    body = api_as(decided["arbitrator"]).get(
        reverse("adjudication-api:outcome-rows") + "?page_size=500"
    )
    assert body.status_code == 200
    statistics = {row["statistic"] for row in body.json()["results"]}
    assert "references_by_source_family" not in statistics
    csv_text = page_client(decided["arbitrator"]).get(reverse("adjudication:outcomes-table"))
    assert b"references_by_source_family" not in csv_text.content


def test_arbitration_analytics_three_ways_match_hand_counts(decided, api_as):  # noqa: F811
    arbitrator = decided["arbitrator"]
    computed(arbitration_reports.KIND)
    table = tidy_three_ways(
        page_client(arbitrator),
        api_as(arbitrator),
        reverse("adjudication:analytics-table"),
        reverse("adjudication-api:analytics-rows"),
    )
    agreement = table[table.statistic == "agreement"].set_index("annotator")
    assert agreement.loc["cmp-annotator-2", "hits"] == 3
    assert agreement.loc["cmp-annotator-1", "n"] == 3
    lift = table[table.statistic == "agreement_lift"].iloc[0]
    assert lift["annotator"] == "(all)"
    assert lift["share"] == pytest.approx(2 / 9)


def test_statistic_rows_filter_order_and_refuse_other_roles(decided, api_as, api_user):  # noqa: F811
    computed(arbitration_reports.KIND)
    client = api_as(decided["admin"])
    url = reverse("adjudication-api:analytics-rows")
    body = client.get(url, {"annotator": "cmp-annotator-2", "ordering": "-statistic"}).json()
    assert [r["statistic"] for r in body["results"]] == [
        "overturned",
        "guidance_followed",
        "agreement",
    ]
    assert client.get(url, {"ordering": "nonsense"}).status_code == 400
    # The whole table as a file, for a script: the page's bytes, or the filtered rows.
    as_file = client.get(url, {"format": "parquet"})
    assert as_file.status_code == 200 and as_file["Content-Type"].startswith(
        "application/vnd.apache.parquet"
    )
    page = page_client(decided["admin"])
    page_bytes = page.get(reverse("adjudication:analytics-table"), {"format": "parquet"}).content
    assert as_file.content == page_bytes
    filtered = client.get(url, {"format": "csv", "annotator": "cmp-annotator-2"})
    assert filtered["Content-Type"].startswith("text/csv")
    frame = pd.read_csv(io.BytesIO(filtered.content))
    assert set(frame.annotator) == {"cmp-annotator-2"} and len(frame) == 3
    _, annotator = api_user(Role.PRIMARY_ANNOTATOR)
    assert annotator.get(url).status_code == 403
    assert annotator.get(reverse("adjudication-api:outcome-rows")).status_code == 403
    page = page_client(decided["annotators"][0])
    assert page.get(reverse("adjudication:analytics-table")).status_code == 403
    assert (
        page_client(decided["admin"])
        .get(reverse("adjudication:analytics-table") + "?format=xlsx")
        .status_code
        == 404
    )


# --- Profile review outcomes and scenario coverage (agreement) ----------------------------


def test_profile_review_outcomes_three_ways_count_the_reviews(paper_fixture, api_user):  # noqa: F811
    senior, api = api_user(Role.ARBITRATOR)
    table = tidy_three_ways(
        page_client(senior),
        api,
        reverse("review:profile-outcomes-table"),
        reverse("review-api:profile-outcome-rows"),
    )
    rows = table.set_index("outcome")
    assert rows.loc["accepted", "profiles"] == 8
    assert rows.loc["local_1", "characters"] == "CHAR_03 CHAR_07"
    assert rows.loc["local_2", "percent"] == pytest.approx(9.1)
    assert table.profiles.sum() == 11
    _, scenario_reviewer = api_user(Role.SCENARIO_REVIEWER)
    assert scenario_reviewer.get(reverse("review-api:profile-outcome-rows")).status_code == 403


def test_diamonds_agreement_three_ways_matches_sklearn(reviewed, scenario_reviewers, api_as):  # noqa: F811
    reviewer = scenario_reviewers[0]
    table = tidy_three_ways(
        page_client(reviewer),
        api_as(reviewer),
        reverse("review:coverage-agreement-table"),
        reverse("review-api:coverage-agreement-rows"),
    )
    rows = table.set_index("dimension")
    for position, field in enumerate(FIELDS):
        a = [RATINGS[sid][0][position] for sid in RATINGS]
        b = [RATINGS[sid][1][position] for sid in RATINGS]
        label = field.title()
        if label not in rows.index:
            continue
        assert rows.loc[label, "units"] == 3
        expected = cohen_kappa_score(a, b, weights="quadratic", labels=list(range(1, 8)))
        got = rows.loc[label, "cohen_kappa_quadratic"]
        if np.isnan(expected):
            assert got is None or np.isnan(got)
        else:
            assert got == pytest.approx(expected, abs=5e-4), field
        assert rows.loc[label, "exact_agreement_pct"] == pytest.approx(
            100 * np.mean(np.array(a) == np.array(b)), abs=0.05
        )
    assert {"Duty", "Adversity"} <= set(rows.index)


def test_diamonds_ratings_and_life_stages_three_ways(reviewed, scenario_reviewers, api_user):  # noqa: F811
    admin, api = api_user(Role.ADMIN)
    ratings = tidy_three_ways(
        page_client(admin),
        api,
        reverse("review:coverage-ratings-table"),
        reverse("review-api:coverage-ratings-rows") + "?page_size=20",
    )
    duty = ratings[ratings.dimension == "duty"].set_index("rating")["scenarios"]
    # The finals of tests/review/test_coverage.py: 5, (2 vs 3 → 2 on SCN_SCHOOL_AGE_2), 7.
    assert duty.tolist() == [0, 1, 0, 0, 1, 0, 1]
    assert len(ratings) == 8 * 7
    stages = tidy_three_ways(
        page_client(admin),
        api,
        reverse("review:coverage-life-stages-table"),
        reverse("review-api:coverage-life-stages-rows"),
    )
    by_stage = stages.set_index("life_stage")["scenarios"]
    assert by_stage["adolescence"] == 1
    _, annotator = api_user(Role.PRIMARY_ANNOTATOR)
    assert annotator.get(reverse("review-api:coverage-ratings-rows")).status_code == 403


# --- Reference-label audit -----------------------------------------------------------------


def test_label_audit_tables_three_ways_count_the_database(played, team, api_as):  # noqa: F811
    audit, letters = played
    adjudicator = team["adjudicator"]
    computed(label_reports.KIND, str(audit.pk))
    outcomes = tidy_three_ways(
        page_client(adjudicator),
        api_as(adjudicator),
        reverse("audit:labels:outcomes-table", args=[audit.pk]),
        reverse("audit-api:labels-api:outcomes-rows", args=[audit.pk]),
    )
    items = outcomes[outcomes.statistic == "items"].set_index("outcome")
    assert {k: (items.loc[k, "value"], items.loc[k, "percent"]) for k in EXPECTED} == EXPECTED
    complete = [["ABCD".index(c) for c in row] for row in letters if None not in row]
    counts = aggregate_raters(np.array(complete), n_cat=4)[0]
    kappa = outcomes[outcomes.statistic == "fleiss_kappa"].iloc[0]
    assert kappa["value"] == pytest.approx(fleiss_kappa(counts, method="fleiss"))
    assert kappa["n"] == 8 and kappa["ci_low"] <= kappa["value"] <= kappa["ci_high"]

    per_item = tidy_three_ways(
        page_client(team["admin"]),
        api_as(team["admin"]),
        reverse("audit:labels:items-table", args=[audit.pk]),
        reverse("audit-api:labels-api:items-rows", args=[audit.pk]) + "?page_size=3",
    )
    in_db = LabelAuditItem.objects.filter(audit=audit).order_by("position")
    assert per_item.question_id.tolist() == [i.item.question_id for i in in_db]
    on_key = [None if i.n_on_key is None else i.n_on_key for i in in_db]
    assert [None if pd.isna(v) else int(v) for v in per_item.experts_on_key] == on_key
    first = per_item.iloc[0]
    assert [first.expert_1, first.expert_2, first.expert_3] == letters[0]


def test_label_audit_rows_are_the_adjudicators_own(played, api_user, api_as, team):  # noqa: F811
    audit, _ = played
    _, other_adjudicator = api_user(Role.AUDIT_ADJUDICATOR)
    url = reverse("audit-api:labels-api:items-rows", args=[audit.pk])
    assert other_adjudicator.get(url).status_code == 404
    missing = reverse("audit-api:labels-api:outcomes-rows", args=[audit.pk + 999])
    assert api_as(team["admin"]).get(missing).status_code == 404
    expert = api_as(team["experts"][0])
    assert expert.get(url).status_code == 403
    page = page_client(team["experts"][0])
    assert page.get(reverse("audit:labels:items-table", args=[audit.pk])).status_code == 403


# --- Human baseline report ------------------------------------------------------------------


def test_baseline_report_three_ways_matches_the_answer_matrix(api_user):
    answers = [["A", "A", "B", "A"], ["C", "C", "C", "D"], ["B", "D", "D", "D"]] * 10
    keys = ["A", "C", "D"] * 10
    study, _, _ = make_study(n_items=4)
    admin, api = api_user(Role.ADMIN)
    url = reverse("baseline-statistics-api:report-rows", args=[study.pk])
    assert api.get(url).status_code == 404  # no finished report yet
    results = build_report(
        answers=answers,
        keys=keys,
        sources=["gemini", "claude", "gpt"] * 10,
        annotators=list("wxyz"),
        model_predictions={"m": ["A", None, "B"] * 10},
        seed=1,
        n_boot=200,
        n_permutations=200,
        target_counts={"gemini": 10, "claude": 10, "gpt": 10},
    )
    BaselineReport.objects.create(
        study=study,
        status="done",
        seed=1,
        n_boot=200,
        n_permutations=200,
        results=results,
        requested_by=admin,
    )
    table = tidy_three_ways(
        page_client(admin), api, reverse("baseline:report-table", args=[study.pk]), url
    )
    correct = np.array(answers) == np.array(keys)[:, None]
    rows = table.set_index("statistic")
    assert rows.loc["mean annotator accuracy", "estimate"] == pytest.approx(correct.mean())
    for n, name in enumerate("wxyz"):
        assert rows.loc[f"annotator {name}", "estimate"] == pytest.approx(correct[:, n].mean())
    assert rows.loc["m accuracy", "estimate"] == pytest.approx(1 / 3)
    assert set(table.study_id) == {study.pk}
    _, participant = api_user(Role.BASELINE_PARTICIPANT)
    assert participant.get(url).status_code == 403


# --- Evaluation analysis ---------------------------------------------------------------------


def test_evaluation_analysis_three_ways_counts_the_predictions(imported, admin_user, api_as):  # noqa: F811
    items, answers = imported
    compute_analysis()
    table = tidy_three_ways(
        page_client(admin_user),
        api_as(admin_user),
        reverse("evaluation:analysis-table"),
        reverse("evaluation-api:analysis-rows") + "?page_size=100",
    )
    accuracy = table[table.section == "accuracy"]
    assert len(accuracy) == len(RUNS)
    ordered = sorted(items, key=lambda i: i.pk)
    naive = accuracy[accuracy.setting == dict(Setting.choices)["naive_rag"]].set_index("model")
    for label in ("model-x", "model-y", "model-z"):
        correct = vector(ordered, answers[(label, "naive_rag")])
        assert naive.loc[label, "n_correct"] == int(correct.sum())
        assert naive.loc[label, "value"] == pytest.approx(correct.mean())
        assert naive.loc[label, "n_items"] == len(items)
    # Filters and ordering on the API rows.
    api = api_as(admin_user)
    body = api.get(
        reverse("evaluation-api:analysis-rows"),
        {"section": "accuracy", "ordering": "-value", "page_size": 100},
    ).json()
    values = [r["value"] for r in body["results"]]
    assert len(values) == len(RUNS) and values == sorted(values, reverse=True)
    # The page links the pair with the page's own choice of runs.
    html = page_client(admin_user).get(reverse("evaluation:analysis") + "?run=1").content
    assert b'data-testid="table-parquet-evaluation_analysis"' in html
    assert b"/evaluation/analysis/table/?run=1&amp;format=parquet" in html


# --- Memory quality audit --------------------------------------------------------------------


def test_memory_audit_tables_three_ways_count_the_cases(audited, api_user):  # noqa: F811
    audit_run = audited["run"]
    reviewer, api = api_user(Role.MEMORY_REVIEWER)
    outcomes = tidy_three_ways(
        page_client(reviewer),
        api,
        reverse("audit:outcomes-table", args=[audit_run.pk]),
        reverse("audit-api:outcomes-rows", args=[audit_run.pk]),
    )
    row = outcomes.set_index("character").loc["CHAR_01"]
    assert row["memories"] == MemoryCase.objects.filter(run=audit_run).count() == 2
    assert row[["passed_initial", "escalated", "open"]].tolist() == [0, 2, 2]
    criteria = tidy_three_ways(
        page_client(reviewer),
        api,
        reverse("audit:criteria-table", args=[audit_run.pk]),
        reverse("audit-api:criteria-rows", args=[audit_run.pk]),
    )
    assert criteria.criterion.tolist() == sorted(criteria.criterion.tolist())
    assert criteria["memories_flagged"].max() <= 2 and criteria["flags"].sum() >= 1
    assert api.get(reverse("audit-api:criteria-rows", args=[audit_run.pk + 99])).status_code == 404
    _, expert = api_user(Role.AUDIT_EXPERT)
    assert expert.get(reverse("audit-api:outcomes-rows", args=[audit_run.pk])).status_code == 403


# --- LLM judge calibration report --------------------------------------------------------------


def test_judge_report_three_ways_holds_the_independent_figures(run, api_as):  # noqa: F811
    compute_judge_report(run.pk)
    admin = run.pairs.first().assignments.first().assigned_by
    table = tidy_three_ways(
        page_client(admin),
        api_as(admin),
        reverse("judging:report-table", args=[run.pk]),
        reverse("judging-api:report-rows", args=[run.pk]),
    )
    figures = table.set_index("figure")
    for figure, expected in independent_figures().items():
        assert figures.loc[figure, "estimate"] == pytest.approx(expected), figure
    assert set(table.judge_run_id) == {run.pk}
    arbitrator = run.pairs.first().assignments.first().annotator
    assert (
        api_as(arbitrator).get(reverse("judging-api:report-rows", args=[run.pk])).status_code == 403
    )


# --- Blinding report ----------------------------------------------------------------------------


def test_blinding_report_three_ways_counts_the_selected_letters(decided, api_as):  # noqa: F811
    admin = decided["admin"]
    table = tidy_three_ways(
        page_client(admin),
        api_as(admin),
        reverse("blinding:report-table"),
        reverse("blinding-api:report-rows"),
    )
    letters = list(ComparisonJudgment.objects.values_list("selected_letter", flat=True))
    positions = table[table.group == "position"].set_index("category")["n"]
    assert {k: int(v) for k, v in positions.items()} == {
        x: letters.count(x) for x in positions.index
    }
    assert positions.sum() == len(letters) == 12
    overall = table[table.group == "all"].iloc[0]
    assert overall["n"] == 0 and pd.isna(overall["success_rate"])
    assert api_as(decided["arbitrator"]).get(reverse("blinding-api:report-rows")).status_code == 403
