"""The optional LLM classifier against the fake provider server: it confirms a pattern
flag, adds one the patterns missed (which goes to a person), or rejects; recorded
apart from the pattern result, once per memory and criterion."""

import json

import pytest
from django.test import Client
from django.urls import reverse

from audit.memory_quality.models import ClassifierResult, MemoryCase, MemoryFlag
from audit.memory_quality.services.classifier import classifier_run_start
from audit.memory_quality.services.runs import audit_run_execute, audit_run_start
from core.roles import Role
from llm import ProviderConfig

from .conftest import CLEAN, CLEAN_REWRITE, DRIFT, hand_written

pytestmark = pytest.mark.django_db


@pytest.fixture
def classifier_model(settings, fake_server):
    settings.HEARTBENCH_AUDIT_CLASSIFIER_PROVIDER = ProviderConfig(
        kind="anthropic",
        model="fake-classifier",
        base_url=fake_server.base_url("anthropic"),
        timeout=5.0,
        max_retries=1,
    )
    return fake_server


def test_the_classifier_confirms_adds_and_rejects(
    admin_user, classifier_model, eager_celery, django_capture_on_commit_callbacks
):
    flagged = hand_written(sequence=1, event_age=20, content_full=DRIFT)
    missed = hand_written(sequence=2, event_age=30, content_full=CLEAN + " It haunted me forever.")
    clean = hand_written(sequence=3, event_age=40, content_full=CLEAN_REWRITE)
    run = audit_run_start(created_by=admin_user)
    audit_run_execute(run_id=run.pk)
    answers = {
        flagged.memory_id: {"defect": True, "evidence": "Years later", "rationale": "post-hoc"},
        missed.memory_id: {
            "defect": True,
            "evidence": "It haunted me forever.",
            "rationale": "implies long-term impact",
        },
        clean.memory_id: {"defect": False, "evidence": "", "rationale": "in the moment"},
    }
    classifier_model.responder = lambda request: next(
        answer for mid, answer in answers.items() if mid in json.dumps(request.body)
    )
    with django_capture_on_commit_callbacks(execute=True):
        queued = classifier_run_start(run_id=run.pk, criterion=1, actor=admin_user)
    assert queued == 3
    verdicts = dict(
        ClassifierResult.objects.filter(run=run).values_list("memory__memory_id", "verdict")
    )
    assert verdicts == {
        flagged.memory_id: "confirms",
        missed.memory_id: "adds",
        clean.memory_id: "rejects",
    }
    added = MemoryCase.objects.get(run=run, memory=missed)
    assert added.status == MemoryCase.Status.REVIEW
    flag = MemoryFlag.objects.get(case=added)
    assert flag.source == "classifier" and flag.spans[0]["text"] == "It haunted me forever."
    # The pattern flag is unchanged; a second start queues nothing.
    assert MemoryFlag.objects.filter(case__memory=flagged, source="pattern").count() == 1
    with django_capture_on_commit_callbacks(execute=True):
        assert classifier_run_start(run_id=run.pk, criterion=1, actor=admin_user) == 0
    assert len(classifier_model.requests) == 3
    client = Client()
    client.force_login(admin_user)
    page = client.get(reverse("audit:run-detail", args=[run.pk])).content.decode()
    assert "criterion 1: adds × 1" in page


def test_only_the_admin_runs_the_classifier(person, admin_user, classifier_model):
    hand_written()
    run = audit_run_start(created_by=admin_user)
    audit_run_execute(run_id=run.pk)
    client = Client()
    client.force_login(person(Role.MEMORY_REVIEWER))
    assert (
        client.post(reverse("audit:run-classify", args=[run.pk]), {"criterion": 1}).status_code
        == 403
    )
