"""Running one generation unit: its three stages in order (seed 000 §2.4 Stage 1, App.
L.5), from the first stage without a stored result; the response stage writes the
unit's ``Candidate``. The worker's task (``celery_tasks.execute_generation_unit``)
calls ``generation_unit_execute``.

The final write of a unit creates its ``Candidate`` under the unit's row lock, so no
path (a redelivered task, a retried unit) creates a second one.

!!! BLINDING !!!  ``family`` is provenance; nothing here is annotator-facing.
"""

import logging

from django.db import transaction

from annotation.generation import prompts
from annotation.generation.models import Candidate, GenerationUnit
from annotation.generation.services.activation import (
    PROMPT_MEMORY_FIELDS,
    stage_reranking,
    stage_screening,
)
from annotation.generation.services.calls import (
    StageFailed,
    call_failure,
    prompt_values,
    recorded_call,
    run_prompt,
)
from annotation.generation.services.transitions import (
    NEXT_STAGE,
    Stage,
    Stopped,
    UnitStatus,
    cancel_requested,
    live_unit_update,
    run_finish_if_done,
    unit_cancel,
    unit_claim,
    unit_fail,
)
from audit.memory_quality.corpus import audited_memory_rows

logger = logging.getLogger(__name__)


def generation_unit_execute(*, unit_id: int) -> GenerationUnit:
    """Run a unit's remaining stages. Safe to call any number of times: a terminal unit
    is returned unchanged, a unit of a cancelled run is cancelled, and each stage runs
    only while its result is not stored yet."""
    unit = unit_claim(unit_id=unit_id)
    if unit is not None:
        run_id = unit.run_id
        checked = True  # the claim has just read the run's status
        try:
            while unit.stage_reached != Stage.RESPONSE:
                if not checked and cancel_requested(run_id=unit.run_id):
                    unit_cancel(unit_id=unit.pk)
                    unit = None
                    break
                stage = NEXT_STAGE[unit.stage_reached]
                if stage == Stage.SCREENING:
                    unit = stage_screening(unit)
                elif stage == Stage.RERANKING:
                    unit = stage_reranking(unit)
                else:
                    unit = _stage_response(unit)
                # A skipped re-ranking makes no call and takes a moment: the status
                # read just before it still stands for the response.
                checked = stage == Stage.RERANKING and bool(unit.reranking_skipped)
        except Stopped:
            unit = None
        except StageFailed as failure:
            unit_fail(unit_id=unit.pk, kind=failure.kind, message=failure.message)
            unit = None
        except Exception as exc:
            logger.exception("generation unit %s crashed", unit_id)
            unit_fail(unit_id=unit_id, kind="internal_error", message=f"internal error: {exc}")
            run_finish_if_done(run_id=run_id)
            raise
        run_finish_if_done(run_id=run_id)
        if unit is not None:
            return unit  # the stages kept it up to date
    return GenerationUnit.objects.get(pk=unit_id)


def _stage_response(unit: GenerationUnit) -> GenerationUnit:
    # The audited corpus again: an audit finalized while the unit waited may have left
    # out a memory it screened (App. B.6); the response never sees such a memory.
    memories = audited_memory_rows(
        unit.character_id,
        key=unit.character.key,
        fields=PROMPT_MEMORY_FIELDS,
        memory_ids=list(unit.activated_memory_ids or []),
    )
    kept = {m.memory_id for m in memories}
    activated = [i for i in unit.activated_memory_ids or [] if i in kept]
    values = {
        **prompt_values(unit),
        "memories": "\n".join(prompts.response_memory_line(m) for m in memories)
        or "(nothing in particular comes back to you)",
    }
    prompt = run_prompt(unit.run.response_prompt_id)
    result = recorded_call(
        unit,
        stage=Stage.RESPONSE,
        role="response",
        system=prompts.render(prompt.system_template, values),
        user=prompts.with_guidance(prompts.render(prompt.user_template, values), unit.run.guidance),
        schema=prompts.RESPONSE_SCHEMA,
        details={"memories": len(memories)},
    )
    if not result.ok:
        raise call_failure("Response", result)
    inner = result.parsed["inner_consciousness"]
    with transaction.atomic():
        # The UPDATE takes the unit's row lock first, so no other delivery can be here
        # until this commits: look, then create. The candidate's provenance is the
        # unit's, whose columns never change once the run created it.
        live_unit_update(unit.pk, stage_reached=Stage.RESPONSE, status=UnitStatus.SUCCEEDED)
        if not Candidate.objects.filter(unit_id=unit.pk).exists():
            Candidate.objects.create(
                unit_id=unit.pk,
                character_id=unit.character_id,
                scenario_id=unit.scenario_id,
                family=unit.family,
                model_name=result.model,
                run_id=unit.run_id,
                profile_version_id=unit.profile_version_id,
                summary=inner["summary"],
                emotional_tone=inner["emotional_tone"],
                core_reasoning=inner["core_reasoning"],
                final_decision=result.parsed["final_decision"],
                activated_memory_ids=activated,
                origin=Candidate.Origin.GENERATED,
            )
    unit.stage_reached, unit.status = Stage.RESPONSE, UnitStatus.SUCCEEDED
    return unit
