"""Item review (seed 000 App. D.3.1, "Routing and resolution"): a reviewer's action on a
flagged or incomplete item, recorded as a decision and carried out through
:mod:`adjudication.mcq.versions`, so every edit is a new version screened again in full.
"""

import random

from django.db import transaction

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq import assembly_rules as mcq_assembly
from adjudication.mcq.models import (
    OPTION_LABELS,
    McqError,
    McqItem,
    McqItemVersion,
    McqNotReviewable,
    McqOption,
    McqReviewDecision,
    McqScreening,
    McqStaleVersion,
)
from adjudication.mcq.services.item_assembly import (
    ASSEMBLY_BASE_SEED,
    batch_key_counts,
    scenario_text,
)
from adjudication.mcq.versions import (
    ItemEditRejected,
    current_version,
    option_dicts,
    record_version,
    remove_item,
    revise_item,
)
from core.plurals import agree, counted

REVIEWABLE = (McqItem.Status.FLAGGED, McqItem.Status.NEEDS_COMPLETION)
NOTE_REQUIRED = {
    McqReviewDecision.Action.RETAIN,
    McqReviewDecision.Action.RECONSIDER_KEY,
    McqReviewDecision.Action.REMOVE,
}


def _latest_screening(item):
    return McqScreening.objects.filter(item=item).order_by("-created_at").first()


def _item_batch(item: McqItem) -> dict:
    """The key-balancing batch of an assembled item: its assembly run, or the items
    assembled outside a run."""
    return {"run": item.assembly_params.get("run")}


def _four_options_reordered(item: McqItem, options: list[dict]) -> tuple[list[dict], str]:
    """A completed item's four options: the key where its batch (the assembly run) has
    the fewest keys, as assembly would have placed it, and the distractors shuffled
    around it with the item's recorded seed (in their current order, as at assembly)."""
    key = next(o for o in options if o["is_correct"])
    distractors = [o for o in options if not o["is_correct"]]
    sources = [key, *distractors]
    counts = batch_key_counts(_item_batch(item))
    key_label = mcq_assembly.balanced_key_label(counts, item.seed or 0, OPTION_LABELS)
    McqItem.objects.filter(pk=item.pk).update(
        assembly_params={
            **item.assembly_params,
            "key_balance": {"keys_before": counts, "key_label": key_label},
        }
    )
    item.refresh_from_db(fields=["assembly_params"])
    slot = OPTION_LABELS.index(key_label)
    rest = list(range(1, len(sources)))
    random.Random(item.seed).shuffle(rest)
    order = [*rest[:slot], 0, *rest[slot:]]
    out = []
    for i, j in enumerate(order):
        o = dict(sources[j])
        o["label"] = OPTION_LABELS[i]
        out.append(o)
    return out, next(o["label"] for o in out if o["is_correct"])


def _distractor_from_reference(item: McqItem, reference_id: int, current: list[dict]) -> dict:
    ref = (
        ReferenceResponse.objects.select_related("character")
        .filter(pk=reference_id, scenario=item.scenario, superseded_at__isnull=True)
        .exclude(character=item.character)
        .first()
    )
    if ref is None:
        raise McqError("Choose a current reference of another character in the same scenario.")
    if any(o.get("source_reference") == ref.pk for o in current):
        raise McqError(f"The reference of {ref.character.key} is already an option of this item.")
    return {
        "content": ref.final_decision,
        "is_generated": False,
        "source_character": ref.character.key,
        "source_reference": ref.pk,
    }


def _add_option(item, *, user, new: dict, note: str):
    """Add an option to an incomplete item. With four options it is reordered with its seed
    and revised (then screened); with fewer it stays ``needs_completion`` as a new version."""
    current = option_dicts(item)
    candidate = [*current, {**new, "is_correct": False, "label": "?"}]
    if len(candidate) == len(OPTION_LABELS):
        options, key = _four_options_reordered(item, candidate)
        return revise_item(
            item,
            user=user,
            origin=McqItemVersion.Origin.REVIEW,
            note=note,
            options=options,
            correct_answer=key,
        )
    label = OPTION_LABELS[len(current)]
    texts = {" ".join(o["content"].split()).casefold() for o in current}
    if " ".join(new["content"].split()).casefold() in texts:
        raise ItemEditRejected("Two options have the same text.")
    McqOption.objects.create(
        item=item,
        label=label,
        content=new["content"],
        is_correct=False,
        is_generated=new["is_generated"],
        source_character=new["source_character"],
        source_reference_id=new["source_reference"],
    )
    item.version += 1
    item.save(update_fields=["version"])
    return record_version(item, origin=McqItemVersion.Origin.REVIEW, user=user, note=note)


@transaction.atomic
def mcq_review_decide(
    *,
    item_id: int,
    reviewer,
    action: str,
    version: int,
    note: str = "",
    label: str | None = None,
    content: str | None = None,
    reference_id: int | None = None,
) -> McqReviewDecision:
    """Record one review action and carry it out (App. D.3.1, "Routing and resolution").

    ``version`` is the version the reviewer looked at: a stale page is refused. Edits go
    through ``revise_item`` (origin review) and are screened again in full.
    """
    A = McqReviewDecision.Action
    item = (
        McqItem.objects.select_for_update(of=("self",)).select_related("reference").get(pk=item_id)
    )
    if item.status not in REVIEWABLE:
        raise McqNotReviewable(
            f"{item.question_id} is {item.get_status_display().lower()}; only flagged or "
            "incomplete items are reviewed."
        )
    if version != item.version:
        raise McqStaleVersion(
            f"{item.question_id} changed since you opened it (now version {item.version}); "
            "reload the page."
        )
    if action not in A.values:
        raise McqError(f"There is no review action {action!r}.")
    note = (note or "").strip()
    if action in NOTE_REQUIRED and not note:
        raise McqError(f"Give a note for “{A(action).label}”: say why.")
    looked_at = current_version(item)
    incomplete = item.status == McqItem.Status.NEEDS_COMPLETION
    current = option_dicts(item)
    result = None

    def distractor_label():
        if label not in OPTION_LABELS or label not in [o["label"] for o in current]:
            raise McqError("Choose the option to change.")
        if label == item.correct_answer:
            raise McqError(f"Option {label} is the key; reconsider the key instead.")
        return label

    try:
        if action == A.RETAIN:
            if incomplete:
                raise McqError(
                    f"{item.question_id} has only {len(current)} options; complete it first."
                )
            item.status = McqItem.Status.FINAL
            item.save(update_fields=["status"])
        elif action == A.REMOVE:
            remove_item(item, user=reviewer, origin=McqItemVersion.Origin.REVIEW, note=note)
        elif action == A.REVISE_DISTRACTOR:
            if not (content or "").strip():
                raise McqError("Write the revised text of the distractor.")
            chosen = distractor_label()
            if incomplete:
                raise McqError("Complete the item before revising its distractors.")
            result = revise_item(
                item,
                user=reviewer,
                origin=McqItemVersion.Origin.REVIEW,
                note=note,
                options=[
                    {
                        "label": o["label"],
                        "content": content.strip() if o["label"] == chosen else o["content"],
                    }
                    for o in current
                ],
            )
        elif action in (A.REPLACE_DISTRACTOR, A.GENERATE_DISTRACTOR):
            if action == A.REPLACE_DISTRACTOR:
                if not reference_id:
                    raise McqError("Choose the reference that replaces the distractor.")
                new = _distractor_from_reference(item, reference_id, current)
            else:
                if not (content or "").strip():
                    raise McqError("Write the generated distractor's text.")
                new = {
                    "content": content.strip(),
                    "is_generated": True,
                    "source_character": "",
                    "source_reference": None,
                }
            if incomplete:
                result = _add_option(item, user=reviewer, new=new, note=note)
            else:
                chosen = distractor_label()
                result = revise_item(
                    item,
                    user=reviewer,
                    origin=McqItemVersion.Origin.REVIEW,
                    note=note,
                    options=[
                        {"label": o["label"], **new} if o["label"] == chosen else o for o in current
                    ],
                )
        elif action == A.RECONSIDER_KEY:
            ref = ReferenceResponse.objects.filter(
                character=item.character, scenario=item.scenario, superseded_at__isnull=True
            ).first()
            if ref is None:
                raise McqError("The pair has no current reference; its arbitration is reopened.")
            if ref.pk == item.reference_id:
                raise McqError(
                    "The key is already the pair's current reference. To change the "
                    "reference itself, an admin reopens the pair's arbitration decision; "
                    "then reconsider the key here."
                )
            if incomplete:
                raise McqError("Complete the item before reconsidering its key.")
            result = revise_item(
                item,
                user=reviewer,
                origin=McqItemVersion.Origin.REVIEW,
                note=note,
                options=[
                    {"label": o["label"], "content": ref.final_decision, "source_reference": ref.pk}
                    if o["is_correct"]
                    else {"label": o["label"]}
                    for o in current
                ],
                reference=ref,
            )
        elif action == A.RECONSTRUCT:
            result = _reconstruct(item, user=reviewer, note=note)
    except ItemEditRejected as error:
        raise McqError(str(error)) from error
    return McqReviewDecision.objects.create(
        item=item,
        item_version=looked_at,
        result_version=result,
        screening=_latest_screening(item),
        reviewer=reviewer,
        action=action,
        note=note,
    )


def _reconstruct(item: McqItem, *, user, note: str):
    """Assemble the item again from the pair's current references with a new seed."""
    ref = (
        ReferenceResponse.objects.filter(
            character=item.character, scenario=item.scenario, superseded_at__isnull=True
        )
        .select_related("character", "scenario")
        .first()
    )
    if ref is None:
        raise McqError("The pair has no current reference to reconstruct the item from.")
    params = mcq_assembly.AssemblyParams(
        **{
            k: item.assembly_params[k]
            for k in ("measure", "similarity_max", "relevance_min")
            if k in item.assembly_params
        }
    )
    used = {o.source_reference_id for o in item.options.all() if not o.is_correct}
    others = (
        ReferenceResponse.objects.filter(scenario=item.scenario, superseded_at__isnull=True)
        .exclude(character=item.character)
        .select_related("character")
        .order_by("character__key")
    )
    candidates = [
        mcq_assembly.DistractorCandidate(r.pk, r.character.key, r.final_decision) for r in others
    ]
    scored = mcq_assembly.score_candidates(
        key=ref.final_decision,
        scenario=scenario_text(ref.scenario),
        candidates=candidates,
        params=params,
    )
    valid = [s for s in scored if s.rejected is None]
    # Prefer candidates the current version did not use: a reconstruction is a new item.
    fresh = [s for s in valid if s.reference_id not in used]
    chosen = mcq_assembly.fallback_selection(fresh)
    chosen += mcq_assembly.fallback_selection(
        [s for s in valid if s.reference_id in used],
        mcq_assembly.DISTRACTORS_PER_ITEM - len(chosen),
    )
    if len(chosen) < mcq_assembly.DISTRACTORS_PER_ITEM:
        raise McqError(
            f"Only {counted(len(chosen), 'valid distractor')} "
            f"{agree(len(chosen), 'exists', 'exist')} for this pair; add a generated "
            "distractor instead of reconstructing."
        )
    record_version(item, origin=McqItemVersion.Origin.IMPORT)
    base_seed = item.assembly_params.get("base_seed", ASSEMBLY_BASE_SEED)
    seed = mcq_assembly.derive_seed(base_seed, item.question_id, item.version + 1)
    chosen_ids = {s.reference_id for s in chosen}
    # The key keeps its position, so the run's keys stay balanced; an incomplete item's
    # key goes where its run has the fewest.
    if item.status == McqItem.Status.NEEDS_COMPLETION:
        counts = batch_key_counts(_item_batch(item))
        key_label = mcq_assembly.balanced_key_label(counts, seed, OPTION_LABELS)
    else:
        counts, key_label = None, item.correct_answer
    McqItem.objects.filter(pk=item.pk).update(
        seed=seed,
        assembly_params={
            **params.as_dict(),
            "selector": "fallback",
            "selector_note": "reconstructed in item review",
            "base_seed": base_seed,
            "run": item.assembly_params.get("run"),
            "valid_distractors": len(valid),
            "candidates": [
                {**s.record(), "selected": s.reference_id in chosen_ids} for s in scored
            ],
            "key_balance": {"keys_before": counts, "key_label": key_label},
        },
    )
    sources = [
        mcq_assembly.OptionSource(ref.final_decision, ref.character.key, ref.pk, is_key=True)
    ] + [mcq_assembly.OptionSource(s.text, s.character_key, s.reference_id) for s in chosen]
    ordered = mcq_assembly.order_options(sources, seed, key_label=key_label)
    return revise_item(
        item,
        user=user,
        origin=McqItemVersion.Origin.REVIEW,
        note=note or "reconstructed",
        options=[o.as_dict() for o in ordered],
        correct_answer=next(o.label for o in ordered if o.is_correct),
        reference=ref,
    )
