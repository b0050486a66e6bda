"""Judge runs move onto the LLM-run framework (migration 0012): on a database that
already holds judge runs, every stored state takes its framework name, every call that
was sent gets one ``JudgeCallRecord`` carrying what the call stored, the calls keep
their status, attempts, error and verdict, and migrating back restores it all."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from adjudication.judging.models import JudgeCall, JudgeCallRecord, JudgeRun
from tests.judging.helpers import judged_pairs

APP = "adjudication"
MOVE = "0015_judge_runs_on_llm_runs"
BEFORE = (APP, "0014_mcq_screening_open_per_version")

OLD_STATES = ["draft", "queued", "running", "cancelled", "finished", "failed"]
NEW_STATES = ["pending", "running", "running", "cancelled", "finished", "finished_with_failures"]
REQUEST = {
    "prompt_version": "judge-v1",
    "provider": "gpt",
    "model": "gpt-judge",
    "system": "You judge.",
    "user": "## Character X",
    "schema": {"type": "object"},
}
ANSWER = '{"selected_letter": "B"}'


def _nodes(executor, adjudication):
    """Every app at its latest migration, adjudication at ``adjudication``."""
    leaves = [node for node in executor.loader.graph.leaf_nodes() if node[0] != APP]
    return [*leaves, adjudication]


def _old_rows(old, pair):
    """Judge runs in every old state; the finished one has a call that succeeded (with
    its verdict), one that failed and one never sent."""
    Run = old.get_model(APP, "JudgeRun")
    Call = old.get_model(APP, "JudgeCall")
    Verdict = old.get_model(APP, "JudgeVerdict")
    runs = {
        state: Run.objects.create(
            name=f"run {state}",
            judge_family="gpt",
            provider_family="gpt",
            model="gpt-judge",
            prompt_version="judge-v1",
            status=state,
        )
        for state in OLD_STATES
    }
    run = runs["failed"]
    candidates = sorted(pair.candidates.values_list("pk", flat=True))
    common = {"run_id": run.pk, "pair_id": pair.pk, "permutation": candidates}
    succeeded = Call.objects.create(
        **common,
        order_index=0,
        status="succeeded",
        attempts=1,
        request=REQUEST,
        response_text=ANSWER,
        tokens_in=120,
        tokens_out=40,
        latency_s=1.5,
    )
    Verdict.objects.create(
        call_id=succeeded.pk,
        suitability="suitable",
        selected_letter="B",
        selected_candidate_id=candidates[1],
        rating="as_is",
        selection_rationale="fits",
    )
    failed = Call.objects.create(
        **common,
        order_index=1,
        status="failed",
        attempts=2,
        request=REQUEST,
        response_text="not json",
        error="The judge gave no valid answer",
        error_kind="invalid_json",
        tokens_in=100,
        tokens_out=5,
        latency_s=0.5,
    )
    never = Call.objects.create(**common, order_index=2, status="cancelled")
    return runs, succeeded.pk, failed.pk, never.pk


@pytest.mark.django_db(transaction=True)
def test_stored_judge_runs_are_read_through_the_framework_after_the_move_and_back():
    (pair,), _ = judged_pairs(1)
    executor = MigrationExecutor(connection)
    after = executor.loader.graph.leaf_nodes()
    assert (APP, MOVE) in executor.loader.graph.forwards_plan(
        next(node for node in after if node[0] == APP)
    )
    try:
        executor.migrate([BEFORE])
        old = executor.loader.project_state(_nodes(executor, BEFORE)).apps
        runs, succeeded_id, failed_id, never_id = _old_rows(old, pair)

        executor = MigrationExecutor(connection)
        executor.migrate(after)

        states = [JudgeRun.objects.get(pk=runs[s].pk).status for s in OLD_STATES]
        assert states == NEW_STATES
        succeeded = JudgeCall.objects.get(pk=succeeded_id)
        assert (succeeded.status, succeeded.attempts) == ("succeeded", 1)
        assert succeeded.verdict.selected_letter == "B", "the verdict stays attached"
        assert (succeeded.tokens_in, succeeded.tokens_out) == (120, 40)
        (record,) = succeeded.records.all()
        assert record.ok and record.request == REQUEST and record.raw_response == ANSWER
        assert record.parsed == {"selected_letter": "B"}
        assert (record.provider, record.model) == ("gpt", "gpt-judge")
        assert (record.tokens_in, record.tokens_out, record.latency_s) == (120, 40, 1.5)
        assert len(record.prompt_hash) == 64

        failed = JudgeCall.objects.get(pk=failed_id)
        assert (failed.status, failed.attempts, failed.error_kind) == ("failed", 2, "invalid_json")
        assert failed.error_message == "The judge gave no valid answer"
        (record,) = failed.records.all()
        assert not record.ok and record.parsed is None and record.raw_response == "not json"
        assert record.error_kind == "invalid_json"
        assert record.error_message == "The judge gave no valid answer"
        assert not JudgeCallRecord.objects.filter(call_id=never_id).exists(), "never sent"
        assert JudgeCall.objects.get(pk=never_id).status == "cancelled"

        # Back: the old names and the call's own columns, from its latest record.
        executor = MigrationExecutor(connection)
        executor.migrate([BEFORE])
        old = executor.loader.project_state(_nodes(executor, BEFORE)).apps
        Run = old.get_model(APP, "JudgeRun")
        Call = old.get_model(APP, "JudgeCall")
        states = [Run.objects.get(pk=runs[s].pk).status for s in OLD_STATES]
        assert states == ["draft", "running", "running", "cancelled", "finished", "failed"]
        call = Call.objects.get(pk=succeeded_id)
        assert (call.request, call.response_text, call.latency_s) == (REQUEST, ANSWER, 1.5)
        assert (call.tokens_in, call.tokens_out, call.status) == (120, 40, "succeeded")
        call = Call.objects.get(pk=failed_id)
        assert (call.error, call.error_kind, call.response_text) == (
            "The judge gave no valid answer",
            "invalid_json",
            "not json",
        )
        assert old.get_model(APP, "JudgeVerdict").objects.get(call_id=succeeded_id)
        assert Call.objects.get(pk=never_id).request == {}
    finally:
        MigrationExecutor(connection).migrate(after)
