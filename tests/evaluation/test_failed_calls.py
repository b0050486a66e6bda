"""A call that failed in transport stays in the denominator (seed 000 §3.1: every item
is scored, an unusable response counts as incorrect) until an admin re-runs it; the
analysis page says how many failed calls a run has."""

import re

import pytest

from evaluation import analysis, selectors, services
from evaluation.models import Setting
from evaluation.selectors import model_predictions
from llm.testing.replies import server_error
from tests.stored_reports import compute_analysis

from .test_runs import run_items, user_text

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]


def accuracy_cell(html, run_id):
    row = re.search(rf'<tr data-run="{run_id}">(.*?)</tr>', html, re.S).group(1)
    return {
        name: re.search(rf'data-testid="{name}">([^<]*)<', row).group(1)
        for name in ("accuracy", "n-items", "n-failed")
    }


def test_failed_calls_count_as_incorrect_until_rerun(
    admin_user, corpus, fake_model, django_capture_on_commit_callbacks, client
):
    items = corpus["items"][:4]
    failing = {items[1].character.key, items[2].character.key}
    keys = {i.character.key: i.correct_answer for i in items}

    def responder(req):
        character = re.search(r"Character ID: (\S+)\n", user_text(req)).group(1)
        if character in failing:
            return server_error(503)
        return {"decision_choice": keys[character]}

    fake_model.responder = responder
    run = run_items(
        admin_user, Setting.NO_RETRIEVAL, items, capture=django_capture_on_commit_callbacks
    )
    assert run.status == "finished_with_failures"

    # Two of four answered correctly, two failed: 2/4, not 2/2.
    (row,) = analysis.accuracy_rows(selectors.prediction_table(selectors.analysis_runs()))
    assert (row.n_items, row.n_correct, row.n_failed) == (4, 2, 2)
    assert row.accuracy == pytest.approx(0.5)
    answers = model_predictions(items, setting=Setting.NO_RETRIEVAL)["fake-eval"]
    assert answers[items[1].pk] is None and answers[items[0].pk] == items[0].correct_answer

    client.force_login(admin_user)
    compute_analysis()
    html = client.get("/evaluation/analysis/").content.decode()
    assert accuracy_cell(html, run.pk) == {"accuracy": "0.5000", "n-items": "4", "n-failed": "2"}

    # The admin re-runs them; now the calls succeed and count by their answers.
    failing.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.evaluation_run_resume(run_id=run.pk) == 2
    (row,) = analysis.accuracy_rows(selectors.prediction_table(selectors.analysis_runs()))
    assert (row.n_items, row.n_correct, row.n_failed) == (4, 4, 0)
    compute_analysis()
    html = client.get("/evaluation/analysis/").content.decode()
    assert accuracy_cell(html, run.pk) == {"accuracy": "1", "n-items": "4", "n-failed": "0"}
