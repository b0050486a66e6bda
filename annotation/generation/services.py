"""Candidate generation: runs, units and their three-stage pipeline (seed 000 §2.4
Stage 1, App. D.1, App. L.5).

Every write is here. A unit's stages each persist their result before the next begins
(``stage_reached``), so a redelivered task, a retried unit or a task whose worker was
killed resumes at the first stage without a stored result; the final write of a unit
creates its ``Candidate`` under the unit's row lock with ``get_or_create``, so no path
creates a second one.

Lock order: a unit's transitions lock the unit row only; run-level changes
(``generation_run_cancel``, ``_run_finish_if_done``) lock the run row first and then
touch units. Nothing takes a unit lock and then the run lock in one transaction.

!!! BLINDING !!!  ``family`` is provenance; nothing here is annotator-facing.
"""

import importlib
import logging
import threading
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.db.models import F, Max
from django.utils import timezone

import llm
from annotation.corpus.models import Character, Memory, ProfileVersion, Scenario
from annotation.generation import prompts
from annotation.generation.models import (
    Candidate,
    GenerationRun,
    GenerationStage,
    GenerationUnit,
    LlmCallRecord,
    ModelFamily,
    PromptVersion,
)

logger = logging.getLogger(__name__)

Stage = GenerationStage
UnitStatus = GenerationUnit.Status
RunStatus = GenerationRun.Status

# stage_reached -> the stage that runs next, and the unit status while it runs
NEXT_STAGE = {
    "": Stage.SCREENING,
    Stage.SCREENING: Stage.RERANKING,
    Stage.RERANKING: Stage.RESPONSE,
}
RUNNING_STATUS = {
    Stage.SCREENING: UnitStatus.SCREENING,
    Stage.RERANKING: UnitStatus.RERANKING,
    Stage.RESPONSE: UnitStatus.RESPONDING,
}
MILLION = Decimal(1_000_000)
NOT_CONFIGURED = "not_configured"


class GenerationError(Exception):
    """A generation request that cannot be carried out as asked."""


class _StageFailed(Exception):
    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


class _Stopped(Exception):
    """The unit was cancelled, or finished by another delivery of the same task."""


# --- configuration --------------------------------------------------------------------


def generation_family_configs() -> dict:
    """``settings.HEARTBENCH_GENERATION_FAMILIES``: {family: {"response", "activation",
    prices}} for the families whose provider is configured (see settings/base.py)."""
    return getattr(settings, "HEARTBENCH_GENERATION_FAMILIES", {}) or {}


_clients: dict = {}
_clients_lock = threading.Lock()


def _client_for(config: llm.ProviderConfig):
    """One client per provider config and process: clients hold connection pools and
    are thread-safe. Created lazily, so a prefork worker builds its own after the fork."""
    with _clients_lock:
        client = _clients.get(config)
        if client is None:
            client = _clients[config] = llm.make_client(config)
        return client


# --- runs -----------------------------------------------------------------------------


def _latest_prompt(stage: str) -> PromptVersion:
    prompt = PromptVersion.objects.filter(stage=stage).order_by("-number").first()
    if prompt is None:
        # The data migration wrote version 1; a flushed database (``manage.py flush``,
        # a transactional test) lost it. Its text lives in the migration only.
        defaults = importlib.import_module("annotation.migrations.0003_default_prompts")
        system, user = defaults.DEFAULTS[stage]
        prompt, _ = PromptVersion.objects.get_or_create(
            stage=stage,
            number=1,
            defaults={"system_template": system, "user_template": user, "note": defaults.NOTE},
        )
    return prompt


@transaction.atomic
def generation_run_create(
    *,
    user,
    families,
    characters=None,
    scenarios=None,
    note: str = "",
) -> GenerationRun:
    """A pending run over every chosen (character, scenario) pair × family, with all its
    units created up front. ``characters``/``scenarios`` are keys/ids (or instances);
    None means all. Each character's latest *frozen* profile version is the one used."""
    known = ModelFamily.values
    families = [str(f) for f in (families or [])]
    if not families:
        raise GenerationError("Choose at least one model family.")
    unknown = [f for f in families if f not in known]
    if unknown:
        raise GenerationError(
            f"Unknown model family {', '.join(unknown)}; choose from {', '.join(known)}."
        )
    configs = generation_family_configs()
    missing = [f for f in families if f not in configs]
    if missing:
        hints = ", ".join(f"HEARTBENCH_{f.upper()}_API_KEY" for f in missing)
        raise GenerationError(
            f"No provider is configured for {', '.join(missing)}; set {hints} "
            "(or _KIND/_BASE_URL) in the environment and restart."
        )
    families = [f for f in known if f in families]

    character_rows = _chosen(Character, "key", characters, "character")
    scenario_rows = _chosen(Scenario, "scenario_id", scenarios, "scenario")
    if not character_rows or not scenario_rows:
        raise GenerationError("The run would have no pairs: import characters and scenarios.")

    frozen = {}
    for version in ProfileVersion.objects.filter(
        character__in=character_rows, frozen_at__isnull=False
    ).order_by("character_id", "number"):
        frozen[version.character_id] = version  # the latest frozen version wins
    unfrozen = [c.key for c in character_rows if c.pk not in frozen]
    if unfrozen:
        raise GenerationError(
            "Generation uses a frozen profile version, and these characters have none: "
            f"{', '.join(unfrozen)}. Finish their profile review and freeze a version first."
        )

    pair_filter = {}
    if characters is not None:
        pair_filter["characters"] = [c.key for c in character_rows]
    if scenarios is not None:
        pair_filter["scenarios"] = [s.scenario_id for s in scenario_rows]
    run = GenerationRun.objects.create(
        created_by=user,
        families=families,
        pair_filter=pair_filter,
        screening_prompt=_latest_prompt(Stage.SCREENING),
        reranking_prompt=_latest_prompt(Stage.RERANKING),
        response_prompt=_latest_prompt(Stage.RESPONSE),
        models={f: configs[f]["response"].model for f in families},
        activation_models={f: configs[f]["activation"].model for f in families},
        note=note,
    )
    GenerationUnit.objects.bulk_create(
        [
            GenerationUnit(
                run=run,
                character=character,
                scenario=scenario,
                family=family,
                profile_version=frozen[character.pk],
            )
            for character in character_rows
            for scenario in scenario_rows
            for family in families
        ],
        batch_size=2000,
    )
    return run


def _chosen(model, key_field: str, wanted, label: str) -> list:
    rows = model.objects.order_by(key_field)
    if wanted is None:
        return list(rows)
    keys = [getattr(w, key_field, w) for w in wanted]
    found = list(rows.filter(**{f"{key_field}__in": keys}))
    missing = sorted(set(keys) - {getattr(r, key_field) for r in found})
    if missing:
        raise GenerationError(f"Unknown {label} {', '.join(map(str, missing))}.")
    if not found:
        raise GenerationError(f"Choose at least one {label}.")
    return found


def _enqueue_units(unit_ids: list[int]) -> None:
    from annotation.corpus_import.celery_tasks import execute_generation_unit

    def send():
        for unit_id in unit_ids:
            execute_generation_unit.delay(unit_id)

    transaction.on_commit(send)


@transaction.atomic
def generation_run_start(*, run_id: int) -> GenerationRun:
    """Mark a pending run running and queue its units once this transaction commits."""
    run = GenerationRun.objects.select_for_update().get(pk=run_id)
    if run.status != RunStatus.PENDING:
        raise GenerationError(
            f"Run {run.pk} is {run.get_status_display().lower()}; only a run that has not "
            "started can be started."
        )
    run.status = RunStatus.RUNNING
    run.started_at = timezone.now()
    run.save(update_fields=["status", "started_at"])
    unit_ids = list(
        run.units.filter(status=UnitStatus.PENDING).order_by("pk").values_list("pk", flat=True)
    )
    if unit_ids:
        _enqueue_units(unit_ids)
    else:
        _run_finish_locked(run)
    return run


@transaction.atomic
def generation_run_cancel(*, run_id: int) -> GenerationRun:
    """Stop a run: units still waiting are cancelled now; units a worker holds stop at
    their next stage boundary (a call already sent is not abandoned)."""
    run = GenerationRun.objects.select_for_update().get(pk=run_id)
    if run.status not in (RunStatus.PENDING, RunStatus.RUNNING):
        raise GenerationError(
            f"Run {run.pk} is {run.get_status_display().lower()}; only a pending or running "
            "run can be cancelled."
        )
    run.units.filter(status=UnitStatus.PENDING).update(
        status=UnitStatus.CANCELLED, updated_at=timezone.now()
    )
    run.status = RunStatus.CANCELLING
    run.save(update_fields=["status"])
    _run_finish_locked(run)
    return run


@transaction.atomic
def generation_run_retry_failed(*, run_id: int) -> GenerationRun:
    """Queue the failed units again; each resumes at the stage it reached. Units that
    succeeded or were cancelled are left alone."""
    run = GenerationRun.objects.select_for_update().get(pk=run_id)
    if run.status in (RunStatus.CANCELLING, RunStatus.CANCELLED):
        raise GenerationError(
            f"Run {run.pk} was cancelled; start a new run for the pairs it did not finish."
        )
    if run.status == RunStatus.PENDING:
        raise GenerationError(f"Run {run.pk} has not started; start it instead.")
    failed = list(
        run.units.select_for_update()
        .filter(status=UnitStatus.FAILED)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    if not failed:
        raise GenerationError(f"Run {run.pk} has no failed units to retry.")
    GenerationUnit.objects.filter(pk__in=failed).update(
        status=UnitStatus.PENDING, error_kind="", error_message="", updated_at=timezone.now()
    )
    run.status = RunStatus.RUNNING
    run.finished_at = None
    run.save(update_fields=["status", "finished_at"])
    _enqueue_units(failed)
    return run


def _run_finish_if_done(*, run_id: int) -> None:
    # Unlocked first look: every unit commits its own terminal state before it calls
    # this, so of two units finishing together the later one sees both done.
    if (
        GenerationUnit.objects.filter(run_id=run_id)
        .exclude(status__in=GenerationUnit.TERMINAL)
        .exists()
    ):
        return
    with transaction.atomic():
        run = GenerationRun.objects.select_for_update().get(pk=run_id)
        _run_finish_locked(run)


def _run_finish_locked(run: GenerationRun) -> None:
    """Caller holds the run's row lock."""
    if run.status not in (RunStatus.RUNNING, RunStatus.CANCELLING):
        return
    units = run.units.all()
    if units.exclude(status__in=GenerationUnit.TERMINAL).exists():
        return
    if run.status == RunStatus.CANCELLING:
        run.status = RunStatus.CANCELLED
    elif units.filter(status=UnitStatus.FAILED).exists():
        run.status = RunStatus.FINISHED_WITH_FAILURES
    else:
        run.status = RunStatus.FINISHED
    run.finished_at = timezone.now()
    run.save(update_fields=["status", "finished_at"])


# --- prompts --------------------------------------------------------------------------


@transaction.atomic
def prompt_version_create(
    *, stage: str, system_template: str, user_template: str, note: str = "", user=None
) -> PromptVersion:
    """The next numbered version of a stage's prompt; new runs use the latest."""
    if stage not in Stage.values:
        raise GenerationError(f"Unknown stage {stage}; choose from {', '.join(Stage.values)}.")
    if not system_template.strip() or not user_template.strip():
        raise GenerationError("Both the system and the user template need text.")
    unknown = prompts.unknown_placeholders(stage, system_template) | prompts.unknown_placeholders(
        stage, user_template
    )
    if unknown:
        allowed = ", ".join(f"{{{p}}}" for p in sorted(prompts.PLACEHOLDERS[stage]))
        raise GenerationError(
            f"Unknown placeholder {', '.join(f'{{{u}}}' for u in sorted(unknown))}; "
            f"a {stage} prompt can use {allowed}."
        )
    # Lock the stage's versions so two admins saving at once get consecutive numbers.
    list(PromptVersion.objects.select_for_update().filter(stage=stage).values_list("pk"))
    last = PromptVersion.objects.filter(stage=stage).aggregate(n=Max("number"))["n"] or 0
    return PromptVersion.objects.create(
        stage=stage,
        number=last + 1,
        system_template=system_template,
        user_template=user_template,
        note=note,
        created_by=user,
    )


# --- units ----------------------------------------------------------------------------


def generation_unit_execute(*, unit_id: int) -> GenerationUnit:
    """Run a unit's remaining stages. Safe to call any number of times: a terminal unit
    is returned unchanged, a unit of a cancelled run is cancelled, and each stage runs
    only while its result is not stored yet."""
    unit = _unit_claim(unit_id=unit_id)
    if unit is not None:
        run_id = unit.run_id
        first = True  # the claim has just read the run's status
        try:
            while unit.stage_reached != Stage.RESPONSE:
                if not first and _cancel_requested(run_id=unit.run_id):
                    _unit_cancel(unit_id=unit.pk)
                    unit = None
                    break
                first = False
                stage = NEXT_STAGE[unit.stage_reached]
                if stage == Stage.SCREENING:
                    unit = _stage_screening(unit)
                elif stage == Stage.RERANKING:
                    unit = _stage_reranking(unit)
                else:
                    unit = _stage_response(unit)
        except _Stopped:
            unit = None
        except _StageFailed as failure:
            _unit_fail(unit_id=unit.pk, kind=failure.kind, message=failure.message)
            unit = None
        except Exception as exc:
            logger.exception("generation unit %s crashed", unit_id)
            _unit_fail(unit_id=unit_id, kind="internal_error", message=f"internal error: {exc}")
            _run_finish_if_done(run_id=run_id)
            raise
        _run_finish_if_done(run_id=run_id)
        if unit is not None:
            return unit  # the stages kept it up to date
    return GenerationUnit.objects.get(pk=unit_id)


def _unit_claim(*, unit_id: int) -> GenerationUnit | None:
    with transaction.atomic():
        unit = (
            GenerationUnit.objects.select_for_update(of=("self",))
            .select_related("run", "character", "scenario", "profile_version__character")
            .get(pk=unit_id)
        )
        if unit.is_terminal:
            return None
        if unit.run.status in (RunStatus.CANCELLING, RunStatus.CANCELLED):
            unit.status = UnitStatus.CANCELLED
            unit.save(update_fields=["status", "updated_at"])
            cancelled_run = unit.run_id
        elif unit.run.status != RunStatus.RUNNING:
            return None
        else:
            unit.attempts += 1
            unit.status = RUNNING_STATUS[NEXT_STAGE[unit.stage_reached]]
            unit.error_kind = unit.error_message = ""
            unit.save(
                update_fields=["attempts", "status", "error_kind", "error_message", "updated_at"]
            )
            return unit
    _run_finish_if_done(run_id=cancelled_run)
    return None


def _cancel_requested(*, run_id: int) -> bool:
    status = GenerationRun.objects.filter(pk=run_id).values_list("status", flat=True).first()
    return status in (RunStatus.CANCELLING, RunStatus.CANCELLED)


def _locked_live_unit(unit_id: int) -> GenerationUnit:
    """The unit's row, locked; raises _Stopped when another delivery finished it."""
    unit = GenerationUnit.objects.select_for_update().get(pk=unit_id)
    if unit.is_terminal:
        raise _Stopped
    return unit


def _unit_advance(unit: GenerationUnit, *, stage_reached: str, **fields) -> GenerationUnit:
    """Store a stage's result and move to the next stage, in one transaction."""
    with transaction.atomic():
        locked = _locked_live_unit(unit.pk)
        locked.stage_reached = stage_reached
        following = NEXT_STAGE.get(stage_reached)
        locked.status = RUNNING_STATUS[following] if following else UnitStatus.SUCCEEDED
        for name, value in fields.items():
            setattr(locked, name, value)
        locked.save(update_fields=["stage_reached", "status", "updated_at", *fields])
    for name in ("stage_reached", "status", *fields):
        setattr(unit, name, getattr(locked, name))
    return unit


def _unit_fail(*, unit_id: int, kind: str, message: str) -> None:
    with transaction.atomic():
        unit = GenerationUnit.objects.select_for_update().get(pk=unit_id)
        if unit.is_terminal:
            return
        unit.status = UnitStatus.FAILED
        unit.error_kind = kind[:40]
        unit.error_message = message
        unit.save(update_fields=["status", "error_kind", "error_message", "updated_at"])


def _unit_cancel(*, unit_id: int) -> None:
    with transaction.atomic():
        unit = GenerationUnit.objects.select_for_update().get(pk=unit_id)
        if not unit.is_terminal:
            unit.status = UnitStatus.CANCELLED
            unit.save(update_fields=["status", "updated_at"])


# --- calls ----------------------------------------------------------------------------


def _no_nul(text):
    # PostgreSQL text and jsonb cannot hold NUL; a broken body may contain one.
    return text.replace("\x00", "\ufffd") if isinstance(text, str) else text


def _family_setup(unit: GenerationUnit, role: str):
    setup = generation_family_configs().get(unit.family)
    if setup is None:
        raise _StageFailed(
            NOT_CONFIGURED,
            f"No provider is configured for {unit.family} in this worker; set "
            f"HEARTBENCH_{unit.family.upper()}_* and retry the failed units.",
        )
    config = setup[role]
    if role == "activation":
        prices = setup.get("activation_price_in", 0), setup.get("activation_price_out", 0)
    else:
        prices = setup.get("price_in", 0), setup.get("price_out", 0)
    return config, tuple(Decimal(str(p)) for p in prices)


def _call(
    unit: GenerationUnit, *, stage: str, role: str, system: str, user: str, schema, details=None
) -> llm.CallResult:
    """One structured call, recorded as an LlmCallRecord with the unit's token and cost
    totals updated in the same transaction, before the caller looks at the result."""
    config, (price_in, price_out) = _family_setup(unit, role)
    result = _client_for(config).complete_json(
        system=system, user=user, schema=schema, max_attempts=prompts.STRUCTURED_OUTPUT_ROUNDS
    )
    data = result.as_dict()
    cost = (Decimal(result.tokens_in) * price_in + Decimal(result.tokens_out) * price_out) / MILLION
    with transaction.atomic():
        LlmCallRecord.objects.create(
            unit_id=unit.pk,
            stage=stage,
            provider=result.provider,
            model=result.model,
            prompt_hash=result.prompt_hash,
            request=_scrub_json(result.request or {}),
            raw_response=_no_nul(result.raw_response or ""),
            parsed=_scrub_json(result.parsed) if result.ok else None,
            ok=result.ok,
            tokens_in=result.tokens_in,
            tokens_out=result.tokens_out,
            latency_s=result.latency_s,
            attempt_count=result.attempt_count,
            error_kind=result.error_kind or "",
            error_message=_no_nul(result.error_message or ""),
            details=_scrub_json(
                {
                    **(details or {}),
                    "endpoint": data.get("endpoint"),
                    "rounds": data.get("rounds"),
                    "finish_reason": data.get("finish_reason"),
                    "started_at": data.get("started_at"),
                    "demo": data.get("demo"),
                    "attempts": data.get("attempts"),
                }
            ),
        )
        GenerationUnit.objects.filter(pk=unit.pk).update(
            tokens_in=F("tokens_in") + result.tokens_in,
            tokens_out=F("tokens_out") + result.tokens_out,
            cost_usd=F("cost_usd") + cost,
            updated_at=timezone.now(),
        )
    return result


def _scrub_json(value):
    if isinstance(value, str):
        return _no_nul(value)
    if isinstance(value, list):
        return [_scrub_json(v) for v in value]
    if isinstance(value, dict):
        return {_no_nul(k): _scrub_json(v) for k, v in value.items()}
    return value


def _failed(stage_label: str, result: llm.CallResult) -> _StageFailed:
    return _StageFailed(
        result.error_kind or "internal_error",
        f"{stage_label} failed after {result.attempt_count} request(s) in "
        f"{result.rounds} round(s): {result.failure_reason}",
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


# --- the three stages -----------------------------------------------------------------


def eligible_memories(*, character_id: int, scenario_age: int):
    """App. D.1: only memories whose event age is at or before the scenario age."""
    return Memory.objects.filter(character_id=character_id, event_age__lte=scenario_age).order_by(
        "event_age", "sequence"
    )


_prompts: dict[int, PromptVersion] = {}


def _prompt(prompt_id: int) -> PromptVersion:
    """A run's prompt version; safe to keep per process because a version a run uses
    never changes (``PromptVersion.save``)."""
    prompt = _prompts.get(prompt_id)
    if prompt is None:
        prompt = _prompts[prompt_id] = PromptVersion.objects.get(pk=prompt_id)
    return prompt


def _prompt_values(unit: GenerationUnit) -> dict:
    return {
        "character": prompts.character_block(unit.profile_version),
        "scenario": prompts.scenario_block(unit.scenario),
        "character_id": unit.character.key,
        "scenario_id": unit.scenario.scenario_id,
    }


def _stage_screening(unit: GenerationUnit) -> GenerationUnit:
    memories = list(
        eligible_memories(character_id=unit.character_id, scenario_age=unit.scenario.age)
    )
    eligible_ids = [m.memory_id for m in memories]
    prompt = _prompt(unit.run.screening_prompt_id)
    batches = prompts.screening_batches(memories)
    base = _prompt_values(unit)
    done = {
        rec.prompt_hash: rec.parsed
        for rec in unit.calls.filter(stage=Stage.SCREENING, ok=True).only("prompt_hash", "parsed")
    }
    screened: list[str] = []
    for number, batch in enumerate(batches, start=1):
        if number > 1 and _cancel_requested(run_id=unit.run_id):
            _unit_cancel(unit_id=unit.pk)
            raise _Stopped
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
            result = _call(
                unit,
                stage=Stage.SCREENING,
                role="activation",
                system=system,
                user=user,
                schema=prompts.SCREENING_SCHEMA,
                details={"batch": number, "batches": len(batches), "offered": len(batch)},
            )
            if not result.ok:
                raise _failed(f"Screening (batch {number} of {len(batches)})", result)
            parsed = result.parsed
        picked, _ = _picked_ids(parsed, {m.anonymized_id: m.memory_id for m in batch})
        screened.extend(i for i in picked if i not in screened)
    return _unit_advance(
        unit,
        stage_reached=Stage.SCREENING,
        eligible_memory_ids=eligible_ids,
        screened_memory_ids=screened,
    )


def _screening_reasons(unit: GenerationUnit) -> dict[str, str]:
    reasons = {}
    for parsed in unit.calls.filter(stage=Stage.SCREENING, ok=True).values_list(
        "parsed", flat=True
    ):
        for item in parsed or []:
            if isinstance(item, dict) and item.get("memory_id"):
                reasons[item["memory_id"]] = str(item.get("reason", ""))
    return reasons


def _stage_reranking(unit: GenerationUnit) -> GenerationUnit:
    screened = list(unit.screened_memory_ids or [])
    limit = prompts.ACTIVATED_MEMORY_LIMIT
    if len(screened) <= limit:
        # App. L.5.2: at or below the target, every survivor is kept, with no call.
        return _unit_advance(
            unit,
            stage_reached=Stage.RERANKING,
            activated_memory_ids=screened,
            reranking_skipped=True,
        )
    by_id = Memory.objects.in_bulk(screened, field_name="memory_id")
    candidates = [by_id[i] for i in screened if i in by_id]
    reasons = _screening_reasons(unit)
    values = {
        **_prompt_values(unit),
        "memories": "\n".join(
            prompts.reranking_memory_line(m, reasons.get(m.anonymized_id, "")) for m in candidates
        ),
        "target": limit,
        "count": len(candidates),
    }
    prompt = _prompt(unit.run.reranking_prompt_id)
    result = _call(
        unit,
        stage=Stage.RERANKING,
        role="activation",
        system=prompts.render(prompt.system_template, values),
        user=prompts.render(prompt.user_template, values),
        schema=prompts.reranking_schema(limit),
        details={"offered": len(candidates), "target": limit},
    )
    if not result.ok:
        raise _failed("Re-ranking", result)
    picked, invented = _picked_ids(
        result.parsed.get("activated_memories"), {m.anonymized_id: m.memory_id for m in candidates}
    )
    if not picked:
        raise _StageFailed(
            "schema_invalid",
            f"Re-ranking returned no memory from the candidate list (ids it gave: "
            f"{', '.join(invented[:5]) or 'none'}); retry the unit.",
        )
    return _unit_advance(
        unit,
        stage_reached=Stage.RERANKING,
        activated_memory_ids=picked[:limit],
        reranking_skipped=False,
    )


def _stage_response(unit: GenerationUnit) -> GenerationUnit:
    activated = list(unit.activated_memory_ids or [])
    memories = sorted(
        Memory.objects.filter(memory_id__in=activated), key=lambda m: (m.event_age, m.sequence)
    )
    values = {
        **_prompt_values(unit),
        "memories": "\n".join(prompts.response_memory_line(m) for m in memories)
        or "(nothing in particular comes back to you)",
    }
    prompt = _prompt(unit.run.response_prompt_id)
    result = _call(
        unit,
        stage=Stage.RESPONSE,
        role="response",
        system=prompts.render(prompt.system_template, values),
        user=prompts.render(prompt.user_template, values),
        schema=prompts.RESPONSE_SCHEMA,
        details={"memories": len(memories)},
    )
    if not result.ok:
        raise _failed("Response", result)
    inner = result.parsed["inner_consciousness"]
    with transaction.atomic():
        locked = _locked_live_unit(unit.pk)
        # Under the unit's row lock no other delivery can be here: look, then create.
        if not Candidate.objects.filter(unit=locked).exists():
            Candidate.objects.create(
                unit=locked,
                **{
                    "character_id": locked.character_id,
                    "scenario_id": locked.scenario_id,
                    "family": locked.family,
                    "model_name": result.model,
                    "run_id": locked.run_id,
                    "profile_version_id": locked.profile_version_id,
                    "summary": inner["summary"],
                    "emotional_tone": inner["emotional_tone"],
                    "core_reasoning": inner["core_reasoning"],
                    "final_decision": result.parsed["final_decision"],
                    "activated_memory_ids": activated,
                    "origin": Candidate.Origin.GENERATED,
                },
            )
        locked.stage_reached = Stage.RESPONSE
        locked.status = UnitStatus.SUCCEEDED
        locked.save(update_fields=["stage_reached", "status", "updated_at"])
    unit.stage_reached, unit.status = locked.stage_reached, locked.status
    return unit
