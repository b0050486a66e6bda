"""The demo's evaluation runs: offline demo provider, Celery eager, idempotent; the
analysis page then has accuracies, comparisons, the App. I diagnostic and a matrix."""

import pytest

from evaluation import analysis, selectors
from evaluation.demo import DEMO_NOTE, seed_evaluation_demo
from evaluation.models import EvaluationRun

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]


def test_demo_runs_finish_and_fill_the_analysis(
    admin_user, corpus, django_capture_on_commit_callbacks, client
):
    with django_capture_on_commit_callbacks(execute=True):
        runs = seed_evaluation_demo(user=admin_user)
    assert len(runs) == 5
    for run in EvaluationRun.objects.filter(note=DEMO_NOTE):
        assert run.status == "finished", run
        assert run.predictions.filter(status="answered").count() == 8
        assert run.provider["kind"] == "offline_demo"
    assert seed_evaluation_demo(user=admin_user) == runs
    table = selectors.prediction_table(selectors.analysis_runs())
    assert len(analysis.disclosure_diagnostics(table)) == 1
    assert len(analysis.agreement_matrices(table)) == 1
    client.force_login(admin_user)
    assert client.get("/evaluation/analysis/").status_code == 200
