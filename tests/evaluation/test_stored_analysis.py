"""The evaluation analysis page reads its figures from a stored report computed by a real
Celery worker over Redis (issue #34): before the worker ran the page shows none and says
they are being computed; after, the page and its CSV show figures equal to ``agreement``
called directly on hand-built vectors; a new run marks them stale (the old figures still
shown) until the worker stored the new ones."""

import csv
import io

import numpy as np
import pytest
from django.test import Client

import agreement
from core.reports.models import ReportStatus, StoredReport
from evaluation import stored_reports
from evaluation.statistics import setting_names
from tests.stored_reports import report_state, wait_fresh_page

from .conftest import build_corpus
from .test_analysis import RUNS, vector
from .test_stored_comparisons import import_run

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
PAGE = "/evaluation/analysis/"


def csv_rows(client):
    response = client.get("/evaluation/analysis.csv")
    assert response.status_code == 200
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def assert_independent(rows, items, answers):
    """Every accuracy with its interval and every paired p-value of the CSV, against
    ``agreement`` on vectors built here from the imported answers; the model pairs."""
    ordered = sorted(items, key=lambda i: i.pk)
    clusters = [i.scenario.scenario_id for i in ordered]
    names = setting_names()
    accuracy = {(r["model"], r["setting"]): r for r in rows if r["section"] == "accuracy"}
    assert len(accuracy) == len(answers)
    for (label, setting), record in answers.items():
        correct = vector(ordered, record)
        expected = agreement.cluster_bootstrap_accuracy(
            correct,
            clusters,
            n_boot=agreement.constants.N_BOOTSTRAP,
            seed=agreement.constants.CLUSTER_BOOTSTRAP_SEED,
        )
        row = accuracy[(label, names[setting])]
        assert float(row["accuracy"]) == pytest.approx(correct.mean())
        assert float(row["ci_low"]) == pytest.approx(expected.ci_low)
        assert float(row["ci_high"]) == pytest.approx(expected.ci_high)
    models = [r for r in rows if r["section"] == "paired_models"]
    for r in models:
        a, b = r["model"].split(" − ")
        test = agreement.paired_cluster_permutation_test(
            vector(ordered, answers[(a, "naive_rag")]),
            vector(ordered, answers[(b, "naive_rag")]),
            clusters,
            n_permutations=agreement.constants.N_PERMUTATIONS,
            seed=agreement.constants.SIGN_FLIP_SEED,
        )
        assert float(r["p_value"]) == pytest.approx(test.p_value)
        assert float(r["accuracy"]) == pytest.approx(test.difference)
    return models


def test_a_new_run_marks_the_analysis_page_stale_then_the_worker_refreshes_it(
    celery_worker_factory, admin_user
):
    client = Client()
    client.force_login(admin_user)
    items = build_corpus(n_characters=4, n_scenarios=4)["items"]
    rng = np.random.default_rng(11)
    answers = {
        (label, setting): import_run(admin_user, items, label, setting, p, rng)
        for label, setting, p in RUNS
        if label != "model-z"
    }

    # Nothing stored: the page computes nothing and shows no figures.
    html = client.get(PAGE).content.decode()
    assert report_state(html) == "pending" and 'data-testid="accuracy-table"' not in html
    row = StoredReport.objects.get(kind=stored_reports.ANALYSIS_KIND, key="")
    assert row.result is None

    celery_worker_factory()
    html = wait_fresh_page(client, PAGE)
    assert 'data-testid="accuracy-table"' in html and "5 runs" in html
    first_rows = csv_rows(client)
    assert len(assert_independent(first_rows, items, answers)) == 1  # x − y under naive_rag
    computed_at = StoredReport.objects.get(pk=row.pk).computed_at

    # A new run is an input: the page marks the figures stale and still shows the old ones.
    answers[("model-z", "naive_rag")] = import_run(
        admin_user, items, "model-z", "naive_rag", 0.5, rng
    )
    # (The state is read before the computation is queued, so this answer is stale.)
    html = client.get(PAGE).content.decode()
    assert report_state(html) == "stale" and "older than their inputs" in html and "5 runs" in html
    assert 'data-testid="accuracy-table"' in html and "model-z" not in html

    html = wait_fresh_page(client, PAGE)
    assert "6 runs" in html and "model-z" in html
    stored = StoredReport.objects.get(pk=row.pk)
    assert stored.status == ReportStatus.DONE and stored.computed_at > computed_at
    assert len(assert_independent(csv_rows(client), items, answers)) == 3  # x, y, z pairs
