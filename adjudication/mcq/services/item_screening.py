"""LLM screening of MCQ items under the App. D.3.1 guideline (seed 000 §2.4 Stage 3).

The judge gets the complete item and its construction materials; a valid, consistent
verdict passes the item into the final set or flags it for item review, and a judge that
never answers validly within the retry bound is a technical failure (also reviewed).
Each screening is a unit of a screening run (``screening_runs``); every call is stored
as a ``McqScreeningCall`` with its tokens and cost. The LLM call happens outside any
transaction; the rows are locked only to record it.
"""

import logging

from django.conf import settings

from adjudication.mcq import screening as mcq_screening
from adjudication.mcq.models import (
    McqError,
    McqItem,
    McqOption,
    McqScreening,
    McqScreeningCall,
    McqScreeningRun,
)
from adjudication.mcq.services import screening_runs
from adjudication.mcq.services.screening_runs import screener_provider
from adjudication.mcq.versions import current_version
from annotation.corpus.models import ActivationSet, Memory, ProfileVersion
from core.llm_runs.services import record_call
from core.protocol import ACTIVATED_MEMORY_LIMIT
from core.providers import cached_client
from core.tasks import enqueue_on_commit

__all__ = [
    "mcq_screening_request",
    "mcq_screening_run",
    "mcq_screening_unit_execute",
    "screener_provider",
    "screening_materials",
]

logger = logging.getLogger(__name__)
RunStatus = McqScreeningRun.Status
# At most this many supporting memories go to the judge (the activation budget, App. D.1).
SCREENING_MEMORY_LIMIT = ACTIVATED_MEMORY_LIMIT


def _profile_for(item: McqItem):
    """The profile the reference was written against: its source candidate's version, or,
    for a reference with no candidate (an expert rewrite), the character's frozen profile
    (App. D.3.1: the judge checks the options against the benchmark's profile, and a later
    unfrozen draft is not it). The latest version only when none was ever frozen."""
    candidate = item.reference.source_candidate if item.reference else None
    if candidate is not None and candidate.profile_version_id:
        return candidate.profile_version
    versions = ProfileVersion.objects.filter(character=item.character).order_by("-number")
    return versions.filter(frozen_at__isnull=False).first() or versions.first()


def _supporting_memory_ids(item: McqItem) -> list[str]:
    candidate = item.reference.source_candidate if item.reference else None
    if candidate is not None and candidate.activated_memory_ids:
        return list(candidate.activated_memory_ids)
    activation = (
        ActivationSet.objects.filter(
            character=item.character,
            scenario=item.scenario,
            step=ActivationSet.Step.REFINEMENT,
        )
        .order_by("origin")
        .first()
    )
    return list(activation.memory_ids) if activation else []


def _provenance(option: McqOption, item: McqItem) -> str:
    if option.is_generated:
        return "distractor written by a human reviewer (generated)"
    if option.is_correct:
        return "key: the target character's adjudicated reference response"
    who = option.source_character or "another character"
    return f"distractor: adjudicated reference response of {who}"


def screening_materials(item: McqItem) -> dict:
    """The complete item and its construction materials (App. D.3.1, "INPUT"): the
    supporting memories carry their narratives (``content_full``), fitted into
    ``HEARTBENCH_SCREENING_MEMORY_TOKEN_BUDGET`` approximate tokens in activation order
    (:func:`adjudication.mcq.screening.fit_narratives`), next to their annotations."""
    profile = _profile_for(item)
    scenario = item.scenario
    ids = _supporting_memory_ids(item)[:SCREENING_MEMORY_LIMIT]
    by_id = {
        m.memory_id: m for m in Memory.objects.filter(character=item.character, memory_id__in=ids)
    }
    options = sorted(item.options.all(), key=lambda o: o.label)
    memories = [by_id[i] for i in ids if i in by_id]
    budget = settings.HEARTBENCH_SCREENING_MEMORY_TOKEN_BUDGET
    narratives = mcq_screening.fit_narratives([m.content_full for m in memories], budget)
    return {
        "item_id": item.question_id,
        "item_version": item.version,
        "question": "Which response would the target character most plausibly give in this "
        "scenario?",
        "character_profile": {
            "character_id": item.character.key,
            "occupation": profile.occupation if profile else "",
            "big_five": profile.big_five if profile else {},
            "description": profile.description if profile else "",
            "self_value_logic": profile.self_value_logic if profile else "",
            "core_patterns": profile.core_patterns if profile else [],
        },
        "scenario": {
            "scenario_id": scenario.scenario_id,
            "stage": scenario.stage,
            "age": scenario.age,
            "name": scenario.name,
            "setting": f"{scenario.setting_location}; {scenario.setting_time}; "
            f"{scenario.setting_atmosphere}",
            "context": scenario.context_text,
            "trigger": f"{scenario.trigger_sender}: {scenario.trigger_message}",
            "action_required": scenario.action_required,
        },
        "supporting_memories": [
            {
                "memory_id": m.memory_id,
                "event_age": m.event_age,
                "content_full": narrative.text,
                "content_full_truncated": narrative.truncated,
                "content_full_tokens": narrative.tokens,
                "summary": m.content_summary,
                "belief": m.psych_conclusion,
                "behavior_policy": m.behavior_policy,
                "emotion": f"{m.emotion_primary} ({m.emotion_intensity:.2f})",
            }
            for m, narrative in zip(memories, narratives, strict=True)
        ],
        "memory_narrative_budget": {
            "token_budget": budget,
            "token_count": "approximate: one token per CJK, kana or hangul character, one "
            "per four other characters",
            "narrative_tokens": sum(n.tokens for n in narratives),
            "truncated_memory_ids": [
                m.memory_id for m, n in zip(memories, narratives, strict=True) if n.truncated
            ],
            "note": mcq_screening.narrative_budget_note(narratives, budget),
        },
        "reference_annotation": item.reference.inner_consciousness if item.reference else {},
        "options": [{"label": o.label, "text": o.content} for o in options],
        "answer_key": item.correct_answer,
        "option_provenance": [{"label": o.label, "source": _provenance(o, item)} for o in options],
    }


def _client_for(client):
    """The judge: the given client, else one for the configured provider (None: none)."""
    if client is not None:
        return client
    config = screener_provider()
    return cached_client(config) if config is not None else None


def _judge(client) -> tuple[str, str]:
    config = getattr(client, "config", None)
    if config is None:
        return "", ""
    return str(config.kind), config.model or ""


def mcq_screening_unit_execute(*, screening_id: int, client=None) -> McqScreening:
    """Screen one unit of a screening run (the task ``adjudication.mcq_screen_unit``).

    Idempotent: a final unit is returned unchanged, a unit of a cancelled run is
    cancelled, a redelivered unit (its worker was killed) is screened afresh and its
    result stored once. Every call is stored with its tokens and cost before its answer
    is looked at; invalid or inconsistent outputs are retried up to
    ``MAX_SCREENING_ATTEMPTS`` times, then the unit fails (a technical failure: the item
    goes to review, and a retry of the run screens it again).
    """
    unit = screening_runs.unit_claim(screening_id=screening_id)
    if unit is None:
        run_id = McqScreening.objects.values_list("run_id", flat=True).get(pk=screening_id)
        if run_id is not None:
            screening_runs.FLOW.finish_if_done(run_id=run_id)
        return McqScreening.objects.get(pk=screening_id)
    try:
        _screen(unit, _client_for(client))
    except Exception as error:
        # Not left running for ever: the unit fails with the error, and can be retried.
        logger.exception("MCQ screening %s crashed", screening_id)
        screening_runs.unit_store_result(
            screening_id=screening_id,
            output=None,
            errors=[{"error_kind": "internal_error", "problems": [f"internal error: {error}"]}],
            judge_family="",
            judge_model="",
            prompt_sha256="",
        )
        raise
    finally:
        screening_runs.FLOW.finish_if_done(run_id=unit.run_id)
    return McqScreening.objects.get(pk=screening_id)


def _screen(unit: McqScreening, client) -> None:
    if client is None:
        screening_runs.unit_store_result(
            screening_id=unit.pk,
            output=None,
            errors=[
                {
                    "error_kind": "not_configured",
                    "problems": [
                        "No screening model is configured in this worker "
                        f"({screening_runs.SCREENER_PROVIDER_PREFIX}_*); configure one, "
                        "restart the worker and retry the run."
                    ],
                }
            ],
            judge_family="",
            judge_model="",
            prompt_sha256="",
        )
        return
    item = McqItem.objects.select_related(
        "character", "scenario", "reference__source_candidate__profile_version"
    ).get(pk=unit.item_id)
    materials = screening_materials(item)
    key = materials["answer_key"]
    haystack = mcq_screening.materials_text(materials)
    prices = screening_runs.screener_prices()
    errors, output, problems = [], None, None
    system = user = ""
    for attempt in range(1, mcq_screening.MAX_SCREENING_ATTEMPTS + 1):
        if attempt > 1 and screening_runs.unit_stop_if_cancelled(
            screening_id=unit.pk, run_id=unit.run_id
        ):
            return
        system, user = mcq_screening.build_prompt(materials, previous_problems=problems)
        result = client.complete_json(
            system=system, user=user, schema=mcq_screening.OUTPUT_SCHEMA, max_attempts=1
        )
        if not result.ok:
            problems = [f"{result.error_kind}: {result.error_message}"]
        else:
            problems = mcq_screening.contract_problems(
                result.parsed,
                item_id=materials["item_id"],
                item_version=materials["item_version"],
                key=key,
                input_text=haystack,
            )
        record_call(
            McqScreeningCall,
            result=result,
            totals=(McqScreening, unit.pk),
            prices=prices,
            screening_id=unit.pk,
            attempt=attempt,
            problems=problems,
        )
        if result.ok and not problems:
            output = result.parsed
            break
        errors.append({"error_kind": result.error_kind or "inconsistent", "problems": problems})
    family, model = _judge(client)
    screening_runs.unit_store_result(
        screening_id=unit.pk,
        output=output,
        errors=errors,
        judge_family=family,
        judge_model=model,
        prompt_sha256=mcq_screening.prompt_digest(system, user),
    )


def mcq_screening_run(*, item_id: int, client=None, note: str = "") -> McqScreening | None:
    """Screen the item's current version now, in this process (idempotent per version):
    the worker's task after an edit (``adjudication.mcq_screen_item``), the demo.

    The version's open screening is taken up again (a redelivered task); otherwise a
    run of its own is opened for it. Returns the version's latest finished screening
    when the item is not awaiting screening, and None when it never was screened or no
    judge is configured.
    """
    item = McqItem.objects.get(pk=item_id)
    version = current_version(item)
    if item.status != McqItem.Status.SCREENING:
        return (
            McqScreening.objects.filter(item_version=version, status__in=McqScreening.TERMINAL)
            .exclude(outcome=McqScreening.Outcome.PENDING)
            .order_by("-created_at")
            .first()
        )
    if client is None and screener_provider() is None:
        return None
    unit = McqScreening.objects.filter(
        item_version=version, status__in=McqScreening.OPEN, run__status=RunStatus.RUNNING
    ).first()
    if unit is None:
        run = screening_runs.screening_run_open(
            item_ids=[item_id],
            note=note or f"{item.question_id} version {item.version}, screened on its own.",
            dispatch=False,
        )
        if run is None:  # screened, or being screened by a run being cancelled, meanwhile
            return McqScreening.objects.filter(item_version=version).order_by("-pk").first()
        unit = run.screenings.get()
    return mcq_screening_unit_execute(screening_id=unit.pk, client=client)


def mcq_screening_request(
    *, item_id: int, user=None, on_unavailable=None
) -> McqScreeningRun | None:
    """The admin's "screen now": a run for the item awaiting screening, queued (or the
    run already screening it). With no judge configured the item's screening is queued
    as before an edit's, and waits until one is (None)."""
    item = McqItem.objects.get(pk=item_id)
    if item.status != McqItem.Status.SCREENING:
        raise McqError(f"{item.question_id} is not awaiting screening.")
    if screener_provider() is None:
        enqueue_on_commit(
            "adjudication.mcq_screen_item",
            item.pk,
            what=f"Screening of MCQ item {item.pk}",
            on_unavailable=on_unavailable,
        )
        return None
    run = screening_runs.screening_run_open(
        item_ids=[item_id],
        note=f"Screen now: {item.question_id} version {item.version}.",
        user=user,
        on_unavailable=on_unavailable,
    )
    if run is None:  # already being screened
        open_unit = McqScreening.objects.filter(
            item_version=current_version(item), status__in=McqScreening.OPEN
        ).first()
        run = open_unit.run if open_unit is not None else None
    return run
