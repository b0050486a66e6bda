"""An admin launches a Naive-RAG evaluation run on the offline demo provider; a real
Celery worker runs it while the run page polls with htmx until it shows the run
finished; the analysis page then has the run's accuracy."""

import pytest
from django.contrib.auth.models import Group

from core.roles import Role
from evaluation.models import EvaluationRun
from tests.evaluation.conftest import build_corpus
from tests.factories import DEFAULT_PASSWORD, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.worker]


@pytest.fixture
def corpus(transactional_db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    data = build_corpus(n_characters=4, n_scenarios=2)
    data["admin"] = UserFactory(username="admin-evaluation", roles=[Role.ADMIN]).username
    return data


def test_launch_a_run_and_watch_it_finish(page, live_server, corpus, celery_worker_process):
    page.goto(f"{live_server.url}/evaluation/")
    page.get_by_label("Username").fill(corpus["admin"])
    page.get_by_label("Password").fill(DEFAULT_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/evaluation/")
    assert "No evaluation runs yet" in page.get_by_test_id("run-list").inner_text()

    page.get_by_label("Model (provider config)").select_option("offline_demo")
    page.get_by_label("Model label").fill("demo model")
    page.locator("#id_setting").select_option("naive_rag")
    page.get_by_label("These question ids").check()
    ids = [i.question_id for i in corpus["items"][:5]]
    page.locator("#id_question_ids").fill("\n".join(ids))
    page.get_by_label("Item set name").fill("browser pilot")
    page.get_by_role("button", name="Launch run").click()
    page.wait_for_url(f"{live_server.url}/evaluation/runs/*/")

    # No reload: the progress fragment is swapped until the worker has finished.
    page.locator('#run-progress [data-status="finished"]').wait_for(timeout=60_000)
    text = page.get_by_test_id("run-progress-text").inner_text()
    assert "5 of 5 items done" in text
    assert page.locator("#run-progress").get_attribute("data-polling") == "false"
    run = EvaluationRun.objects.get()
    assert run.label == "demo model" and run.item_set == "browser pilot"
    assert run.predictions.filter(status="answered").count() == 5
    page.reload()
    assert page.get_by_test_id("prediction-table").locator("tbody tr").count() == 5

    page.get_by_role("link", name="Analysis").click()
    row = page.get_by_test_id("accuracy-table").locator(f'tr[data-run="{run.pk}"]')
    assert "demo model" in row.inner_text() and "5" in row.inner_text()
