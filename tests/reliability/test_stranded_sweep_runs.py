"""The stranded-work sweep covers every run that queues its work as messages: evaluation
items, judge calls, MCQ screenings and audit runs, besides generation units (see
test_stranded_sweep.py). A broker restart can lose a message between Redis handing it
over and the worker recording it; without a sweep the unit waits forever and its run never
ends. Against the real Redis broker, each run is started inside the test's transaction,
which never commits, so its messages are never sent: exactly a lost message."""

from datetime import timedelta
from importlib import import_module

import pytest
from django.utils import timezone

from adjudication.judging.models import JudgeCall
from adjudication.judging.services.runs import judge_run_create, judge_run_start
from adjudication.mcq.models import McqScreening
from adjudication.mcq.services import screening_runs
from audit.memory_quality.models import AuditRun, AuditUnit, MemoryCase
from audit.memory_quality.services.runs import audit_run_execute, audit_run_start
from core.llm_runs.models import RunStatus
from core.roles import Role
from core.tasks import STRANDED_SWEEPS, broker_messages, resend_stranded
from evaluation import services as evaluation
from evaluation.models import EvaluationPrediction
from tests.evaluation.conftest import build_corpus, fake_env
from tests.factories import UserFactory
from tests.judging.helpers import judged_pairs
from tests.llm_runs.audit_helpers import configure, flagged_corpus
from tests.llm_runs.test_budget_stop_judge import providers, server  # noqa: F401
from tests.llm_runs.test_cost_estimate_screening import assemble
from tests.mcq.conftest import (  # noqa: F401
    fake_server,
    judge,
    person,
    references,
    role_groups,
    scenario,
)

from .test_stranded_sweep import broker  # noqa: F401

pytestmark = pytest.mark.django_db

SWEEP_TASK = "heartbench_site.resend_stranded"


@pytest.fixture(autouse=True)
def task_modules(broker):  # noqa: F811
    """Every workflow's task module, as a worker imports them (they register the sweeps);
    and the broker for real, not Celery's eager mode."""
    for module in broker.conf.imports:
        import_module(module)
    previous = broker.conf.task_always_eager
    broker.conf.task_always_eager = False
    yield
    broker.conf.task_always_eager = previous


def backdate(units, settings):
    past = timezone.now() - timedelta(seconds=settings.HEARTBENCH_STRANDED_GRACE_SECONDS + 5)
    assert units.update(updated_at=past) > 0


def sweep_sends_each_once(broker, task, ids):  # noqa: F811
    expected = {(task, (pk,)) for pk in ids}
    assert resend_stranded(broker) == len(expected) > 0
    assert broker_messages(broker) == expected
    # A second sweep finds every message waiting and sends nothing more.
    assert resend_stranded(broker) == 0
    assert broker_messages(broker) == expected


def test_every_run_that_queues_messages_is_swept():
    assert {
        "annotation.execute_generation_unit",
        "annotation.execute_memory_batch",
        "annotation.execute_character_draft",
        "evaluation.execute_prediction",
        "adjudication.execute_judge_call",
        "adjudication.mcq_screen_unit",
        "audit.run_memory_audit",
        "audit.repair_memory",
        "audit.observe_character",
        "audit.screen_release_hygiene",
    } <= set(STRANDED_SWEEPS)


def test_an_evaluation_item_whose_message_was_lost_is_sent_again(
    broker,  # noqa: F811
    settings,
    fake_server,  # noqa: F811
    monkeypatch,
):
    for name, value in fake_env(fake_server).items():
        monkeypatch.setenv(name, value)
    build_corpus(n_characters=2, n_scenarios=2)
    run = evaluation.evaluation_run_create(
        created_by=UserFactory(roles=[Role.ADMIN]),
        provider_key="fake",
        setting="no_retrieval",
        items=None,
    )
    evaluation.evaluation_run_start(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING
    waiting = EvaluationPrediction.objects.filter(run=run)
    # Moments after the start the messages may still be on their way: nothing is sent.
    assert resend_stranded(broker) == 0
    assert broker_messages(broker) == {(SWEEP_TASK, ())}
    broker.connection_for_write().default_channel.client.flushdb()
    backdate(waiting, settings)
    sweep_sends_each_once(
        broker, "evaluation.execute_prediction", waiting.values_list("pk", flat=True)
    )


def test_a_judge_call_whose_message_was_lost_is_sent_again(broker, settings, providers):  # noqa: F811
    _, people_ = judged_pairs(2)
    run = judge_run_create(user=people_["admin"], name="", provider_family="gpt", seed=5)
    judge_run_start(run_id=run.pk)
    calls = JudgeCall.objects.filter(run=run)
    backdate(calls, settings)
    sweep_sends_each_once(
        broker, "adjudication.execute_judge_call", calls.values_list("pk", flat=True)
    )


def test_a_screening_whose_message_was_lost_is_sent_again(
    broker,  # noqa: F811
    settings,
    references,  # noqa: F811
    person,  # noqa: F811
    judge,  # noqa: F811
):
    assemble(references, "CHAR_01", "CHAR_04")
    run = screening_runs.screening_run_for_everything_awaiting(user=person(Role.ADMIN))
    assert run.status == RunStatus.RUNNING
    units = McqScreening.objects.filter(run=run)
    backdate(units, settings)
    sweep_sends_each_once(broker, screening_runs.UNIT_TASK, units.values_list("pk", flat=True))


def test_an_audit_run_whose_message_was_lost_is_sent_again(broker, settings):  # noqa: F811
    flagged_corpus(["CHAR_01", "CHAR_02"])
    run = audit_run_start(created_by=UserFactory(roles=[Role.ADMIN]))
    assert run.status == RunStatus.PENDING
    AuditRun.objects.filter(pk=run.pk).update(
        created_at=timezone.now()
        - timedelta(seconds=settings.HEARTBENCH_STRANDED_GRACE_SECONDS + 5)
    )
    backdate(AuditUnit.objects.filter(run=run), settings)
    sweep_sends_each_once(broker, "audit.run_memory_audit", [run.pk])
    # A run whose characters are all audited has no message to wait for.
    AuditUnit.objects.filter(run=run).update(status=AuditUnit.Status.DONE)
    broker.connection_for_write().default_channel.client.flushdb()
    assert resend_stranded(broker) == 0


def test_a_repair_whose_message_was_lost_is_sent_again(broker, settings, fake_server):  # noqa: F811
    configure(settings, fake_server)
    flagged_corpus(["CHAR_01", "CHAR_02"])
    run = audit_run_start(created_by=UserFactory(roles=[Role.ADMIN]))
    audit_run_execute(run_id=run.pk)  # the repairs' messages wait for a commit that never comes
    run.refresh_from_db()
    assert run.status == RunStatus.FINISHED
    cases = MemoryCase.objects.filter(run=run, status=MemoryCase.Status.REPAIRING)
    backdate(cases, settings)
    sweep_sends_each_once(broker, "audit.repair_memory", cases.values_list("pk", flat=True))
    # A run stopped at its budget keeps its repairs for its resume.
    AuditRun.objects.filter(pk=run.pk).update(status=RunStatus.STOPPED_AT_BUDGET)
    broker.connection_for_write().default_channel.client.flushdb()
    assert resend_stranded(broker) == 0
