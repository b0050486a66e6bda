"""Generation runs: launch, start, cancel and retry a run of units, and the numbered
prompt versions a run uses (seed 000 §2.4 Stage 1, App. D.1, App. L.5).

Views and the API call these. Starting or retrying a run queues its units' tasks once
the transaction commits; a worker runs each unit (``units``). Run-level changes lock
the run row first and then touch units (the lock order of ``transitions``).

!!! BLINDING !!!  ``family`` is provenance; nothing here is annotator-facing.
"""

from django.db import transaction
from django.db.models import Max

from annotation.corpus.models import Character, Scenario
from annotation.generation import prompts
from annotation.generation.default_prompts import DEFAULT_VERSIONS
from annotation.generation.gates import GATE_RULES, Gate, generation_gates
from annotation.generation.models import (
    GenerationRun,
    GenerationStage,
    GenerationUnit,
    ModelFamily,
    PromptVersion,
)
from annotation.generation.services.calls import generation_family_configs
from annotation.generation.services.transitions import FLOW, GenerationError
from core.deviations import ProtocolDeviation, record_deviation
from core.llm_runs.spending import parse_budget
from core.tasks import enqueue_on_commit
from core.text_rules import NOTE, TEXT, check_text

Stage = GenerationStage
UnitStatus = GenerationUnit.Status
RunStatus = GenerationRun.Status


class GenerationBlocked(GenerationError):
    """Chosen pairs do not pass the generation gates; ``blocks`` says what each waits for."""

    def __init__(self, gates):
        super().__init__(gates.refusal())
        self.blocks = [block.as_dict() for block in gates.blocks]


# --- runs -----------------------------------------------------------------------------


def _latest_prompt(stage: str) -> PromptVersion:
    prompt = PromptVersion.objects.filter(stage=stage).order_by("-number").first()
    if prompt is None:
        # The data migrations wrote the default versions; a flushed database
        # (``manage.py flush``, a transactional test) lost them. Write them again from
        # the same text, under the same numbers.
        for number, (texts, note) in DEFAULT_VERSIONS.items():
            system, user = texts[stage]
            prompt, _ = PromptVersion.objects.get_or_create(
                stage=stage,
                number=number,
                defaults={"system_template": system, "user_template": user, "note": note},
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
    override_gates: bool = False,
    override_reason: str = "",
    guidance: str = "",
    budget_usd=None,
) -> GenerationRun:
    """A pending run over every chosen (character, scenario) pair × family, with all its
    units created up front. ``characters``/``scenarios`` are keys/ids (or instances);
    None means all. Each character's latest *frozen* profile version is the one used.

    Every pair must pass the gates (``annotation.generation.gates``): a frozen profile,
    a scenario that completed review, a finalized memory audit. A blocked pair is
    refused, naming what it waits for, unless ``override_gates`` with a reason: then
    each blocked pair's gates are recorded as protocol deviations (and each character
    without a finalized audit as used with unaudited memories), and a character without
    a frozen version uses its latest one. ``guidance`` (a regeneration's, issue #22) is
    recorded on the run and added to every response prompt. ``budget_usd`` (None: no
    budget) stops the run once its recorded cost reaches it (``core.llm_runs.spending``)."""
    check_text(note, label="Note", limit=NOTE, error=GenerationError)
    check_text(override_reason, label="Reason for the override", limit=NOTE, error=GenerationError)
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

    gates = generation_gates(characters=character_rows, scenarios=scenario_rows)
    if gates.without_profile():
        raise GenerationError(
            "Generation needs a profile version, and these characters have none: "
            f"{', '.join(gates.without_profile())}. Import their profiles first."
        )
    override_reason = (override_reason or "").strip()
    if gates.blocks and not override_gates:
        raise GenerationBlocked(gates)
    if gates.blocks and not override_reason:
        raise GenerationError(
            "Overriding the generation gates needs a reason: it is recorded as a protocol "
            "deviation and listed in the export manifest."
        )
    if gates.blocks:
        _record_overrides(gates, reason=override_reason, user=user)
    profiles = gates.profiles

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
        guidance=(guidance or "").strip(),
        budget_usd=_budget(budget_usd),
    )
    GenerationUnit.objects.bulk_create(
        [
            GenerationUnit(
                run=run,
                character=character,
                scenario=scenario,
                family=family,
                profile_version=profiles[character.pk],
            )
            for character in character_rows
            for scenario in scenario_rows
            for family in families
        ],
        batch_size=2000,
    )
    return run


def _budget(value):
    try:
        return parse_budget(value)
    except ValueError as error:
        raise GenerationError(str(error)) from None


def _record_overrides(gates, *, reason: str, user) -> None:
    for character in gates.characters:
        for scenario in gates.scenarios:
            for block in gates.pair_blocks(character, scenario):
                record_deviation(
                    stage="generation",
                    kind=ProtocolDeviation.Kind.GATE_OVERRIDE,
                    subject=f"{character.key} × {scenario.scenario_id}",
                    rule=f"{block.rule}: {block.why}",
                    reason=reason,
                    by=user,
                )
    for character in gates.unaudited():
        record_deviation(
            stage="generation",
            kind=ProtocolDeviation.Kind.UNAUDITED_MEMORIES,
            subject=character.key,
            rule=GATE_RULES[Gate.AUDIT_FINALIZED],
            reason=reason,
            by=user,
        )


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


def _enqueue_units(run: GenerationRun, unit_ids: list[int], on_unavailable) -> None:
    """One task per unit once the transaction commits. Without a broker the units stay
    pending and the run running: retrying or starting again is safe."""
    enqueue_on_commit(
        "annotation.execute_generation_unit",
        what=f"Run {run.pk}",
        on_unavailable=on_unavailable,
        calls=[(unit_id,) for unit_id in unit_ids],
    )


@transaction.atomic
def generation_run_start(*, run_id: int, on_unavailable=None) -> GenerationRun:
    """Mark a pending run running and queue its units once this transaction commits.
    ``on_unavailable(message)`` is told when the broker cannot take them."""
    run = FLOW.lock(run_id)
    unit_ids = FLOW.start_locked(run)
    if unit_ids:
        _enqueue_units(run, unit_ids, on_unavailable)
    else:
        FLOW.finish_locked(run)
    return run


@transaction.atomic
def generation_run_cancel(*, run_id: int) -> GenerationRun:
    """Stop a run: units still waiting are cancelled now; units a worker holds stop at
    their next stage boundary (a call already sent is not abandoned)."""
    run = FLOW.lock(run_id)
    FLOW.cancel_locked(run)
    return run


@transaction.atomic
def generation_run_retry_failed(*, run_id: int, on_unavailable=None) -> GenerationRun:
    """Queue the failed units again; each resumes at the stage it reached. Units that
    succeeded or were cancelled are left alone. ``on_unavailable`` as for a start."""
    run = FLOW.lock(run_id)
    if run.status in (RunStatus.CANCELLING, RunStatus.CANCELLED):
        raise GenerationError(
            f"Run {run.pk} was cancelled; start a new run for the pairs it did not finish."
        )
    if run.status == RunStatus.PENDING:
        raise GenerationError(f"Run {run.pk} has not started; start it instead.")
    failed = FLOW.failed_unit_ids_locked(run)
    if not failed:
        raise GenerationError(f"Run {run.pk} has no failed units to retry.")
    FLOW.reopen_locked(run, ids=failed)
    _enqueue_units(run, failed, on_unavailable)
    return run


@transaction.atomic
def generation_run_resume(*, run_id: int, budget_usd=None, on_unavailable=None) -> GenerationRun:
    """Resume a run stopped at its budget or at a monthly cap, with ``budget_usd`` as its
    new budget (None: no budget): its waiting units are queued again; the units it had
    finished keep their candidates and are not run again."""
    run = FLOW.lock(run_id)
    unit_ids = FLOW.resume_locked(run, budget_usd=_budget(budget_usd))
    if unit_ids:
        _enqueue_units(run, unit_ids, on_unavailable)
    else:
        FLOW.finish_locked(run)
    return run


# --- prompts --------------------------------------------------------------------------


@transaction.atomic
def prompt_version_create(
    *, stage: str, system_template: str, user_template: str, note: str = "", user=None
) -> PromptVersion:
    """The next numbered version of a stage's prompt; new runs use the latest."""
    check_text(system_template, label="System prompt", limit=TEXT, error=GenerationError)
    check_text(user_template, label="User prompt template", limit=TEXT, error=GenerationError)
    check_text(note, label="What changed", limit=NOTE, error=GenerationError)
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
