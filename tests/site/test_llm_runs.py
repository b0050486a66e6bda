"""One machinery for every LLM-backed run (issue #33): each stage's run, unit and
call-record models derive from ``core.llm_runs``, so a new stage cannot copy the
fields, the states or the cost arithmetic again."""

from decimal import Decimal
from pathlib import Path

import pytest
from django.apps import apps

from adjudication.judging.models import JudgeCall, JudgeCallRecord, JudgeRun
from adjudication.mcq.models import McqScreening, McqScreeningCall, McqScreeningRun
from annotation.character_drafting.models import DraftingCall, DraftingJob, DraftingPrompt
from annotation.generation.models import (
    GenerationRun,
    GenerationStage,
    GenerationUnit,
    LlmCallRecord,
    PromptVersion,
)
from annotation.memory_generation.models import (
    MemoryBatch,
    MemoryCallRecord,
    MemoryPromptVersion,
    MemoryRun,
)
from audit.hygiene.models import HygieneRun, HygieneUnit
from audit.memory_quality.models import AuditCall, AuditRun, AuditUnit
from audit.observers.models import ObserverCall, ObserverRun, ObserverUnit
from core.llm_runs.models import (
    MILLION,
    AbstractCall,
    AbstractCallRecord,
    AbstractPromptVersion,
    LlmRun,
    LlmUnit,
    PromptInUseError,
    RunStatus,
)
from core.llm_runs.services import call_cost, record_call
from evaluation.models import EvaluationCall, EvaluationPrediction, EvaluationRun
from llm import CallResult
from tests.factories import CharacterFactory, ScenarioFactory

ROOT = Path(__file__).resolve().parents[2]

RUNS = [
    GenerationRun,
    MemoryRun,
    DraftingJob,
    JudgeRun,
    McqScreeningRun,
    AuditRun,
    EvaluationRun,
    ObserverRun,
    HygieneRun,
]
UNITS = [
    GenerationUnit,
    MemoryBatch,
    JudgeCall,
    McqScreening,
    AuditUnit,
    EvaluationPrediction,
    ObserverUnit,
    HygieneUnit,
]
CALL_RECORDS = [
    LlmCallRecord,
    MemoryCallRecord,
    DraftingCall,
    JudgeCallRecord,
    McqScreeningCall,
    AuditCall,
    EvaluationCall,
    ObserverCall,
]
PROMPT_VERSIONS = [PromptVersion, MemoryPromptVersion, DraftingPrompt]


def test_every_stage_call_record_derives_from_the_abstract_record():
    for model in CALL_RECORDS:
        assert issubclass(model, AbstractCall), model
    assert issubclass(LlmCallRecord, AbstractCallRecord)
    assert issubclass(MemoryCallRecord, AbstractCallRecord)
    assert issubclass(McqScreeningCall, AbstractCallRecord)
    assert issubclass(EvaluationCall, AbstractCallRecord)


def test_no_other_model_copies_the_call_record_fields():
    shaped = {
        model._meta.label
        for model in apps.get_models()
        if {"tokens_in", "tokens_out", "latency_s"} <= {f.name for f in model._meta.fields}
        and not issubclass(model, AbstractCall)
    }
    assert shaped == set(), sorted(shaped)


def test_every_run_uses_the_one_run_status():
    for model in RUNS:
        assert issubclass(model, LlmRun), model
    for model in UNITS:
        assert issubclass(model, LlmUnit), model
    runs = [m for m in apps.get_models() if issubclass(m, LlmRun)]
    assert set(RUNS) <= set(runs)
    for model in runs:
        assert model.Status is RunStatus, model
        choices = set(model._meta.get_field("status").choices)
        assert choices <= set(RunStatus.choices), model


def test_no_other_run_repeats_the_run_states():
    """A run-shaped model (a status with a cancelled or finished-with-failures state) is
    an LlmRun."""
    states = {RunStatus.CANCELLED.value, RunStatus.FINISHED_WITH_FAILURES.value}
    shaped = set()
    for model in apps.get_models():
        if model.__name__.startswith("Historical"):
            continue
        if issubclass(model, LlmRun):
            continue
        fields = {f.name: f for f in model._meta.fields}
        if "status" in fields and "started_at" in fields:
            values = {value for value, _ in fields["status"].choices or []}
            if states <= values or (states & values and model.__name__.endswith("Run")):
                shaped.add(model._meta.label)
    assert shaped == set(), sorted(shaped)


def test_every_prompt_version_derives_from_the_abstract_version():
    for model in PROMPT_VERSIONS:
        assert issubclass(model, AbstractPromptVersion), model
        assert issubclass(model.in_use_error, PromptInUseError), model
    shaped = {
        model._meta.label
        for model in apps.get_models()
        if {"system_template", "user_template"} <= {f.name for f in model._meta.fields}
        and not issubclass(model, AbstractPromptVersion)
        and not model.__name__.startswith("Historical")
    }
    assert not shaped, sorted(shaped)


def test_the_price_of_a_million_tokens_is_defined_once():
    found = [
        str(path.relative_to(ROOT))
        for path in ROOT.glob("*/**/*.py")
        if ".venv" not in path.parts
        and "tests" not in path.parts
        and "MILLION = " in path.read_text(encoding="utf-8")
    ]
    assert found == ["core/llm_runs/models.py"]


def test_call_cost_is_tokens_times_price_per_million():
    result = CallResult(provider="fake", model="m", prompt_hash="h", tokens_in=1000, tokens_out=500)
    assert (
        call_cost(result, (Decimal("3"), Decimal("15")))
        == (Decimal(1000) * 3 + Decimal(500) * 15) / MILLION
    )
    assert call_cost(result, None) == 0


@pytest.mark.django_db
def test_record_call_stores_the_call_and_adds_its_cost_to_the_unit():
    from annotation.generation.services.runs import _latest_prompt

    run = GenerationRun.objects.create(
        families=["claude"],
        screening_prompt=_latest_prompt(GenerationStage.SCREENING),
        reranking_prompt=_latest_prompt(GenerationStage.RERANKING),
        response_prompt=_latest_prompt(GenerationStage.RESPONSE),
    )
    unit = GenerationUnit.objects.create(
        run=run, character=CharacterFactory(), scenario=ScenarioFactory(), family="claude"
    )
    result = CallResult(
        provider="fake",
        model="m",
        prompt_hash="h" * 64,
        ok=True,
        parsed={"a": 1},
        raw_response='{"a": 1}',
        request={"messages": []},
        tokens_in=2_000,
        tokens_out=1_000,
        attempt_count=1,
        rounds=1,
    )
    for _ in range(2):
        record = record_call(
            LlmCallRecord,
            result=result,
            totals=(GenerationUnit, unit.pk),
            prices=(Decimal("1"), Decimal("2")),
            extra_details={"note": "x"},
            unit_id=unit.pk,
            stage=GenerationStage.RESPONSE,
        )
    assert record.ok and record.parsed == {"a": 1} and record.prompt_hash == "h" * 64
    assert record.details["note"] == "x" and record.details["rounds"] == 1
    unit.refresh_from_db()
    assert (unit.tokens_in, unit.tokens_out) == (4_000, 2_000)
    assert unit.cost_usd == Decimal("0.008")


def test_each_workflow_runs_its_transitions_through_the_one_state_machine():
    from adjudication.judging.services import runs as judging
    from adjudication.mcq.services import screening_runs as mcq_screening
    from annotation.character_drafting.services import common as drafting
    from annotation.generation.services import transitions as generation
    from annotation.memory_generation.services import batches as memory
    from audit.hygiene import services as hygiene
    from audit.memory_quality.services import runs as audit
    from audit.observers import services as observers
    from core.llm_runs.services import RunFlow
    from evaluation import services as evaluation

    flows = [
        generation.FLOW,
        memory.FLOW,
        drafting.FLOW,
        judging.FLOW,
        mcq_screening.FLOW,
        audit.FLOW,
        evaluation.FLOW,
        observers.FLOW,
        hygiene.FLOW,
    ]
    assert all(isinstance(flow, RunFlow) for flow in flows)
    assert {flow.run_model for flow in flows} == set(RUNS)
    assert generation.run_finish_locked == generation.FLOW.finish_locked
    assert memory.run_finish_locked == memory.FLOW.finish_locked
    assert judging.run_finish_if_done == judging.FLOW.finish_if_done


def test_every_stage_that_prices_its_calls_checks_the_monthly_caps():
    """Issue #36: the stages whose calls carry a price name their providers to the one
    run machinery, which checks the lab's monthly caps before a unit is taken up."""
    from adjudication.judging.services.runs import FLOW as judging
    from adjudication.mcq.services.screening_runs import FLOW as mcq_screening
    from annotation.character_drafting.services.common import FLOW as drafting
    from annotation.generation.services.transitions import FLOW as generation
    from annotation.memory_generation.services.batches import FLOW as memory_generation
    from audit.memory_quality.services.runs import FLOW as memory_audit
    from audit.observers.services import FLOW as observers
    from evaluation.services import FLOW as evaluation

    flows = (generation, memory_generation, judging, mcq_screening, drafting)
    for flow in (*flows, memory_audit, evaluation, observers):
        assert flow.providers is not None, flow.run_model
    priced = {
        str(path.relative_to(ROOT))
        for path in ROOT.glob("*/**/*.py")
        if ".venv" not in path.parts
        and "tests" not in path.parts
        and path.parent.name != "llm_runs"  # the machinery itself
        and "prices=" in path.read_text(encoding="utf-8")
        and "record_call(" in path.read_text(encoding="utf-8")
    }
    assert priced == {
        "annotation/generation/services/calls.py",
        "annotation/memory_generation/services/calls.py",
        "annotation/character_drafting/services/execution.py",
        "adjudication/judging/services/calls.py",
        "adjudication/mcq/services/item_screening.py",
        "audit/memory_quality/services/records.py",
        "evaluation/services.py",
        "audit/observers/services.py",
    }
