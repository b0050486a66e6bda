"""Every fault the fake provider injects: bounded retries, recorded reasons, retry_failed."""

import pytest

from annotation.generation.models import Candidate, GenerationRun, GenerationUnit
from annotation.generation.services.runs import (
    GenerationError,
    generation_run_create,
    generation_run_retry_failed,
    generation_run_start,
)
from annotation.generation.services.units import generation_unit_execute
from llm.testing.replies import (
    hang,
    json_reply,
    malformed_body,
    non_json_reply,
    rate_limited,
    server_error,
    truncated_body,
    truncated_reply,
)
from tests.factories import UserFactory

from .helpers import VALID_RESPONSE, frozen_character, scenario, stage_of

pytestmark = pytest.mark.django_db

INVALID_RESPONSE = {**VALID_RESPONSE, "final_decision": ""}  # minLength 1

# (fault, error kind when it persists, retried by the transport or by another round)
FAULTS = {
    "429 with Retry-After": (lambda: rate_limited(retry_after=1), "rate_limited", "transport"),
    "500": (lambda: server_error(500), "server_error", "transport"),
    "hang past the timeout": (lambda: hang(4), "timeout", "transport"),
    "malformed JSON body": (malformed_body, "malformed_response", "transport"),
    "truncated body": (truncated_body, "truncated_body", "transport"),
    "reply that is not JSON": (non_json_reply, "invalid_json", "round"),
    "reply cut at max tokens": (truncated_reply, "output_truncated", "round"),
    "reply against the schema": (lambda: json_reply(INVALID_RESPONSE), "schema_invalid", "round"),
}


def one_unit(families=("claude",)):
    frozen_character(ages=[6, 7])
    scenario(age=10)
    run = generation_run_create(user=UserFactory(), families=list(families))
    generation_run_start(run_id=run.pk)
    return run


@pytest.mark.parametrize("name", list(FAULTS))
def test_a_passing_fault_is_retried_and_the_unit_succeeds(name, providers, fake_server, script):
    fault, _, retried_by = FAULTS[name]
    script.faults["response"] = [fault()]
    run = one_unit()

    unit = generation_unit_execute(unit_id=run.units.get().pk)

    assert unit.status == GenerationUnit.Status.SUCCEEDED, unit.error_message
    call = unit.calls.get(stage="response")
    assert call.ok
    assert call.attempt_count == 2
    assert call.details["rounds"] == (2 if retried_by == "round" else 1)
    assert call.details["attempts"][0]["error_kind"] == FAULTS[name][1]
    assert Candidate.objects.filter(unit=unit).count() == 1


@pytest.mark.parametrize("name", list(FAULTS))
def test_a_persistent_fault_fails_the_unit_with_its_reason(name, providers, fake_server, script):
    fault, kind, retried_by = FAULTS[name]
    script.always["response"] = fault()
    run = one_unit()

    unit = generation_unit_execute(unit_id=run.units.get().pk)

    assert unit.status == GenerationUnit.Status.FAILED
    assert unit.error_kind == kind
    assert unit.error_message.startswith("Response failed after")
    assert kind in unit.error_message
    assert unit.stage_reached == "reranking"  # screening and re-ranking are kept
    call = unit.calls.get(stage="response")
    assert not call.ok and call.error_kind == kind and call.parsed is None
    # bounded: 3 transport tries (max_retries=2) or 3 structured-output rounds
    responses = [r for r in fake_server.requests if stage_of(r) == "response"]
    assert len(responses) == 3 == call.attempt_count
    assert call.details["rounds"] == (3 if retried_by == "round" else 1)
    assert not Candidate.objects.exists()
    run.refresh_from_db()
    assert run.status == GenerationRun.Status.FINISHED_WITH_FAILURES


def test_a_screening_failure_is_recorded_at_its_stage(providers, script):
    script.always["screening"] = server_error(502)
    run = one_unit()

    unit = generation_unit_execute(unit_id=run.units.get().pk)

    assert unit.status == GenerationUnit.Status.FAILED
    assert unit.stage_reached == ""
    assert unit.error_message.startswith("Screening (batch 1 of 1) failed")
    assert "HTTP 502" in unit.error_message


def test_retry_failed_reruns_only_the_failed_units(
    providers, fake_server, script, django_capture_on_commit_callbacks
):
    script.always["response"] = server_error(500)
    run = one_unit(families=("claude", "gpt", "gemini"))
    units = list(run.units.order_by("family"))
    for unit in units:
        if unit.family == "gpt":
            generation_unit_execute(unit_id=unit.pk)
    script.always.clear()
    for unit in units:
        if unit.family != "gpt":
            generation_unit_execute(unit_id=unit.pk)
    run.refresh_from_db()
    assert run.status == GenerationRun.Status.FINISHED_WITH_FAILURES
    failed = run.units.get(status=GenerationUnit.Status.FAILED)
    assert failed.family == "gpt"
    fake_server.reset()

    with django_capture_on_commit_callbacks() as callbacks:
        generation_run_retry_failed(run_id=run.pk)
    assert len(callbacks) == 1
    run.refresh_from_db()
    assert run.status == GenerationRun.Status.RUNNING
    failed.refresh_from_db()
    assert failed.status == GenerationUnit.Status.PENDING and failed.error_message == ""

    for unit in run.units.all():  # every task arriving, even for finished units
        generation_unit_execute(unit_id=unit.pk)

    assert {r.route for r in fake_server.requests} == {"openai"}
    assert [stage_of(r) for r in fake_server.requests] == ["response"]  # resumed
    run.refresh_from_db()
    assert run.status == GenerationRun.Status.FINISHED
    assert Candidate.objects.filter(run=run).count() == 3
    assert run.units.get(family="gpt").attempts == 2
    with pytest.raises(GenerationError, match="no failed units"):
        generation_run_retry_failed(run_id=run.pk)
