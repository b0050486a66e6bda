"""Evaluation runs' budgets over the API (issue #36), with token-only clients: a launch
takes ``budget_usd`` (a bad one is a 400 naming the field, creating nothing), the run
says its budget, cost and stop reason; resuming a run stopped at budget takes a new
``budget_usd`` (absent or null: no budget, the old one is not kept; one already spent is
a 400), a budget sent to resume any other run is refused; the OpenAPI schema declares
the fields."""

from decimal import Decimal

import pytest
from django.urls import reverse

from core.roles import Role
from evaluation import services
from evaluation.models import EvaluationRun
from llm.testing.fake_server import FakeProviderServer
from tests.api.conftest import token_client
from tests.evaluation.conftest import build_corpus, role_groups  # noqa: F401
from tests.factories import UserFactory

from .test_cost_estimate_evaluation import answer, priced_env

pytestmark = pytest.mark.django_db
RUNS = "/api/evaluation/runs/"
Status = EvaluationRun.Status


@pytest.fixture
def server(monkeypatch):
    with FakeProviderServer(responder=answer) as server:
        # Prices at which one item costs more than a cent.
        env = priced_env(server, price_in=Decimal("3000"), price_out=Decimal("15000"))
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        yield server


@pytest.fixture
def eager():
    from heartbench_site.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


@pytest.fixture
def admin(role_groups):  # noqa: F811
    user = UserFactory(roles=[Role.ADMIN], username="budget-admin")
    return user, token_client(user)


def launch(client, capture, **body):
    with capture(execute=True):
        return client.post(RUNS, {"provider": "fake", "setting": "no_retrieval", **body}, "json")


@pytest.mark.usefixtures("eager")
def test_a_launch_with_a_budget_stops_there_and_resumes_with_a_new_one(
    admin, server, django_capture_on_commit_callbacks
):
    _, client = admin
    build_corpus()

    refused = launch(client, django_capture_on_commit_callbacks, budget_usd="0")
    assert refused.status_code == 400
    assert refused.json()["fields"]["budget_usd"] == [
        "Ensure this value is greater than or equal to 0.01."
    ]
    assert not EvaluationRun.objects.exists()

    response = launch(client, django_capture_on_commit_callbacks, budget_usd="0.01")

    assert response.status_code == 201, response.json()
    run = EvaluationRun.objects.get()
    assert run.budget_usd == Decimal("0.01")
    body = client.get(f"{RUNS}{run.pk}/").json()
    spent = sum(p.cost_usd for p in run.predictions.all())
    assert body["status"] == "stopped_at_budget" and body["answered"] == 1
    assert body["budget_usd"] == "0.01"
    assert body["cost_usd"] == f"{spent:.6f}" and spent >= Decimal("0.01")
    assert "Stopped at its budget of $0.01" in body["stop_reason"]

    # A budget already spent is refused, and the run stays as it was.
    again = client.post(f"{RUNS}{run.pk}/resume/", {"budget_usd": "0.01"}, "json")
    assert again.status_code == 400 and "would stop again at once" in again.json()["detail"][0]
    run.refresh_from_db()
    assert run.status == Status.STOPPED_AT_BUDGET and run.budget_usd == Decimal("0.01")

    # A higher budget: the run goes on with it (and stops again once it is spent).
    ceiling = (spent + Decimal("0.01")).quantize(Decimal("0.01"))
    with django_capture_on_commit_callbacks(execute=True):
        raised = client.post(f"{RUNS}{run.pk}/resume/", {"budget_usd": str(ceiling)}, "json")
    assert raised.status_code == 200, raised.json()
    assert raised.json()["queued"] == 7
    run.refresh_from_db()
    assert run.budget_usd == ceiling and run.status == Status.STOPPED_AT_BUDGET
    assert run.predictions.filter(status="answered").count() == 2

    # No budget sent: the run finishes with none (the old one is not kept).
    with django_capture_on_commit_callbacks(execute=True):
        done = client.post(f"{RUNS}{run.pk}/resume/", {}, "json")
    assert done.status_code == 200, done.json()
    assert done.json()["queued"] == 6
    assert done.json()["run"]["budget_usd"] is None
    run.refresh_from_db()
    assert run.status == Status.FINISHED and run.budget_usd is None and run.stop_reason == ""
    assert run.predictions.filter(status="answered").count() == 8


@pytest.mark.usefixtures("eager")
def test_a_budget_sent_to_resume_a_run_not_stopped_at_budget_is_refused(
    admin, server, django_capture_on_commit_callbacks
):
    _, client = admin
    corpus = build_corpus()
    run = services.evaluation_run_create(
        created_by=admin[0], provider_key="fake", setting="no_retrieval", items=corpus["items"]
    )
    services.evaluation_run_start(run_id=run.pk)
    services.evaluation_run_cancel(run_id=run.pk)

    refused = client.post(f"{RUNS}{run.pk}/resume/", {"budget_usd": "5"}, "json")

    assert refused.status_code == 400
    assert "given only when resuming a run stopped at its budget" in refused.json()["detail"][0]
    run.refresh_from_db()
    assert run.status == Status.CANCELLED and run.budget_usd is None

    with django_capture_on_commit_callbacks(execute=True):
        resumed = client.post(f"{RUNS}{run.pk}/resume/", {"budget_usd": None}, "json")
    assert resumed.status_code == 200 and resumed.json()["queued"] == 8
    run.refresh_from_db()
    assert run.status == Status.FINISHED


def test_the_schema_declares_the_budget_fields(admin):
    _, client = admin
    schema = client.get(reverse("api-schema"), HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    components = schema.json()["components"]["schemas"]
    run = components["EvaluationRun"]["properties"]
    assert run["budget_usd"]["nullable"] is True
    assert {"budget_usd", "stop_reason", "cost_usd"} <= set(components["EvaluationRun"]["required"])
    assert "budget_usd" in components["EvaluationRunLaunch"]["properties"]
    resume = components["EvaluationRunResume"]["properties"]["budget_usd"]
    assert resume["nullable"] is True
    paths = schema.json()["paths"]
    body = paths["/api/evaluation/runs/{run_id}/resume/"]["post"]["requestBody"]["content"]
    assert body["application/json"]["schema"]["$ref"].endswith("/EvaluationRunResume")
