"""Evaluation's move onto the one LLM-run framework (migration 0005) on a database that
already holds runs: every stored state maps to the framework's, each prediction that was
sent to a model gets exactly one call record with what that call gave, imported and
refused predictions get none, and nothing stored is lost either way."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from evaluation import selectors
from evaluation.models import EvaluationCall, EvaluationPrediction, EvaluationRun
from tests.factories import UserFactory

from .conftest import build_corpus

BEFORE = [("evaluation", "0004_history_state_here")]
MOVE = [("evaluation", "0005_runs_on_the_llm_run_framework")]


def _old_apps(executor, nodes):
    return executor.loader.project_state(nodes).apps


@pytest.mark.django_db(transaction=True)
def test_rows_stored_before_the_move_are_read_through_the_framework_models_after_it():
    items = build_corpus(n_characters=4, n_scenarios=1)["items"]
    user = UserFactory()
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = _old_apps(executor, BEFORE)
    Run = old.get_model("evaluation", "EvaluationRun")
    Prediction = old.get_model("evaluation", "EvaluationPrediction")
    provider = {"kind": "openai", "model": "gpt-old", "base_url": "http://x"}
    ran = Run.objects.create(
        label="gpt-old",
        setting="no_retrieval",
        provider_key="fake",
        provider=provider,
        status="finished_with_failures",
        created_by_id=user.pk,
    )
    answered = Prediction.objects.create(
        run=ran,
        item_id=items[0].pk,
        status="answered",
        choice="B",
        parse_path="json",
        user_prompt="the prompt",
        raw_response='{"decision_choice": "B"}',
        parsed={"decision_choice": "B"},
        prompt_hash="a" * 64,
        tokens_in=120,
        tokens_out=30,
        latency_s=1.5,
        attempts=1,
    )
    failed = Prediction.objects.create(
        run=ran,
        item_id=items[1].pk,
        status="failed",
        prompt_hash="b" * 64,
        latency_s=5.0,
        error_kind="timeout",
        error_message="No answer within 5 s.",
        attempts=1,
    )
    blocked = Prediction.objects.create(
        run=ran,
        item_id=items[2].pk,
        status="leak_blocked",
        parse_path="leak",
        leak_reasons=["the construction label"],
        attempts=1,
    )
    imported_run = Run.objects.create(
        label="imported-model",
        origin="imported",
        setting="no_retrieval",
        provider={"kind": "imported"},
        status="imported",
        source_file="m.csv",
        created_by_id=user.pk,
    )
    imported = Prediction.objects.create(
        run=imported_run,
        item_id=items[3].pk,
        status="answered",
        choice="C",
        parse_path="imported",
        raw_response="C",
    )
    pending_run = Run.objects.create(
        label="later", setting="no_retrieval", provider_key="fake", created_by_id=user.pk
    )

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    states = dict(EvaluationRun.objects.values_list("pk", "status"))
    assert states == {
        ran.pk: "finished_with_failures",
        imported_run.pk: "finished",
        pending_run.pk: "pending",
    }
    assert EvaluationRun.objects.get(pk=imported_run.pk).is_imported
    assert EvaluationCall.objects.count() == 2
    call = EvaluationCall.objects.get(prediction_id=answered.pk)
    assert (call.provider, call.model, call.ok) == ("openai", "gpt-old", True)
    assert (call.prompt_hash, call.tokens_in, call.tokens_out, call.latency_s) == (
        "a" * 64,
        120,
        30,
        1.5,
    )
    assert call.raw_response == '{"decision_choice": "B"}'
    # dated when the call's outcome was stored on its prediction, not at the migration
    assert call.created_at == EvaluationPrediction.objects.get(pk=answered.pk).updated_at
    assert call.parsed == {"decision_choice": "B"}
    failed_call = EvaluationCall.objects.get(prediction_id=failed.pk)
    assert not failed_call.ok and failed_call.error_kind == "timeout"
    assert failed_call.error_message == "No answer within 5 s."
    assert not EvaluationCall.objects.filter(prediction_id__in=[blocked.pk, imported.pk]).exists()

    # The predictions keep what they were: their answer, tokens, error, reasons.
    row = EvaluationPrediction.objects.get(pk=answered.pk)
    assert (row.status, row.choice, row.tokens_in, row.tokens_out) == ("answered", "B", 120, 30)
    assert row.user_prompt == "the prompt" and row.parsed == {"decision_choice": "B"}
    assert EvaluationPrediction.objects.get(pk=failed.pk).error_kind == "timeout"
    assert EvaluationPrediction.objects.get(pk=blocked.pk).leak_reasons == [
        "the construction label"
    ]
    # The pages and the API still read each prediction's latency and prompt hash.
    shown = selectors.prediction_get(run_id=ran.pk, prediction_id=answered.pk)
    assert (shown.latency_s, shown.prompt_hash) == (1.5, "a" * 64)
    shown = selectors.prediction_get(run_id=imported_run.pk, prediction_id=imported.pk)
    assert (shown.latency_s, shown.prompt_hash) == (None, "")

    # Backwards: the old columns and states come back from the calls and the origin; a
    # cancelled run (a state that did not exist) is left resumable.
    cancelled = EvaluationRun.objects.create(
        label="stopped",
        setting="no_retrieval",
        provider_key="fake",
        status="cancelled",
        created_by=user,
    )
    stopped = EvaluationPrediction.objects.create(
        run=cancelled, item=items[0], status=EvaluationPrediction.Status.CANCELLED
    )
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = _old_apps(executor, BEFORE)
    Run = old.get_model("evaluation", "EvaluationRun")
    Prediction = old.get_model("evaluation", "EvaluationPrediction")
    assert Run.objects.get(pk=imported_run.pk).status == "imported"
    assert Run.objects.get(pk=cancelled.pk).status == "finished_with_failures"
    assert Prediction.objects.get(pk=stopped.pk).status == "failed"
    back = Prediction.objects.get(pk=answered.pk)
    assert (back.prompt_hash, back.latency_s, back.tokens_in) == ("a" * 64, 1.5, 120)
    assert Prediction.objects.get(pk=imported.pk).prompt_hash == ""

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert EvaluationCall.objects.count() == 2
