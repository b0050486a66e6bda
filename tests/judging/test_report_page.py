"""The calibration report's page, CSV and plots (issue 22): they show the figures the
selector computes, each checked here against an independent computation (scikit-learn,
statsmodels, scipy, hand counts) on the fixture of test_report.py; constant queries;
admins only."""

# ruff: noqa: F811 (the tests take the ``run`` fixture imported from test_report.py)

import csv
import io
from itertools import combinations

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from scipy import stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from adjudication.judging.models import JudgeCall, JudgeRun, JudgeVerdict
from adjudication.judging.report import judge_report
from adjudication.judging.report_views import report_plots
from tests.judging.test_report import CODE, HUMANS, JUDGE, SCORE, run  # noqa: F401 (fixture)
from tests.stored_reports import compute_judge_report

pytestmark = pytest.mark.django_db

HUMAN_CODES = np.array([[CODE[f] for f, _ in p] for p in HUMANS])
JUDGE_FIRST = np.array([CODE[v[0][0]] for v in JUDGE])
# Ratings of the candidate the judge chose in its first order, on both sides (every pair of
# the fixture has an annotator who chose it; tests/judging/test_rating_same_candidate.py).
JUDGE_SCORES = np.array([np.mean([SCORE[r] for f, _, r in v if f == v[0][0]]) for v in JUDGE])
HUMAN_SCORES = np.array(
    [np.mean([SCORE[r] for f, r in p if f == v[0][0]]) for p, v in zip(HUMANS, JUDGE, strict=True)]
)
PLOTS = ("kappa", "outcome", "replace", "position", "self-preference", "rating")


def admin_client(client, run):
    client.force_login(run.pairs.first().assignments.first().assigned_by)
    return client


def csv_rows(response) -> dict[str, dict]:
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    by_figure = {row["figure"]: row for row in rows}
    assert len(by_figure) == len(rows), "one row per figure"
    return by_figure


def value(row) -> float:
    return float(row["estimate"])


def independent_figures() -> dict[str, float]:
    """The fixture's figures, computed without agreement/."""
    slots = range(HUMAN_CODES.shape[1])
    judge_kappa = np.mean([cohen_kappa_score(JUDGE_FIRST, HUMAN_CODES[:, s]) for s in slots])
    pairwise = np.mean(
        [cohen_kappa_score(HUMAN_CODES[:, a], HUMAN_CODES[:, b]) for a, b in combinations(slots, 2)]
    )
    fleiss = fleiss_kappa(aggregate_raters(HUMAN_CODES, n_cat=3)[0])
    fit = stats.linregress(JUDGE_SCORES, HUMAN_SCORES)
    return {
        "Judge–human κ (mean Cohen's κ over the slots)": judge_kappa,
        "Human–human κ (mean pairwise Cohen's κ)": pairwise,
        "Human–human Fleiss' κ": fleiss,
        "Difference: judge–human minus human–human pairwise κ": judge_kappa - pairwise,
        # Pair 0 alone has a reference (adopted unanimously, Claude); the judge chose Claude.
        "Judge selected the reference's source": 1.0,
        "Annotators selected the reference's source (pooled)": 1.0,
        # Hand counts: pair 1 changes its mind between the orders; letters A, A, A, A, B, C,
        # A, B over eight selections; the judge (GPT) picks GPT in 0, ½, 0 and 1 of its orders.
        "Position consistency (same candidate in every order)": 3 / 4,
        "Judge selected letter A": 5 / 8,
        "Judge selected letter B": 2 / 8,
        "Judge selected letter C": 1 / 8,
        "Judge selected its own family's candidate": 1.5 / 4,
        "Annotators selected the judge's family's candidate": (0 + 2 / 3 + 1 / 3 + 2 / 3) / 4,
        "Judge as annotator slot 3: escalated pairs adopted": 1,
        "Judge as annotator slot 1: escalated pairs adopted": 0,
        "Pearson r": stats.pearsonr(JUDGE_SCORES, HUMAN_SCORES).statistic,
        "Spearman ρ": stats.spearmanr(JUDGE_SCORES, HUMAN_SCORES).statistic,
        "Kendall τ-b": stats.kendalltau(JUDGE_SCORES, HUMAN_SCORES).statistic,
        "Kendall p-value": stats.kendalltau(JUDGE_SCORES, HUMAN_SCORES).pvalue,
        "Mean bias (judge minus annotators, score points)": JUDGE_SCORES.mean()
        - HUMAN_SCORES.mean(),
        "Calibration intercept a (human = a + b · judge)": fit.intercept,
        "Calibration slope b (human = a + b · judge)": fit.slope,
    }


def test_the_csv_holds_the_independently_computed_figures(run, client):
    compute_judge_report(run.pk)
    rows = csv_rows(
        admin_client(client, run).get(reverse("judging:report-csv", kwargs={"run_id": run.pk}))
    )
    for figure, expected in independent_figures().items():
        assert value(rows[figure]) == pytest.approx(expected), figure
    kappa = rows["Judge–human κ (mean Cohen's κ over the slots)"]
    assert float(kappa["ci_low"]) <= value(kappa) <= float(kappa["ci_high"])
    assert kappa["ci_level"] == "0.95" and kappa["n"] == "4"
    assert "fewer than" not in kappa["note"]  # the CSV's notes are the figure's own
    assert rows["Judge selected letter A"]["note"] == "5 of 8 selections."


def test_the_page_shows_the_same_figures_with_their_n_and_small_n_note(run, client):
    compute_judge_report(run.pk)
    page = admin_client(client, run).get(reverse("judging:report", kwargs={"run_id": run.pk}))
    assert page.status_code == 200
    body = page.content.decode()
    figures = independent_figures()
    kappa = figures["Judge–human κ (mean Cohen's κ over the slots)"]
    pearson = figures["Pearson r"]
    assert f"{kappa:.3f}".replace("-", "−") in body
    assert f"{pearson:.3f}".replace("-", "−") in body
    assert "62.5%" in body and "75.0%" in body  # letter A, position consistency
    assert "95% CI" in body
    assert "Computed from only 4 pairs" in body  # display.SMALL_N
    for key in ("selection", "outcome", "replace", "position", "self_preference", "rating"):
        assert f'data-testid="report-{key}"' in body, key
    assert 'data-testid="report-rating-cells"' in body
    for name in PLOTS:
        assert f'data-testid="report-plot-{name}"' in body, name
    assert reverse("judging:report-csv", kwargs={"run_id": run.pk}) in body


def test_the_rating_table_is_the_scatter_with_the_calibration_line(run):
    from adjudication.judging.report_views import rating_cells

    cells = rating_cells(judge_report(run_id=run.pk, n_boot=0))
    fit = stats.linregress(JUDGE_SCORES, HUMAN_SCORES)
    assert sum(sum(counts) for _, counts, _ in cells["rows"]) == len(HUMANS)
    for x, counts, fitted in cells["rows"]:
        in_row = [h for j, h in zip(JUDGE_SCORES, HUMAN_SCORES, strict=True) if j == x]
        assert sum(counts) == len(in_row)
        assert fitted == pytest.approx(fit.intercept + fit.slope * x)


def _copy_run(source: JudgeRun, pairs) -> JudgeRun:
    copy = JudgeRun.objects.create(
        name="smaller", judge_family=source.judge_family, provider_family="gpt", model="m",
        orders_per_pair=source.orders_per_pair, prompt_version="v1",
    )  # fmt: skip
    for pair in pairs:
        copy.pairs.add(pair)
        for call in source.calls.filter(pair=pair).select_related("verdict"):
            new = JudgeCall.objects.create(
                run=copy, pair=pair, order_index=call.order_index, permutation=[],
                status="succeeded",
            )  # fmt: skip
            verdict = call.verdict
            verdict.pk, verdict.call = None, new
            verdict._state.adding = True
            verdict.save()
    return copy


def test_the_page_csv_and_plots_take_the_same_number_of_queries_whatever_the_run(run, client):
    smaller = _copy_run(run, list(run.pairs.order_by("pk"))[:2])
    assert JudgeVerdict.objects.filter(call__run=smaller).count() == 4
    client = admin_client(client, run)
    compute_judge_report(smaller.pk)
    compute_judge_report(run.pk)
    for name, kwargs in (
        ("judging:report", {}),
        ("judging:report-csv", {}),
        ("judging:report-plot", {"plot": "kappa", "fmt": "svg"}),
    ):
        counts = []
        for judged in (smaller, run):
            client.get(reverse(name, kwargs={"run_id": judged.pk, **kwargs}))  # warm the session
            with CaptureQueriesContext(connection) as queries:
                response = client.get(reverse(name, kwargs={"run_id": judged.pk, **kwargs}))
            assert response.status_code == 200
            counts.append(len(queries))
        assert counts[0] == counts[1], (name, counts)
        # Session, user, roles, the run, the stored report's five input aggregates, its row.
        assert counts[1] <= 12, (name, counts)


@pytest.mark.parametrize("fmt,content_type", [("svg", "image/svg+xml"), ("png", "image/png")])
def test_every_plot_of_the_page_downloads(run, client, fmt, content_type):
    client = admin_client(client, run)
    compute_judge_report(run.pk)
    assert set(report_plots(judge_report(run_id=run.pk, n_boot=0))) == set(PLOTS)
    for name in PLOTS:
        url = reverse("judging:report-plot", kwargs={"run_id": run.pk, "plot": name, "fmt": fmt})
        response = client.get(url)
        assert response.status_code == 200, name
        assert response["Content-Type"] == content_type
        assert f"judge-run-{run.pk}-{name}.{fmt}" in response["Content-Disposition"]
    missing = reverse("judging:report-plot", kwargs={"run_id": run.pk, "plot": "nope", "fmt": fmt})
    assert client.get(missing).status_code == 404


def test_a_run_without_usable_pairs_says_why_nothing_is_computable(client):
    from tests.comparison.helpers import people

    who = people()
    empty = JudgeRun.objects.create(
        name="empty", judge_family="gpt", provider_family="gpt", model="m", prompt_version="v1"
    )
    client.force_login(who["admin"])
    compute_judge_report(empty.pk)
    page = client.get(reverse("judging:report", kwargs={"run_id": empty.pk}))
    assert page.status_code == 200
    assert page.content.decode().count('data-testid="not-computable"') == 6
    assert "No pair has a verdict in every order" in page.content.decode()
    rows = csv_rows(client.get(reverse("judging:report-csv", kwargs={"run_id": empty.pk})))
    assert len(rows) == 6
    for row in rows.values():
        assert row["estimate"] == "" and row["note"].startswith("not computable: ")
    missing = reverse("judging:report", kwargs={"run_id": empty.pk + 99})
    assert client.get(missing).status_code == 404


def test_one_order_per_pair_leaves_position_consistency_not_computable(run, client):
    run.calls.filter(order_index=1).delete()
    JudgeRun.objects.filter(pk=run.pk).update(orders_per_pair=1)
    compute_judge_report(run.pk)
    rows = csv_rows(
        admin_client(client, run).get(reverse("judging:report-csv", kwargs={"run_id": run.pk}))
    )
    consistency = rows["Position consistency (same candidate in every order)"]
    assert consistency["estimate"] == ""
    assert consistency["note"].startswith("not computable: ")
    assert value(rows["Judge selected letter A"]) == pytest.approx(3 / 4)  # A, A, C, A


@pytest.mark.parametrize("who", ["annotators", "arbitrator"])
def test_annotators_and_the_arbitrator_are_refused(run, client, who):
    pair = run.pairs.first()
    user = pair.assignments.first().annotator if who == "annotators" else None
    if user is None:
        from django.contrib.auth import get_user_model

        user = get_user_model().objects.get(username="cmp-arbitrator")
    client.force_login(user)
    for url in (
        reverse("judging:report", kwargs={"run_id": run.pk}),
        reverse("judging:report-csv", kwargs={"run_id": run.pk}),
        reverse("judging:report-plot", kwargs={"run_id": run.pk, "plot": "kappa", "fmt": "svg"}),
    ):
        response = client.get(url)
        assert response.status_code == 403, url
        assert b"Cohen" not in response.content


def test_the_run_page_links_the_report_once_the_run_is_over(run, client):
    client = admin_client(client, run)
    report_url = reverse("judging:report", kwargs={"run_id": run.pk})
    run_url = reverse("judging:run", kwargs={"run_id": run.pk})
    JudgeRun.objects.filter(pk=run.pk).update(status=JudgeRun.Status.RUNNING)
    assert report_url not in client.get(run_url).content.decode()
    JudgeRun.objects.filter(pk=run.pk).update(status=JudgeRun.Status.FINISHED)
    assert f'href="{report_url}"' in client.get(run_url).content.decode()


# Last in the module: the demo, once built, stays for the rest of the module (conftest.py).
def test_the_demo_runs_report_shows_numbers(demo_built, client):
    """The demo has two fully judged pairs: position, self-preference, outcome and replace one
    expert always have a value; κ only when the judge's choices vary
    (docs/lab-admin/judge-and-blinding.md), and a figure without one says why."""
    from adjudication.judging.demo import DEMO_JUDGE_NAME

    demo_run = JudgeRun.objects.get(name=DEMO_JUDGE_NAME)
    report = judge_report(run_id=demo_run.pk, n_boot=0)
    assert report.n_pairs >= 2
    assert {"outcome", "replace", "position", "self_preference"} <= set(report.figures)
    client.force_login(demo_run.created_by)
    page = client.get(reverse("judging:run", kwargs={"run_id": demo_run.pk}))
    report_url = reverse("judging:report", kwargs={"run_id": demo_run.pk})
    assert f'href="{report_url}"' in page.content.decode()
    compute_judge_report(demo_run.pk)
    body = client.get(report_url).content.decode()
    assert 'data-testid="report-position"' in body
    assert body.count('data-testid="not-computable"') >= len(report.notes)
    rows = csv_rows(client.get(reverse("judging:report-csv", kwargs={"run_id": demo_run.pk})))
    consistency = rows["Position consistency (same candidate in every order)"]
    assert consistency["estimate"] and int(consistency["n"]) == report.n_pairs
