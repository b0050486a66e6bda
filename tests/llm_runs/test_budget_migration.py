"""The budget, stop reason and call cost columns (issue #36: annotation 0018, adjudication
0016, audit 0010, evaluation 0008) keep every stored row: a run and a call written before
them read back unchanged through the models, with no budget, no stop reason and a call
cost of 0; going back drops the columns and keeps the rows."""

from decimal import Decimal

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from annotation.generation.models import GenerationRun, GenerationUnit, LlmCallRecord
from core.llm_runs.models import MonthlySpendingCap, RunStatus

BEFORE = [
    ("annotation", "0017_default_prompts_v3"),
    ("adjudication", "0015_judge_runs_on_llm_runs"),
    ("audit", "0009_child_age_is_the_school_age_bin"),
    ("evaluation", "0007_memory_content_ablation"),
    ("core", "0002_stored_report"),
]


def _old_rows(apps):
    Prompt = apps.get_model("annotation", "PromptVersion")
    prompts = {
        stage: Prompt.objects.create(stage=stage, number=90, system_template="s", user_template="u")
        for stage in ("screening", "reranking", "response")
    }
    run = apps.get_model("annotation", "GenerationRun").objects.create(
        status="finished",
        families=["gpt"],
        screening_prompt=prompts["screening"],
        reranking_prompt=prompts["reranking"],
        response_prompt=prompts["response"],
        note="before the budgets",
    )
    character = apps.get_model("annotation", "Character").objects.create(key="CHAR_01")
    scenario = apps.get_model("annotation", "Scenario").objects.create(
        scenario_id="SCN_SCHOOL_AGE_1", age=10
    )
    unit = apps.get_model("annotation", "GenerationUnit").objects.create(
        run=run,
        character=character,
        scenario=scenario,
        family="gpt",
        status="succeeded",
        tokens_in=1200,
        tokens_out=300,
        cost_usd=Decimal("0.0081"),
    )
    apps.get_model("annotation", "LlmCallRecord").objects.create(
        unit=unit,
        stage="response",
        provider="openai",
        model="gpt-x",
        prompt_hash="a" * 64,
        ok=True,
        tokens_in=1200,
        tokens_out=300,
    )
    return run.pk


@pytest.mark.django_db(transaction=True)
def test_runs_and_calls_stored_before_the_budgets_read_back_through_the_models():
    executor = MigrationExecutor(connection)
    after = executor.loader.graph.leaf_nodes()
    executor.migrate(BEFORE)
    run_id = _old_rows(executor.loader.project_state(BEFORE).apps)

    executor = MigrationExecutor(connection)
    executor.migrate(after)

    run = GenerationRun.objects.get(pk=run_id)
    assert (run.status, run.note, run.families) == (
        RunStatus.FINISHED,
        "before the budgets",
        ["gpt"],
    )
    assert run.budget_usd is None and run.stop_reason == ""
    unit = GenerationUnit.objects.get(run=run)
    assert (unit.tokens_in, unit.tokens_out, unit.cost_usd) == (1200, 300, Decimal("0.0081"))
    call = LlmCallRecord.objects.get(unit=unit)
    assert (call.provider, call.tokens_in, call.cost_usd) == ("openai", 1200, 0)
    assert not MonthlySpendingCap.objects.exists()

    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    assert old.get_model("annotation", "GenerationRun").objects.get(pk=run_id).status == "finished"
    assert old.get_model("annotation", "LlmCallRecord").objects.count() == 1

    executor = MigrationExecutor(connection)
    executor.migrate(after)
