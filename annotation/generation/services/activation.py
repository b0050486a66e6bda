"""Memory activation, the first two stages of a unit (seed 000 App. D.1; App. L.5.1
screening in batches, L.5.2 re-ranking to at most 50, skipped without a call when 50 or
fewer survive). Each stage stores its result through ``transitions.unit_advance``.
"""

import functools

from django.db import connections, router

import llm
from annotation.generation import prompts
from annotation.generation.models import GenerationUnit, LlmCallRecord
from annotation.generation.services.calls import (
    StageFailed,
    call_failure,
    prompt_values,
    recorded_call,
    run_prompt,
)
from annotation.generation.services.transitions import (
    Stage,
    Stopped,
    cancel_requested,
    unit_advance,
    unit_cancel,
)
from audit.memory_quality.corpus import audited_memory_rows, memory_rows
from core.protocol import ACTIVATED_MEMORY_LIMIT

# The memory columns the prompts show (``prompts.*_memory_line``): the full text, the
# triggers and the tags are never sent, so they are not read. The stages read them as
# named rows in plain statements (``audited_memory_rows``, ``memory_rows``), not model
# instances, which a worker builds for up to fifty memories a stage otherwise.
PROMPT_MEMORY_FIELDS = (
    "memory_id",
    "anonymized_id",
    "timeline",
    "content_summary",
    "psych_conclusion",
    "behavior_policy",
    "emotion_primary",
    "emotion_secondary",
    "emotion_intensity",
)


def _picked_ids(items, allowed: dict) -> tuple[list[str], list[str]]:
    """Known memory ids in the model's order without repeats, and the ids it invented."""
    picked, invented = [], []
    for item in items or []:
        shown = item.get("memory_id") if isinstance(item, dict) else None
        if shown in allowed:
            if allowed[shown] not in picked:
                picked.append(allowed[shown])
        elif shown is not None:
            invented.append(shown)
    return picked, invented


def stage_screening(unit: GenerationUnit) -> GenerationUnit:
    # App. D.1: only memories whose event age is at or before the scenario age, from the
    # audited corpus (App. B.6: a memory the audit left out is never offered).
    memories = audited_memory_rows(
        unit.character_id,
        key=unit.character.key,
        fields=PROMPT_MEMORY_FIELDS,
        max_event_age=unit.scenario.age,
    )
    eligible_ids = [m.memory_id for m in memories]
    prompt = run_prompt(unit.run.screening_prompt_id)
    batches = prompts.screening_batches(memories)
    base = prompt_values(unit)
    # Batches an earlier delivery had answered; a unit taken up for the first time has
    # made no call yet (only the claim counts ``attempts``), so there is nothing to read.
    done = {}
    if unit.attempts > 1:
        done = {
            rec.prompt_hash: rec.parsed
            for rec in unit.calls.filter(stage=Stage.SCREENING, ok=True).only(
                "prompt_hash", "parsed"
            )
        }
    screened: list[str] = []
    for number, batch in enumerate(batches, start=1):
        if number > 1 and cancel_requested(run_id=unit.run_id):
            unit_cancel(unit_id=unit.pk)
            raise Stopped
        values = {
            **base,
            "memories": "\n".join(prompts.screening_memory_line(m) for m in batch),
            "budget": prompts.screening_budget(len(batch), len(memories)),
            "batch_label": f"batch {number} of {len(batches)}, {len(batch)} memories",
        }
        system = prompts.render(prompt.system_template, values)
        user = prompts.render(prompt.user_template, values)
        key = llm.prompt_hash(system, user, prompts.SCREENING_SCHEMA)
        parsed = done.get(key)
        if parsed is None:
            # A batch answered by an earlier delivery is not asked again.
            result = recorded_call(
                unit,
                stage=Stage.SCREENING,
                role="activation",
                system=system,
                user=user,
                schema=prompts.SCREENING_SCHEMA,
                details={"batch": number, "batches": len(batches), "offered": len(batch)},
            )
            if not result.ok:
                raise call_failure(f"Screening (batch {number} of {len(batches)})", result)
            parsed = result.parsed
        picked, _ = _picked_ids(parsed, {m.anonymized_id: m.memory_id for m in batch})
        screened.extend(i for i in picked if i not in screened)
    return unit_advance(
        unit,
        stage_reached=Stage.SCREENING,
        eligible_memory_ids=eligible_ids,
        screened_memory_ids=screened,
    )


def _screening_reasons(unit: GenerationUnit) -> dict[str, str]:
    """The reason the screening gave for each memory it kept, the later call's last."""
    reasons = {}
    for parsed in _screening_answers(unit.pk):
        for item in parsed or []:
            if isinstance(item, dict) and item.get("memory_id"):
                reasons[item["memory_id"]] = str(item.get("reason", ""))
    return reasons


def _screening_answers(unit_id: int) -> list:
    """``unit.calls.filter(stage=SCREENING, ok=True).values_list("parsed", flat=True)``
    in the records' order, as a plain statement written once."""
    conn = connections[router.db_for_read(LlmCallRecord)]
    parsed = LlmCallRecord._meta.get_field("parsed")
    with conn.cursor() as cursor:
        cursor.execute(_screening_answers_sql(conn.vendor), (unit_id, True, Stage.SCREENING))
        return [parsed.from_db_value(value, None, conn) for (value,) in cursor.fetchall()]


@functools.cache
def _screening_answers_sql(vendor: str) -> str:
    qn = connections[router.db_for_read(LlmCallRecord)].ops.quote_name
    meta = LlmCallRecord._meta

    def col(name: str) -> str:
        return qn(meta.get_field(name).column)

    return (
        f"SELECT {col('parsed')} FROM {qn(meta.db_table)} WHERE {col('unit')} = %s "
        f"AND {col('ok')} = %s AND {col('stage')} = %s "
        f"ORDER BY {col('unit')} ASC, {col('created_at')} ASC, {qn(meta.pk.column)} ASC"
    )


def stage_reranking(unit: GenerationUnit) -> GenerationUnit:
    screened = list(unit.screened_memory_ids or [])
    limit = ACTIVATED_MEMORY_LIMIT
    if len(screened) <= limit:
        # App. L.5.2: at or below the target, every survivor is kept, with no call.
        return unit_advance(
            unit,
            stage_reached=Stage.RERANKING,
            activated_memory_ids=screened,
            reranking_skipped=True,
        )
    by_id = {m.memory_id: m for m in memory_rows(screened, fields=PROMPT_MEMORY_FIELDS)}
    candidates = [by_id[i] for i in screened if i in by_id]
    reasons = _screening_reasons(unit)
    values = {
        **prompt_values(unit),
        "memories": "\n".join(
            prompts.reranking_memory_line(m, reasons.get(m.anonymized_id, "")) for m in candidates
        ),
        "target": limit,
        "count": len(candidates),
    }
    prompt = run_prompt(unit.run.reranking_prompt_id)
    result = recorded_call(
        unit,
        stage=Stage.RERANKING,
        role="activation",
        system=prompts.render(prompt.system_template, values),
        user=prompts.render(prompt.user_template, values),
        schema=prompts.reranking_schema(limit),
        details={"offered": len(candidates), "target": limit},
    )
    if not result.ok:
        raise call_failure("Re-ranking", result)
    picked, invented = _picked_ids(
        result.parsed.get("activated_memories"), {m.anonymized_id: m.memory_id for m in candidates}
    )
    if not picked:
        raise StageFailed(
            "schema_invalid",
            f"Re-ranking returned no memory from the candidate list (ids it gave: "
            f"{', '.join(invented[:5]) or 'none'}); retry the unit.",
        )
    return unit_advance(
        unit,
        stage_reached=Stage.RERANKING,
        activated_memory_ids=picked[:limit],
        reranking_skipped=False,
    )
