"""Observer runs: load an inventory; create a run (its units and their material fixed at
launch), start, cancel and resume it on the shared run machinery (``FLOW``); and one
unit's call, taken up by a worker (``observer_unit_execute``).

A unit is one (character, observer family). Its prompt holds the sampled material and the
inventory's statements, never a profile field; the call is recorded with its cost
(``record_call``) before its answer is looked at, and a valid answer is stored as one
``ObserverRating`` per item under the unit's row lock, so a redelivered task never
stores a second set.

!!! BLINDING !!!  Admin-facing only.
"""

import logging
import os
from collections import Counter
from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError, transaction

from annotation.corpus.models import Character
from annotation.generation.models import ModelFamily
from audit.observers import prompts, sampling
from audit.observers.corpus_version import record_corpus_version
from audit.observers.inventory import InventoryError, parse_inventory
from audit.observers.models import (
    MAX_SAMPLE_SIZE,
    ObserverCall,
    ObserverInventory,
    ObserverRating,
    ObserverRun,
    ObserverUnit,
)
from audit.observers.selectors import frozen_profiles
from core.llm_runs.services import RunFlow, record_call
from core.llm_runs.spending import parse_budget
from core.plurals import counted
from core.providers import cached_client, storable
from core.tasks import enqueue_on_commit
from core.text_rules import NOTE, check_texts

logger = logging.getLogger(__name__)

TASK = "audit.observe_character"
UnitStatus = ObserverUnit.Status
RunStatus = ObserverRun.Status
NOT_CONFIGURED = "not_configured"
INVALID_RATINGS = "invalid_ratings"


class ObserverRunError(Exception):
    """An observer request that cannot be carried out as asked; the message says why."""


# --- the inventory -----------------------------------------------------------------------


def inventory_load(*, content: bytes, file_name: str = "", user=None) -> ObserverInventory:
    """Check and store an inventory file; nothing is saved when it is refused
    (``InventoryError`` naming every problem, or the name and version already loaded)."""
    inventory = parse_inventory(content)
    if ObserverInventory.objects.filter(name=inventory.name, version=inventory.version).exists():
        raise InventoryError(
            [
                f"version: {inventory.name} version {inventory.version} is already loaded; "
                "give the changed file another version"
            ]
        )
    try:
        with transaction.atomic():
            return ObserverInventory.objects.create(
                name=inventory.name,
                version=inventory.version,
                scale_min=inventory.scale_min,
                scale_max=inventory.scale_max,
                scale_labels=inventory.labels,
                items=[item.as_dict() for item in inventory.items],
                note=inventory.note,
                file_name=file_name[:200],
                sha256=inventory.sha256,
                loaded_by=user,
            )
    except IntegrityError:
        raise InventoryError(
            [f"version: {inventory.name} version {inventory.version} is already loaded"]
        ) from None


# --- configuration -----------------------------------------------------------------------


def observer_family_configs() -> dict:
    """{family: provider config}: the generation families' response providers
    (``settings.HEARTBENCH_GENERATION_FAMILIES``), in the families' order."""
    families = getattr(settings, "HEARTBENCH_GENERATION_FAMILIES", {}) or {}
    return {f: families[f]["response"] for f in ModelFamily.values if f in families}


def observer_prices(family: str) -> tuple[Decimal, Decimal]:
    """(in, out) USD per million tokens: ``HEARTBENCH_OBSERVER_PRICE_IN`` / ``_OUT`` (a
    setting, else the environment) when set, else the family's response prices."""
    setup = (getattr(settings, "HEARTBENCH_GENERATION_FAMILIES", {}) or {}).get(family) or {}
    prices = []
    for side in ("in", "out"):
        name = f"HEARTBENCH_OBSERVER_PRICE_{side.upper()}"
        value = getattr(settings, name, None) or os.environ.get(name) or setup.get(f"price_{side}")
        prices.append(Decimal(str(value or 0)))
    return prices[0], prices[1]


def run_providers(run: ObserverRun) -> set[str]:
    configs = observer_family_configs()
    return {configs[f].kind.value for f in run.families if f in configs}


FLOW = RunFlow(
    run_model=ObserverRun,
    unit_model=ObserverUnit,
    error=ObserverRunError,
    label="Observer run",
    providers=run_providers,
)


# --- runs --------------------------------------------------------------------------------


@transaction.atomic
def observer_run_create(
    *,
    user,
    inventory_id: int,
    character_ids,
    target: str = ObserverRun.Target.MEMORIES,
    sample_size: int,
    seed: int,
    families=None,
    note: str = "",
    budget_usd=None,
) -> ObserverRun:
    """A pending run with one unit per (chosen character, family), each with its sampled
    material. A character needs a frozen profile and material of the chosen kind."""
    check_texts({"note": note or ""}, {"note": NOTE}, error=ObserverRunError)
    try:
        budget = parse_budget(budget_usd)
    except ValueError as error:
        raise ObserverRunError(str(error)) from None
    inventory = ObserverInventory.objects.filter(pk=inventory_id).first()
    if inventory is None:
        raise ObserverRunError("Choose a loaded inventory (load one on the inventories page).")
    if target not in ObserverRun.Target.values:
        raise ObserverRunError(f"Unknown target {target!r}: memories or references.")
    if not 1 <= int(sample_size) <= MAX_SAMPLE_SIZE:
        raise ObserverRunError(f"Ask for 1 to {MAX_SAMPLE_SIZE} passages per character.")
    configs = observer_family_configs()
    families = list(families) if families else list(configs)
    missing = [f for f in families if f not in configs]
    if not families or missing:
        raise ObserverRunError(
            "No provider is configured for "
            f"{', '.join(missing) or 'any generation family'}; set HEARTBENCH_CLAUDE_*, "
            "HEARTBENCH_GPT_* or HEARTBENCH_GEMINI_* in the environment and restart."
        )
    ids = list(dict.fromkeys(int(c) for c in character_ids or []))
    if not ids:
        raise ObserverRunError("Choose at least one character.")
    profiles = frozen_profiles(ids)
    characters = {c.pk: c for c in Character.objects.filter(pk__in=ids)}
    units, problems = [], []
    for character_id in ids:
        character = characters.get(character_id)
        if character is None:
            problems.append(f"there is no character {character_id}")
            continue
        profile = profiles.get(character_id)
        if profile is None:
            problems.append(f"{character.key} has no frozen profile")
            continue
        chosen = sampled_material(character, target=target, size=int(sample_size), seed=seed)
        if not chosen:
            kind = "audited memories" if target == ObserverRun.Target.MEMORIES else "references"
            problems.append(f"{character.key} has no {kind}")
            continue
        strata = dict(Counter(piece.stratum for piece in chosen))
        for family in families:
            units.append((character, profile, family, [p.id for p in chosen], strata))
    if problems:
        raise ObserverRunError("Cannot observe: " + "; ".join(problems) + ".")
    run = ObserverRun.objects.create(
        inventory=inventory,
        target=target,
        sample_size=int(sample_size),
        seed=seed,
        families=families,
        prompt_version=prompts.PROMPT_VERSION,
        note=note,
        created_by=user,
        budget_usd=budget,
    )
    ObserverUnit.objects.bulk_create(
        [
            ObserverUnit(
                run=run,
                character=character,
                profile_version=profile,
                observer=family,
                material=material,
                strata=strata,
            )
            for character, profile, family, material, strata in units
        ]
    )
    record_corpus_version(run)  # what the report will rest on (corpus_version)
    return run


def sampled_material(character, *, target: str, size: int, seed: int) -> list:
    """The passages a run with this target, size and seed shows for ``character``."""
    pieces = (
        sampling.memory_pieces(character)
        if target == ObserverRun.Target.MEMORIES
        else sampling.reference_pieces(character)
    )
    return sampling.stratified_sample(pieces, size=size, seed=seed, salt=character.key)


def _enqueue(run: ObserverRun, unit_ids: list[int], on_unavailable) -> None:
    enqueue_on_commit(
        TASK,
        what=f"Observer run {run.pk}",
        on_unavailable=on_unavailable,
        calls=[(unit_id,) for unit_id in unit_ids],
    )


@transaction.atomic
def observer_run_start(*, run_id: int, on_unavailable=None) -> ObserverRun:
    run = FLOW.lock(run_id)
    unit_ids = FLOW.start_locked(run)
    if unit_ids:
        _enqueue(run, unit_ids, on_unavailable)
    else:
        FLOW.finish_locked(run)
    return run


@transaction.atomic
def observer_run_cancel(*, run_id: int) -> ObserverRun:
    run = FLOW.lock(run_id)
    FLOW.cancel_locked(run)
    return run


KEEP_BUDGET = object()


@transaction.atomic
def observer_run_resume(*, run_id: int, on_unavailable=None, budget_usd=KEEP_BUDGET):
    """Queue again what is left: a run stopped at a spending limit (with ``budget_usd``),
    a cancelled run's units without ratings, or the failed units of a run that finished
    with failures."""
    run = FLOW.lock(run_id)
    if run.status == RunStatus.STOPPED_AT_BUDGET:
        try:
            budget = run.budget_usd if budget_usd is KEEP_BUDGET else parse_budget(budget_usd)
        except ValueError as error:
            raise ObserverRunError(str(error)) from None
        unit_ids = FLOW.resume_locked(run, budget_usd=budget)
        if unit_ids:
            _enqueue(run, unit_ids, on_unavailable)
        else:
            FLOW.finish_locked(run)
        return run
    if run.status == RunStatus.CANCELLED:
        statuses = (UnitStatus.CANCELLED, UnitStatus.PENDING)
    elif run.status == RunStatus.FINISHED_WITH_FAILURES:
        statuses = (UnitStatus.FAILED,)
        people = FLOW.units(run.pk).filter(
            observer_kind=ObserverUnit.Kind.HUMAN, status=UnitStatus.PENDING
        )
        if people.exists():
            # A running run would hand the people's waiting tasks to the workers.
            raise ObserverRunError(
                f"Observer run {run.pk} has people's tasks still open; retry its failed "
                "model units once they have submitted."
            )
    else:
        raise FLOW.refusal(run, "a cancelled run or one that finished with failures can resume")
    unit_ids = list(
        FLOW.units(run.pk)
        .select_for_update()
        .filter(status__in=statuses)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    if not unit_ids:
        raise ObserverRunError(f"Observer run {run.pk} has no unit left to run.")
    FLOW.reopen_locked(run, ids=unit_ids)
    _enqueue(run, unit_ids, on_unavailable)
    return run


# --- one unit ----------------------------------------------------------------------------


def observer_unit_execute(*, unit_id: int) -> ObserverUnit:
    """Run one unit. Safe to call any number of times: a final unit is left as it is, a
    unit of a cancelled run is cancelled, and only one set of ratings is kept."""
    unit = _claim(unit_id)
    if unit is None:
        run_id = ObserverUnit.objects.values_list("run_id", flat=True).get(pk=unit_id)
        FLOW.finish_if_done(run_id=run_id)
        return ObserverUnit.objects.get(pk=unit_id)
    try:
        _send(unit)
    except Exception as exc:
        logger.exception("observer unit %s crashed", unit_id)
        _finish(unit_id, status=UnitStatus.FAILED, kind="internal_error", error=str(exc))
        FLOW.finish_if_done(run_id=unit.run_id)
        raise
    FLOW.finish_if_done(run_id=unit.run_id)
    return ObserverUnit.objects.get(pk=unit_id)


def _claim(unit_id: int) -> ObserverUnit | None:
    waiting = ObserverUnit.objects.select_related("run").get(pk=unit_id)
    if FLOW.held_at_spending_limit(waiting):
        return None
    with transaction.atomic():
        unit = (
            ObserverUnit.objects.select_for_update(of=("self",))
            .select_related("run__inventory")
            .get(pk=unit_id)
        )
        if unit.is_terminal or unit.observer_kind == ObserverUnit.Kind.HUMAN:
            return None  # a person's task is theirs to submit, never a worker's
        run_status = ObserverRun.objects.values_list("status", flat=True).get(pk=unit.run_id)
        if run_status in (RunStatus.CANCELLING, RunStatus.CANCELLED):
            unit.status = UnitStatus.CANCELLED
            unit.save(update_fields=["status", "updated_at"])
            return None
        if run_status != RunStatus.RUNNING:
            return None
        unit.status = UnitStatus.RUNNING
        unit.attempts += 1
        unit.error_message = unit.error_kind = ""
        unit.save(update_fields=["status", "attempts", "error_message", "error_kind", "updated_at"])
        return unit


def unit_prompt(unit: ObserverUnit) -> tuple[str, str, dict]:
    """(system, user, schema) of a unit's call."""
    return material_prompt(unit.run.target, unit.run.inventory, list(unit.material))


def material_prompt(target: str, inventory: ObserverInventory, material: list[str]):
    """(system, user, schema) of a call showing ``material`` (a unit's, or the cost
    estimate's before launch: the same text either way)."""
    pieces = sampling.shown_texts(target, material)
    user = prompts.user_prompt(
        pieces=pieces,
        items=inventory.items,
        scale_min=inventory.scale_min,
        scale_max=inventory.scale_max,
        labels=inventory.scale_labels,
        target=target,
    )
    schema = prompts.answer_schema(inventory.items, inventory.scale_min, inventory.scale_max)
    return prompts.SYSTEM, user, schema


def _send(unit: ObserverUnit) -> None:
    config = observer_family_configs().get(unit.observer)
    if config is None:
        _finish(
            unit.pk,
            status=UnitStatus.FAILED,
            kind=NOT_CONFIGURED,
            error=f"No provider is configured for {unit.observer} in this worker; set "
            f"HEARTBENCH_{unit.observer.upper()}_* and retry the failed units.",
        )
        return
    system, user, schema = unit_prompt(unit)
    result = cached_client(config).complete_json(
        system=system, user=user, schema=schema, max_attempts=prompts.STRUCTURED_OUTPUT_ROUNDS
    )
    record_call(
        ObserverCall,
        result=result,
        totals=(ObserverUnit, unit.pk),
        prices=observer_prices(unit.observer),
        unit_id=unit.pk,
        request=storable(
            {
                "prompt_version": unit.run.prompt_version,
                "family": unit.observer,
                "model": config.model,
                "system": system,
                "user": user,
                "schema": schema,
            }
        ),
    )
    if not result.ok:
        _finish(
            unit.pk,
            status=UnitStatus.FAILED,
            kind=result.error_kind or "internal_error",
            error=f"The observer gave no valid answer after "
            f"{counted(result.attempt_count, 'request')} in {counted(result.rounds, 'round')}: "
            f"{result.failure_reason}",
        )
        return
    inventory = unit.run.inventory
    ratings = (result.parsed or {}).get(prompts.ANSWER_FIELD) or {}
    problems = check_ratings(ratings, inventory)
    if problems:
        _finish(unit.pk, status=UnitStatus.FAILED, kind=INVALID_RATINGS, error="; ".join(problems))
        return
    with transaction.atomic():
        locked = ObserverUnit.objects.select_for_update().get(pk=unit.pk)
        if locked.status != UnitStatus.RUNNING:
            return  # another delivery stored it first, or the unit was cancelled
        ObserverRating.objects.bulk_create(
            [
                ObserverRating(
                    unit=locked,
                    item_id=item["id"],
                    trait=item["trait"],
                    keying=item["keying"],
                    value=int(ratings[item["id"]]),
                )
                for item in inventory.items
            ]
        )
        _set(locked, status=UnitStatus.SUCCEEDED, kind="", error="")


def check_ratings(ratings: dict, inventory: ObserverInventory) -> list[str]:
    """What is wrong with an answer: an item missing, an unknown one, a value off the
    scale."""
    ids = [item["id"] for item in inventory.items]
    problems = [f"no rating for {i}" for i in ids if i not in ratings]
    problems += [f"{k} is not an item of the inventory" for k in ratings if k not in ids]
    for key, value in ratings.items():
        ok = isinstance(value, int) and not isinstance(value, bool)
        if key in ids and not (ok and inventory.scale_min <= value <= inventory.scale_max):
            problems.append(
                f"{key}: {value!r} is not on the scale {inventory.scale_min}-{inventory.scale_max}"
            )
    return problems


def _finish(unit_id: int, *, status: str, kind: str, error: str) -> None:
    with transaction.atomic():
        unit = ObserverUnit.objects.select_for_update().get(pk=unit_id)
        if unit.is_terminal:
            return
        _set(unit, status=status, kind=kind, error=error)


def _set(unit: ObserverUnit, *, status: str, kind: str, error: str) -> None:
    unit.status = status
    unit.error_kind = kind[:40]
    unit.error_message = storable(error)
    unit.save(update_fields=["status", "error_kind", "error_message", "updated_at"])
