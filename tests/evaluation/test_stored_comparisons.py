"""The paired permutation tests as a stored report (issue #34), computed by a real Celery
worker over Redis: asking for the report never runs the tests, a new run marks the stored
figures stale (still shown), and after the worker ran they are fresh, each p-value equal
to ``agreement`` called directly on hand-built vectors."""

import json
import time

import numpy as np
import pytest
from django.template.loader import render_to_string

import agreement
from core.reports.models import ReportStatus, StoredReport
from core.reports.services import report_for
from evaluation import stored_reports
from evaluation.prediction_import import evaluation_run_import

from .conftest import build_corpus
from .test_analysis import RUNS, vector

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
WAIT_SECONDS = 120


def import_run(user, items, label, setting, p_correct, rng):
    record = {
        i.question_id: i.correct_answer
        if rng.random() < p_correct
        else rng.choice([x for x in "ABCD" if x != i.correct_answer])
        for i in items
    }
    payload = {"model": label, "setting": setting, "predictions": record}
    evaluation_run_import(
        created_by=user, filename=f"{label}.json", content=json.dumps(payload).encode()
    )
    return record


def wait_fresh():
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        report = report_for(stored_reports.KIND)
        if report.ready and not report.stale:
            return report
        time.sleep(0.2)
    raise AssertionError(f"the worker did not store fresh figures: {report.row}")


def state(report):
    html = render_to_string("core/stored_report_status.html", {"report": report, "poll_url": "/x"})
    return html.split('data-state="', 1)[1].split('"', 1)[0], html


def assert_independent(result, items, answers):
    ordered = sorted(items, key=lambda i: i.pk)
    clusters = [i.scenario.scenario_id for i in ordered]
    for family in result.values():
        for c in family:
            test = agreement.paired_cluster_permutation_test(
                vector(ordered, answers[(c["a"]["label"], c["a"]["setting"])]),
                vector(ordered, answers[(c["b"]["label"], c["b"]["setting"])]),
                clusters,
                n_permutations=agreement.constants.N_PERMUTATIONS,
                seed=agreement.constants.SIGN_FLIP_SEED,
            )
            assert c["p_value"] == test.p_value
            assert c["difference"] == pytest.approx(test.difference)


def test_a_new_run_marks_the_stored_tests_stale_then_the_worker_refreshes_them(
    celery_worker_factory, admin_user
):
    items = build_corpus(n_characters=4, n_scenarios=4)["items"]
    rng = np.random.default_rng(7)
    answers = {
        (label, setting): import_run(admin_user, items, label, setting, p, rng)
        for label, setting, p in RUNS
        if label != "model-z"
    }

    # Nothing stored yet: the request queues the computation and runs no statistics.
    report = report_for(stored_reports.KIND)
    assert not report.ready and report.row.status == ReportStatus.PENDING
    assert report.row.computed_at is None
    assert state(report)[0] == "pending"

    celery_worker_factory()
    report = wait_fresh()
    first = report.result
    assert len(first["settings"]) == 6 and len(first["models"]) == 1  # x and y, naive_rag
    assert_independent(first, items, answers)
    label, html = state(report)
    assert label == "fresh" and "Computed" in html and "5 runs" in html
    computed_at = report.row.computed_at

    # A new run is an input: the stored tests are stale and still shown meanwhile.
    answers[("model-z", "naive_rag")] = import_run(
        admin_user, items, "model-z", "naive_rag", 0.5, rng
    )
    report = report_for(stored_reports.KIND)
    assert report.stale and report.result == first
    assert state(report)[0] == "stale"
    assert "older than their inputs" in state(report)[1]

    report = wait_fresh()
    assert report.row.computed_at > computed_at
    assert len(report.result["models"]) == 3  # x, y, z under naive_rag
    assert_independent(report.result, items, answers)
    assert "6 runs" in state(report)[1]
    # Asking again while fresh queues nothing: one row, done.
    assert report_for(stored_reports.KIND).row.status == ReportStatus.DONE
    assert StoredReport.objects.count() == 1
