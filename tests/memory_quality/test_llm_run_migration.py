"""The memory audit's move onto the LLM-run framework (issue #33, audit migrations
0006-0008) keeps every stored row: on a database holding runs, classifier results and
repair attempts written before the move, the runs read with the one ``RunStatus`` and a
unit per character, and each stored call reads as an ``AuditCall`` with its fields; going
back rebuilds the JSON the rows held."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from audit.memory_quality.models import AuditCall, AuditRun, ClassifierResult, RepairAttempt
from core.llm_runs.models import RunStatus

BEFORE = [("audit", "0005_history_state_here")]

CLASSIFIER_CALL = {
    "provider": "openai",
    "model": "fake-classifier",
    "prompt_hash": "a" * 64,
    "ok": True,
    "parsed": {"defect": True, "evidence": "Years later", "rationale": "post-hoc"},
    "text": '{"defect": true}',
    "raw_response": '{"choices": []}',
    "request": {"messages": [{"role": "user", "content": "Is it post-hoc?"}]},
    "endpoint": "http://127.0.0.1:9/v1/chat/completions",
    "tokens_in": 120,
    "tokens_out": 30,
    "latency_s": 0.25,
    "attempt_count": 1,
    "rounds": 1,
    "finish_reason": "stop",
    "error_kind": None,
    "error_message": None,
    "started_at": "2026-12-01T10:00:00+00:00",
    "demo": False,
    "attempts": [{"n": 1, "status": 200}],
}
REPAIR_CALL = {
    **CLASSIFIER_CALL,
    "model": "fake-repair",
    "ok": False,
    "parsed": None,
    "tokens_in": 0,
    "tokens_out": 0,
    "error_kind": "connect_error",
    "error_message": "Connection refused",
}


def _old_rows(apps):
    user = apps.get_model("auth", "User").objects.create(username="before-the-move")
    Character = apps.get_model("annotation", "Character")
    one, two = (Character.objects.create(key=k) for k in ("CHAR_01", "CHAR_02"))
    memory = apps.get_model("annotation", "Memory").objects.create(
        memory_id="CHAR_01_001",
        anonymized_id="M_001",
        timeline="childhood (age 8)",
        character=one,
        sequence=1,
        event_age=8,
        life_stage="middle_childhood",
        context="c",
        content_summary="s",
        content_full="f",
        psych_conclusion="p",
        behavior_policy="b",
        emotion_primary="joy",
        emotion_intensity=0.5,
    )
    version = apps.get_model("audit", "AuditSettings").objects.create(
        number=1,
        omniscient_patterns=[],
        adult_evaluation_patterns=[],
        psychoanalytic_terms=[],
        age_windows=[],
    )
    AuditRun = apps.get_model("audit", "AuditRun")
    failed = AuditRun.objects.create(
        settings_version=version,
        status="failed",
        error="MemoryError: out of memory",
        summary={"per_character": {"CHAR_01": 1}},
        created_by=user,
    )
    finished = AuditRun.objects.create(
        settings_version=version,
        status="finished",
        character_keys=["CHAR_02"],
        summary={"per_character": {"CHAR_02": 0}},
    )
    case = apps.get_model("audit", "MemoryCase").objects.create(
        run=failed, memory=memory, character=one, initial_criteria=[1]
    )
    ClassifierResult = apps.get_model("audit", "ClassifierResult")
    ClassifierResult.objects.create(
        run=failed, memory=memory, criterion=1, verdict="confirms", call=CLASSIFIER_CALL
    )
    ClassifierResult.objects.create(run=failed, memory=memory, criterion=2, verdict="failed")
    apps.get_model("audit", "RepairAttempt").objects.create(
        case=case,
        number=1,
        criteria=[1],
        fields=["content_full"],
        system_prompt="sys",
        user_prompt="user",
        call=REPAIR_CALL,
        error="connect_error: Connection refused",
    )
    return failed.pk, finished.pk, two.pk


@pytest.mark.django_db(transaction=True)
def test_stored_runs_and_calls_survive_the_move_and_the_way_back():
    executor = MigrationExecutor(connection)
    after = [node for node in executor.loader.graph.leaf_nodes() if node[0] == "audit"]
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    failed_id, finished_id, char_two = _old_rows(old)

    executor = MigrationExecutor(connection)
    executor.migrate(after)

    failed = AuditRun.objects.get(pk=failed_id)
    assert failed.status == RunStatus.FINISHED_WITH_FAILURES
    assert failed.error == "MemoryError: out of memory"
    units = {u.character.key: u for u in failed.units.select_related("character")}
    assert units["CHAR_01"].status == "done" and units["CHAR_01"].memory_count == 1
    assert units["CHAR_02"].status == "failed"
    assert units["CHAR_02"].error_message == "MemoryError: out of memory"
    finished = AuditRun.objects.get(pk=finished_id)
    assert finished.status == RunStatus.FINISHED
    assert [(u.character_id, u.status) for u in finished.units.all()] == [(char_two, "done")]

    confirms = ClassifierResult.objects.get(run=failed, criterion=1)
    call = confirms.call
    assert isinstance(call, AuditCall) and call.kind == "classifier" and call.run_id == failed_id
    assert (call.provider, call.model, call.ok) == ("openai", "fake-classifier", True)
    assert call.parsed == CLASSIFIER_CALL["parsed"]
    assert (call.tokens_in, call.tokens_out, call.latency_s) == (120, 30, 0.25)
    assert call.prompt_hash == "a" * 64 and call.attempt_count == 1
    assert call.request == CLASSIFIER_CALL["request"]
    assert call.raw_response == '{"choices": []}'
    assert call.details["finish_reason"] == "stop" and call.details["attempts"] == [
        {"n": 1, "status": 200}
    ]
    assert ClassifierResult.objects.get(run=failed, criterion=2).call is None
    repair = RepairAttempt.objects.get().call
    assert (repair.kind, repair.ok, repair.error_kind) == ("repair", False, "connect_error")
    assert repair.error_message == "Connection refused"
    assert AuditCall.objects.count() == 2

    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    OldRun = old.get_model("audit", "AuditRun")
    assert OldRun.objects.get(pk=failed_id).status == "failed"
    assert OldRun.objects.get(pk=finished_id).status == "finished"
    OldResult = old.get_model("audit", "ClassifierResult")
    assert OldResult.objects.get(criterion=1).call == CLASSIFIER_CALL
    assert OldResult.objects.get(criterion=2).call == {}
    assert old.get_model("audit", "RepairAttempt").objects.get().call == REPAIR_CALL

    MigrationExecutor(connection).migrate(after)
