"""Assembly of MCQ items (seed 000 §2.4 Stage 3, App. D.3): one pair's item from its
current adjudicated reference, and assembly runs over every pair awaiting an item.

Gate: only references adjudicated in this project are keys or distractors; an admin may
let imported ones in with a reason, recorded as a protocol deviation. Keys: each run
places its keys so that every label holds the same number, give or take one
(``assembly.balanced_key_label``), seeded by the run's recorded seed.

The selector LLM (when configured) chooses three distractors among the valid candidates
the pure core (:mod:`adjudication.mcq.assembly_rules`) scores; otherwise the deterministic
fallback does. A complete item is queued for screening once it is committed; the items of
an assembly run are screened together, as one screening run, when the run ends.
"""

import json

from django.db import transaction
from django.db.models import Count, Exists, OuterRef
from django.utils import timezone

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq import assembly_rules as mcq_assembly
from adjudication.mcq.models import (
    OPTION_LABELS,
    McqAssemblyRun,
    McqError,
    McqItem,
    McqItemVersion,
    McqOption,
)
from adjudication.mcq.services import screening_runs
from adjudication.mcq.versions import record_version
from core.deviations import ProtocolDeviation, record_deviation
from core.plurals import counted
from core.protocol import PROTOCOL_SEED
from core.providers import configured_provider
from core.roles import Role, has_any_role
from core.tasks import enqueue_on_commit
from llm import ProviderConfig, make_client

SELECTOR_PROVIDER_PREFIX = "HEARTBENCH_MCQ_SELECTOR"
# The option-order seed of assembly runs: the protocol seed (App. J); each item's own seed
# derives from it and the item id (mcq_assembly.derive_seed).
ASSEMBLY_BASE_SEED = PROTOCOL_SEED


def selector_provider() -> ProviderConfig | None:
    """The distractor selector (App. D.3 uses Claude-Sonnet-4.6): ``HEARTBENCH_MCQ_SELECTOR_*``.
    None: the deterministic fallback selects."""
    return configured_provider(SELECTOR_PROVIDER_PREFIX)


def question_id_for(reference: ReferenceResponse) -> str:
    return f"Q_{reference.character.key}_{reference.scenario.scenario_id}"


def scenario_text(scenario) -> str:
    return " ".join(
        part
        for part in (
            scenario.name,
            scenario.description_for_agent,
            scenario.context_text,
            scenario.trigger_message,
            scenario.action_required,
        )
        if part
    )


# §2.4 Stage 3: items pair "each character's expert-adjudicated response with other
# characters' responses to the same scenario". A reference imported from a release was not
# adjudicated in this project (it may even belong to a pair arbitration discarded here).
GATE_RULE = (
    "Assembly takes only references adjudicated by consensus-then-arbitration "
    "(seed 000 §2.4 Stage 3, App. D.2)"
)
ASSEMBLY_STAGE = "mcq_assembly"


def assembly_references(*, include_unadjudicated: bool = False):
    """The current references assembly may use, as keys and as distractors: adjudicated
    ones only, unless an admin overrode the gate (then imported ones too)."""
    rows = ReferenceResponse.objects.filter(superseded_at__isnull=True)
    if not include_unadjudicated:
        rows = rows.exclude(decision_type=ReferenceResponse.DecisionType.IMPORTED)
    return rows


def is_adjudicated(reference: ReferenceResponse) -> bool:
    return reference.decision_type != ReferenceResponse.DecisionType.IMPORTED


def pairs_awaiting_assembly(*, include_unadjudicated: bool = False):
    """Current adjudicated references of pairs that have no item yet (imported ones too
    when the gate is overridden)."""
    has_item = McqItem.objects.filter(
        character_id=OuterRef("character_id"), scenario_id=OuterRef("scenario_id")
    )
    return (
        assembly_references(include_unadjudicated=include_unadjudicated)
        .exclude(Exists(has_item))
        .select_related("character", "scenario")
        .order_by("scenario__scenario_id", "character__key")
    )


def unadjudicated_awaiting_assembly() -> int:
    """Pairs that only an overridden gate would assemble (imported references)."""
    return (
        pairs_awaiting_assembly(include_unadjudicated=True)
        .filter(decision_type=ReferenceResponse.DecisionType.IMPORTED)
        .count()
    )


def key_batch(run: McqAssemblyRun | None) -> dict:
    """One key-balancing batch: the items of an assembly run, or those assembled outside
    any run (``{"run": None}``)."""
    return {"run": run.pk if run else None}


def batch_key_counts(batch: dict) -> dict[str, int]:
    """Keys per label among the batch's complete items (removed and incomplete ones do not
    count: an incomplete item's key is placed when it is completed)."""
    rows = (
        # A key lookup, not JSON containment: SQLite (the demo) has no containment.
        McqItem.objects.filter(assembly_params__run=batch["run"])
        .exclude(status__in=[McqItem.Status.NEEDS_COMPLETION, McqItem.Status.REMOVED])
        .values_list("correct_answer")
        .annotate(n=Count("pk"))
    )
    return {label: 0 for label in OPTION_LABELS} | dict(rows)


SELECTOR_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["selected", "justification"],
    "properties": {
        "selected": {
            "type": "array",
            "minItems": mcq_assembly.DISTRACTORS_PER_ITEM,
            "maxItems": mcq_assembly.DISTRACTORS_PER_ITEM,
            "items": {"type": "string"},
        },
        "justification": {"type": "string"},
    },
}

# The selector's prompt at the default thresholds; a run's own thresholds are stated in its
# prompt (``mcq_assembly.selector_instructions``).
SELECTOR_SYSTEM = mcq_assembly.selector_instructions(mcq_assembly.AssemblyParams())


def _llm_select(client, *, reference, valid, params):
    """Ask the selector; returns (chosen, note). Anything but three distinct offered ids
    falls back to the deterministic choice, and the note says why."""

    ids = {f"D{n}": s for n, s in enumerate(valid, start=1)}
    data = {
        "scenario": scenario_text(reference.scenario),
        "key": reference.final_decision,
        "candidates": [{"id": i, "text": s.text} for i, s in ids.items()],
    }
    user = f"<item_data>\n{json.dumps(data, ensure_ascii=False, indent=1)}\n</item_data>"
    system = mcq_assembly.selector_instructions(params)
    result = client.complete_json(system=system, user=user, schema=SELECTOR_SCHEMA)
    if not result.ok:
        return None, f"selector failed ({result.error_kind}): {result.error_message}"
    chosen = result.parsed["selected"]
    if len(set(chosen)) != len(chosen) or not set(chosen) <= set(ids):
        return None, f"selector chose ids outside the offered candidates: {chosen}"
    return [ids[i] for i in chosen], result.parsed.get("justification", "")


def _selector_client(provider):
    if provider is False:
        return None
    config = provider if provider is not None else selector_provider()
    return make_client(config) if config is not None else None


def mcq_item_assemble(
    *,
    reference_id: int,
    params: mcq_assembly.AssemblyParams | None = None,
    base_seed: int = ASSEMBLY_BASE_SEED,
    selector=None,
    run: McqAssemblyRun | None = None,
    user=None,
    question_id: str | None = None,
    dispatch: bool = True,
    gate_override_reason: str = "",
) -> McqItem:
    """Assemble the item of one pair from its current reference (idempotent per pair).

    ``question_id`` overrides ``Q_<character>_<scenario>`` (the demo's labelled items);
    ``dispatch=False`` leaves a complete item awaiting screening without queueing it.

    ``selector``: a client, a ProviderConfig, None (the configured selector, else the
    fallback) or False (the fallback). Fewer than three valid distractors gives an item
    in ``needs_completion`` with only the valid ones: never padded.

    Only adjudicated references are keys and distractors; an imported one is refused
    unless the run carries an override or an admin (``user``) gives
    ``gate_override_reason``, which is recorded as a protocol deviation. The key's
    position is balanced over the run's items (or over the items assembled outside a run).
    """
    params = params or mcq_assembly.AssemblyParams()
    reference = ReferenceResponse.objects.select_related("character", "scenario").get(
        pk=reference_id
    )
    if reference.superseded_at is not None:
        raise McqError(f"Reference {reference_id} is superseded; assemble from the current one.")
    question_id = question_id or question_id_for(reference)
    existing = McqItem.objects.filter(question_id=question_id).first()
    if existing is not None:
        return existing
    if run is not None:
        override = run.gate_override_reason  # recorded when the run was started
    else:
        override = (gate_override_reason or "").strip()
        if override and not has_any_role(user, [Role.ADMIN]):
            raise McqError("Only an admin overrides the assembly gate.")
    if not override and not is_adjudicated(reference):
        raise McqError(
            f"{question_id}: the reference of {reference.character.key} × "
            f"{reference.scenario.scenario_id} (reference {reference.pk}) is "
            f"{reference.get_decision_type_display().lower()}, not adjudicated in this "
            f"project. {GATE_RULE}; an admin may override with a reason."
        )

    others = (
        assembly_references(include_unadjudicated=bool(override))
        .filter(scenario=reference.scenario)
        .exclude(character=reference.character)
        .select_related("character")
        .order_by("character__key")
    )
    candidates = [
        mcq_assembly.DistractorCandidate(r.pk, r.character.key, r.final_decision) for r in others
    ]
    scored = mcq_assembly.score_candidates(
        key=reference.final_decision,
        scenario=scenario_text(reference.scenario),
        candidates=candidates,
        params=params,
    )
    valid = [s for s in scored if s.rejected is None]
    selector_used, selector_note, chosen = "fallback", "", None
    if len(valid) > mcq_assembly.DISTRACTORS_PER_ITEM:
        client = selector if hasattr(selector, "complete_json") else _selector_client(selector)
        if client is not None:
            chosen, selector_note = _llm_select(
                client, reference=reference, valid=valid, params=params
            )
            if chosen is not None:
                selector_used = "llm"
    if chosen is None:
        chosen = mcq_assembly.fallback_selection(valid)
    chosen_ids = {s.reference_id for s in chosen}

    base_seed = run.seed if run else base_seed
    seed = mcq_assembly.derive_seed(base_seed, question_id)
    sources = [
        mcq_assembly.OptionSource(
            reference.final_decision, reference.character.key, reference.pk, is_key=True
        )
    ] + [mcq_assembly.OptionSource(s.text, s.character_key, s.reference_id) for s in chosen]
    complete = len(chosen) == mcq_assembly.DISTRACTORS_PER_ITEM
    assembly_params = {
        **params.as_dict(),
        "selector": selector_used,
        "selector_note": selector_note,
        "base_seed": base_seed,
        "run": run.pk if run else None,
        "valid_distractors": len(valid),
        "candidates": [{**s.record(), "selected": s.reference_id in chosen_ids} for s in scored],
    }
    with transaction.atomic():
        ReferenceResponse.objects.select_for_update().get(pk=reference.pk)
        existing = McqItem.objects.filter(question_id=question_id).first()
        if existing is not None:
            return existing
        balance = None
        if complete:
            # An incomplete item's key is placed when a reviewer completes it.
            counts = batch_key_counts(key_batch(run))
            balance = mcq_assembly.balanced_key_label(counts, seed, OPTION_LABELS)
            assembly_params["key_balance"] = {"keys_before": counts, "key_label": balance}
        ordered = mcq_assembly.order_options(sources, seed, key_label=balance)
        key_label = next(o.label for o in ordered if o.is_correct)
        if override and run is None:
            kind = "adjudicated" if is_adjudicated(reference) else "imported"
            record_deviation(
                stage=ASSEMBLY_STAGE,
                kind=ProtocolDeviation.Kind.GATE_OVERRIDE,
                subject=f"{question_id} (key: {kind} reference {reference.pk}; imported "
                "references allowed as distractors)",
                rule=GATE_RULE,
                reason=override,
                by=user,
            )
        item = McqItem.objects.create(
            question_id=question_id,
            character=reference.character,
            scenario=reference.scenario,
            stage=reference.scenario.stage,
            correct_answer=key_label,
            source=f"assembly run {run.pk}" if run else "assembly",
            status=McqItem.Status.SCREENING if complete else McqItem.Status.NEEDS_COMPLETION,
            reference=reference,
            seed=seed,
            assembly_params=assembly_params,
        )
        McqOption.objects.bulk_create(
            McqOption(
                item=item,
                **{k: v for k, v in o.as_dict().items() if k != "source_reference"},
                source_reference_id=o.source_reference,
            )
            for o in ordered
        )
        record_version(item, origin=McqItemVersion.Origin.ASSEMBLY, user=user)
        if complete and dispatch and run is None:
            enqueue_on_commit(
                "adjudication.mcq_screen_item", item.pk, what=f"Screening of MCQ item {item.pk}"
            )
    return item


@transaction.atomic
def mcq_assembly_run_start(
    *,
    started_by,
    params: mcq_assembly.AssemblyParams | None = None,
    dispatch: bool = True,
    seed: int = ASSEMBLY_BASE_SEED,
    gate_override_reason: str = "",
) -> McqAssemblyRun:
    """Queue a run over every adjudicated pair awaiting an item. ``gate_override_reason``
    (an admin's) lets the run take imported references too; it is recorded as a protocol
    deviation now, in the same transaction."""
    if McqAssemblyRun.objects.filter(
        status__in=[McqAssemblyRun.Status.QUEUED, McqAssemblyRun.Status.RUNNING]
    ).exists():
        raise McqError("An assembly run is already queued or running; wait for it to finish.")
    override = (gate_override_reason or "").strip()
    if override and not has_any_role(started_by, [Role.ADMIN]):
        raise McqError("Only an admin overrides the assembly gate.")
    params = params or mcq_assembly.AssemblyParams()
    run = McqAssemblyRun.objects.create(
        started_by=started_by,
        params=params.as_dict(),
        seed=seed,
        gate_override_reason=override,
        total=pairs_awaiting_assembly(include_unadjudicated=bool(override)).count(),
    )
    if override:
        record_deviation(
            stage=ASSEMBLY_STAGE,
            kind=ProtocolDeviation.Kind.GATE_OVERRIDE,
            subject=f"assembly run {run.pk}: "
            f"{counted(unadjudicated_awaiting_assembly(), 'imported reference')} awaiting an "
            "item, and imported references as distractors",
            rule=GATE_RULE,
            reason=override,
            by=started_by,
        )
    if dispatch:
        enqueue_on_commit(
            "adjudication.mcq_assembly_run", run.pk, what=f"MCQ assembly run {run.pk}"
        )
    return run


def mcq_assembly_run_execute(*, run_id: int, selector=None) -> McqAssemblyRun:
    """Assemble every pair awaiting an item; progress is saved after each pair."""
    with transaction.atomic():
        run = McqAssemblyRun.objects.select_for_update().get(pk=run_id)
        if run.status in (McqAssemblyRun.Status.DONE, McqAssemblyRun.Status.FAILED):
            return run
        run.status = McqAssemblyRun.Status.RUNNING
        run.save(update_fields=["status"])
    params = mcq_assembly.AssemblyParams(**run.params)
    selector = selector if selector is not None else _selector_client(None)
    try:
        pending = list(
            pairs_awaiting_assembly(
                include_unadjudicated=bool(run.gate_override_reason)
            ).values_list("pk", flat=True)
        )
        McqAssemblyRun.objects.filter(pk=run.pk).update(total=run.processed + len(pending))
        for reference_id in pending:
            item = mcq_item_assemble(
                reference_id=reference_id,
                params=params,
                selector=selector if selector is not None else False,
                run=run,
                user=run.started_by,
            )
            run.processed += 1
            if item.status == McqItem.Status.NEEDS_COMPLETION:
                run.needs_completion += 1
            else:
                run.assembled += 1
            run.save(update_fields=["processed", "needs_completion", "assembled"])
    except Exception as error:
        run.status = McqAssemblyRun.Status.FAILED
        run.error = f"{type(error).__name__}: {error}"
        run.finished_at = timezone.now()
        run.save(update_fields=["status", "error", "finished_at"])
        screening_runs.screening_run_for_assembly(assembly_run=run)
        raise
    run.status = McqAssemblyRun.Status.DONE
    run.finished_at = timezone.now()
    run.save(update_fields=["status", "finished_at"])
    # The complete items it made are screened together, as one screening run.
    screening_runs.screening_run_for_assembly(assembly_run=run)
    return run
