"""The evaluation pages' side of issue #36: the launch page shows the estimate of every
configured model (and, with "Estimate cost", of the chosen one), takes an optional budget
and refuses a bad one saying why, creating nothing; a run stopped at its budget shows
why, offers a resume form instead of the plain Resume and Retry buttons, refuses a budget
already spent and resumes with a new one or none."""

import json
import math
import re
from decimal import Decimal

import pytest
from django.urls import reverse

from core.llm_runs.models import MILLION
from core.roles import Role
from evaluation import prompt, services
from evaluation.estimate import ASSUMED_OUTPUT_TOKENS
from evaluation.models import EvaluationRun, Setting
from llm.testing.fake_server import FakeProviderServer
from tests.evaluation.conftest import build_corpus, role_groups  # noqa: F401
from tests.factories import UserFactory

from .test_cost_estimate_evaluation import PRICE_IN, PRICE_OUT, ROW, answer, priced_env

pytestmark = pytest.mark.django_db
Status = EvaluationRun.Status


@pytest.fixture
def server(monkeypatch):
    with FakeProviderServer(responder=answer) as server:
        for name, value in priced_env(server).items():
            monkeypatch.setenv(name, value)
        yield server


@pytest.fixture
def admin(client, role_groups):  # noqa: F811
    user = UserFactory(roles=[Role.ADMIN])
    client.force_login(user)
    return user


@pytest.fixture
def eager():
    from heartbench_site.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


def expected_cost(items, setting=Setting.NO_RETRIEVAL) -> Decimal:
    """The No-Retrieval run's prompts as the worker builds them (``evaluation_item_prompt``
    of an unsaved run), characters over four, at the test prices."""
    run = EvaluationRun(setting=setting, provider_key="fake")
    schema = len(json.dumps(prompt.RESPONSE_SCHEMA, separators=(",", ":")))
    total = Decimal(0)
    for item in items:
        user = services.evaluation_item_prompt(item, run=run)[0]
        tokens_in = math.ceil((len(prompt.SYSTEM_PROMPT) + len(user) + schema) / 4)
        total += Decimal(tokens_in) * PRICE_IN + Decimal(ASSUMED_OUTPUT_TOKENS) * PRICE_OUT
    return total / MILLION


def estimate_rows(html: str) -> dict:
    """{provider: (calls, cost text)} of the page's estimate table."""
    rows = {}
    for row in re.findall(r'<tr data-testid="cost-row">(.*?)</tr>', html, re.S):
        provider = re.search(r'<th scope="row"[^>]*>(.*?)</th>', row, re.S).group(1).strip()
        calls = re.search(r'data-testid="cost-calls">(.*?)</td>', row, re.S).group(1)
        cost = re.search(r'data-testid="cost-usd">(.*?)</td>', row, re.S).group(1)
        rows[provider] = (calls.strip(), cost.strip())
    return rows


def launch_data(**changes):
    data = {
        "provider": "fake",
        "setting": "no_retrieval",
        "item_set": "all",
        "retrieval_method": "bm25",
        "k": "30",
        "temperature": "0",
        "max_tokens": "4096",
    }
    return data | changes


def test_the_launch_page_shows_the_estimate_of_every_configured_model(client, admin, server):
    corpus = build_corpus()

    html = client.get(reverse("evaluation:run-list")).content.decode()

    assert 'data-testid="cost-estimate"' in html
    rows = estimate_rows(html)
    assert set(rows) == {ROW, "offline_demo (offline_demo, offline-demo)"}
    assert rows[ROW] == ("8", f"${expected_cost(corpus['items']):.4f}")
    # One row per model, alternatives: no total.
    assert 'data-testid="cost-total"' not in html
    assert 'name="budget_usd"' in html


def test_estimate_cost_estimates_the_chosen_model_setting_and_items(client, admin, server):
    corpus = build_corpus()
    chosen = corpus["items"][:3]
    ids = "\n".join(i.question_id for i in chosen)

    response = client.post(
        reverse("evaluation:run-list"),
        launch_data(item_set="ids", question_ids=ids, estimate="Estimate cost"),
    )

    html = response.content.decode()
    assert response.status_code == 200 and not EvaluationRun.objects.exists()
    expected = expected_cost(chosen)
    assert estimate_rows(html) == {ROW: ("3", f"${expected:.4f}")}
    total = re.search(r'data-testid="cost-total">\$([0-9.]+)<', html).group(1)
    assert total == f"{expected:.4f}"
    assert f"Expected between ${expected * Decimal('0.7'):.4f}" in html


def test_a_launch_takes_a_budget_and_refuses_a_bad_one_creating_nothing(client, admin, server):
    build_corpus()
    url = reverse("evaluation:run-list")

    for bad, message in (
        ("0", "Ensure this value is greater than or equal to 0.01."),
        ("-3", "Ensure this value is greater than or equal to 0.01."),
        ("ten dollars", "Enter a number."),
    ):
        response = client.post(url, launch_data(budget_usd=bad))
        assert response.status_code == 200
        assert message in response.content.decode(), bad
        assert not EvaluationRun.objects.exists()

    response = client.post(url, launch_data(budget_usd="2.50"))

    run = EvaluationRun.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("evaluation:run-detail", args=[run.pk])
    assert run.budget_usd == Decimal("2.50") and run.status == Status.RUNNING
    page = client.get(response.url).content.decode()
    assert 'data-testid="run-budget"' in page and "Budget: $2.50" in page


@pytest.mark.usefixtures("eager")
def test_a_stopped_run_shows_why_and_resumes_with_a_new_budget_or_none(
    client, admin, server, django_capture_on_commit_callbacks, monkeypatch
):
    build_corpus()
    # Prices at which one item costs more than a cent.
    monkeypatch.setenv("HEARTBENCH_EVAL_FAKE_PRICE_IN", "3000")
    monkeypatch.setenv("HEARTBENCH_EVAL_FAKE_PRICE_OUT", "15000")
    url = reverse("evaluation:run-list")
    with django_capture_on_commit_callbacks(execute=True):
        client.post(url, launch_data(budget_usd="0.01"))
    run = EvaluationRun.objects.get()
    assert run.status == Status.STOPPED_AT_BUDGET
    answered = run.predictions.filter(status="answered").count()
    assert answered == 1  # one call reached the budget; the other items wait
    spent = sum(p.cost_usd for p in run.predictions.all())

    page = client.get(reverse("evaluation:run-detail", args=[run.pk])).content.decode()
    assert 'data-testid="run-stop-reason"' in page and "budget of $0.01" in page
    assert 'data-run-action="resume-at-budget"' in page
    # Only cancel: the plain Resume and Retry would run past the budget.
    assert 'id="run-resume"' not in page and 'id="run-retry"' not in page
    assert 'id="run-cancel"' in page
    assert f"${spent:.4f}" in page

    resume = reverse("evaluation:run-resume", args=[run.pk])
    response = client.post(resume, {"budget_usd": "0.01"})
    html = response.content.decode()
    assert response.status_code == 200 and "would stop again at once" in html
    run.refresh_from_db()
    assert run.status == Status.STOPPED_AT_BUDGET and run.budget_usd == Decimal("0.01")

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(resume, {"budget_usd": ""}, follow=True)

    assert "7 items queued again" in response.content.decode()
    run.refresh_from_db()
    assert run.status == Status.FINISHED and run.budget_usd is None and run.stop_reason == ""
    assert run.predictions.filter(status="answered").count() == 8
