"""Temperature 0 (seed 000 App. F and I: "temperature 0 where supported and the endpoint
default otherwise"): a temperature in the worker's environment is never sent; a run
launched at another temperature records why as a protocol deviation, shown on the run
page and listed in the export manifest."""

import pytest
from django.urls import reverse

from core.deviations import ProtocolDeviation, deviations_for_manifest
from evaluation import services
from evaluation.models import EvaluationError, EvaluationRun, Setting

from .conftest import run_one

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]

ANSWER = {"decision_choice": "A", "final_decision": "I do A."}


@pytest.fixture
def warm_environment(fake_model, monkeypatch):
    """The evaluation model's environment sets a temperature of its own."""
    monkeypatch.setenv("HEARTBENCH_EVAL_FAKE_TEMPERATURE", "0.9")
    fake_model.responder = lambda req: ANSWER
    return fake_model


def test_the_environments_temperature_is_not_sent(
    admin_user, corpus, warm_environment, django_capture_on_commit_callbacks
):
    """Seed 000 App. F / I: the run sends the temperature it recorded (0), not the one
    the worker's environment sets, and so records no deviation."""
    run = run_one(admin_user, corpus["items"][0], django_capture_on_commit_callbacks)
    (request,) = warm_environment.requests
    assert request.body["temperature"] == 0 == run.decoding["temperature"]
    assert not run.protocol_deviations.exists()


def test_a_run_at_another_temperature_is_a_recorded_deviation(
    admin_user, corpus, warm_environment, client, django_capture_on_commit_callbacks
):
    """Seed 000 App. F / I fix temperature 0: a run launched at 0.7 sends 0.7, records
    it, and the deviation with the admin's reason is on the run page and in the export
    manifest."""
    run = run_one(
        admin_user,
        corpus["items"][0],
        django_capture_on_commit_callbacks,
        decoding={"temperature": 0.7},
        note="Sampling check for the lab report",
    )
    (request,) = warm_environment.requests
    assert request.body["temperature"] == 0.7 == run.decoding["temperature"]
    (deviation,) = run.protocol_deviations
    assert (deviation.stage, deviation.kind) == ("evaluation", "setting")
    assert deviation.subject == f"evaluation run {run.pk}"
    assert "temperature 0.7" in deviation.rule and deviation.recorded_by == admin_user
    client.force_login(admin_user)
    page = client.get(reverse("evaluation:run-detail", args=[run.pk])).content.decode()
    assert "Protocol deviation" in page and "Sampling check for the lab report" in page
    assert "temperature 0.7" in page
    (row,) = [r for r in deviations_for_manifest() if r["subject"] == deviation.subject]
    assert row["reason"] == "Sampling check for the lab report"


def test_another_temperature_without_a_reason_is_refused(admin_user, corpus, warm_environment):
    """Seed 000 App. F / I: a deviation must say why (core.deviations); without a note
    nothing is created."""
    with pytest.raises(EvaluationError, match="temperature 0"):
        services.evaluation_run_create(
            created_by=admin_user,
            provider_key="fake",
            setting=Setting.NO_RETRIEVAL,
            items=corpus["items"][:1],
            decoding={"temperature": 0.7},
        )
    assert not EvaluationRun.objects.exists() and not ProtocolDeviation.objects.exists()
