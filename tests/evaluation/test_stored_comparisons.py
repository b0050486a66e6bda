"""The paired permutation tests in the stored analysis report (issue #34), computed by a
real Celery worker over Redis: asking for the report never runs the tests, a new run
marks the stored figures stale (still shown), and after the worker ran they are fresh,
each p-value equal to ``agreement`` called directly on hand-built vectors. The analysis
page reads these figures (tests/evaluation/test_stored_analysis.py)."""

import json

import numpy as np
import pytest
from django.template.loader import render_to_string

import agreement
from core.reports.models import ReportStatus, StoredReport
from core.reports.services import report_for
from evaluation import stored_reports
from evaluation.analysis_figures import from_json
from evaluation.prediction_import import evaluation_run_import
from tests.stored_reports import wait_fresh

from .conftest import build_corpus
from .test_analysis import RUNS, vector

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


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


def state(report):
    html = render_to_string("core/stored_report_status.html", {"report": report, "poll_url": "/x"})
    return html.split('data-state="', 1)[1].split('"', 1)[0], html


def comparisons(result) -> dict:
    """The paired tests of a stored analysis: "settings" and "models" -> comparisons."""
    return from_json(result).comparisons


def assert_independent(result, items, answers):
    ordered = sorted(items, key=lambda i: i.pk)
    clusters = [i.scenario.scenario_id for i in ordered]
    for family in comparisons(result).values():
        for c in family:
            test = agreement.paired_cluster_permutation_test(
                vector(ordered, answers[(c.a.label, c.a.setting)]),
                vector(ordered, answers[(c.b.label, c.b.setting)]),
                clusters,
                n_permutations=agreement.constants.N_PERMUTATIONS,
                seed=agreement.constants.SIGN_FLIP_SEED,
            )
            assert c.p_value == test.p_value
            assert c.difference == pytest.approx(test.difference)


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
    report = report_for(stored_reports.ANALYSIS_KIND)
    assert not report.ready and report.row.status == ReportStatus.PENDING
    assert report.row.computed_at is None
    assert state(report)[0] == "pending"

    celery_worker_factory()
    report = wait_fresh(stored_reports.ANALYSIS_KIND)
    first = report.result
    tests = comparisons(first)
    assert len(tests["settings"]) == 6 and len(tests["models"]) == 1  # x and y, naive_rag
    assert_independent(first, items, answers)
    label, html = state(report)
    assert label == "fresh" and "Computed" in html and "5 runs" in html
    computed_at = report.row.computed_at

    # A new run is an input: the stored tests are stale and still shown meanwhile.
    answers[("model-z", "naive_rag")] = import_run(
        admin_user, items, "model-z", "naive_rag", 0.5, rng
    )
    report = report_for(stored_reports.ANALYSIS_KIND)
    assert report.stale and report.result == first
    assert state(report)[0] == "stale"
    assert "older than their inputs" in state(report)[1]

    report = wait_fresh(stored_reports.ANALYSIS_KIND)
    assert report.row.computed_at > computed_at
    assert len(comparisons(report.result)["models"]) == 3  # x, y, z under naive_rag
    assert_independent(report.result, items, answers)
    assert "6 runs" in state(report)[1]
    # Asking again while fresh queues nothing: one row, done.
    assert report_for(stored_reports.ANALYSIS_KIND).row.status == ReportStatus.DONE
    assert StoredReport.objects.count() == 1
