"""Writes of the reference-label audit (seed 000 §2.4 last paragraph, App. D.4).

Every transition is one keyword-only atomic function with a status guard that raises a
``LabelAuditError`` a person can act on, and appends a ``LabelAuditEvent``. Item edits
and key changes go through ``adjudication.mcq.versions.revise_item`` (a new version,
re-screened in full), removals through ``remove_item``.
"""

import random
import secrets
from collections import defaultdict

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from adjudication.mcq.models import OPTION_LABELS, McqItem, McqItemVersion
from adjudication.mcq.versions import ItemEditRejected, record_version, remove_item, revise_item
from audit.reference_labels.models import (
    LabelAdjudication,
    LabelAudit,
    LabelAuditError,
    LabelAuditEvent,
    LabelAuditExpert,
    LabelAuditItem,
    LabelSelection,
)
from core.conflicts import (
    ConflictOfInterest,
    conflict_of_interest_problems,
    team_member_conflict,
)
from core.life_stages import LIFE_STAGE_KEYS
from core.protocol import AUDIT_EXPERTS, AUDIT_ITEMS_PER_STRATUM
from core.roles import Role, has_any_role
from core.text_rules import NOTE, check_text

ORIGIN = McqItemVersion.Origin.LABEL_AUDIT
# Largest seed a person may type (PostgreSQL bigint holds it; random.Random takes any int).
MAX_SEED = 2**63 - 1
NOTE_MAX = NOTE
# The audit's own note (its column holds 300 characters).
AUDIT_NOTE_MAX = 300


def _event(*, actor, action: str, audit, audit_item=None, **details) -> None:
    LabelAuditEvent.objects.create(
        actor=actor, action=action, audit=audit, audit_item=audit_item, details=details
    )


def new_seed() -> int:
    """A fresh sampling seed for a new audit (recorded with it, so the draw reproduces)."""
    return secrets.randbelow(2**31)


# --- The stratified sample (pure) ---------------------------------------------------------


def stratum_key(character_key: str, stage: str) -> str:
    return f"{character_key}|{stage}"


def draw_stratified_sample(frame: dict[str, list[str]], *, k: int, seed: int) -> list[str]:
    """Up to ``k`` question ids from each stratum of ``frame`` ({stratum: ids}), drawn
    without replacement by one ``random.Random(seed)`` walking the strata in sorted
    order over each stratum's sorted ids: the same frame, k and seed give the same sample
    on any machine. A stratum with fewer than ``k`` items gives all it has."""
    rng = random.Random(seed)
    drawn = []
    for stratum in sorted(frame):
        ids = sorted(frame[stratum])
        drawn.extend(rng.sample(ids, min(k, len(ids))))
    return drawn


def sampling_frame() -> tuple[dict[str, list[str]], dict[str, int], list[str]]:
    """The final set by character × life-stage bin: (frame, question id → item pk,
    characters). Every character with a final item gets all eight bins, empty or not."""
    rows = McqItem.objects.filter(status=McqItem.Status.FINAL).values_list(
        "pk", "question_id", "character__key", "stage"
    )
    frame: dict[str, list[str]] = defaultdict(list)
    pks = {}
    characters = set()
    for pk, question_id, character_key, stage in rows:
        frame[stratum_key(character_key, stage)].append(question_id)
        pks[question_id] = pk
        characters.add(character_key)
    for character_key in characters:
        for stage in LIFE_STAGE_KEYS:
            frame.setdefault(stratum_key(character_key, stage), [])
    return {s: sorted(ids) for s, ids in frame.items()}, pks, sorted(characters)


# --- Creating an audit ---------------------------------------------------------------------


def _check_team(experts: list, adjudicator) -> None:
    problems = []
    if len(experts) != AUDIT_EXPERTS or len({u.pk for u in experts}) != AUDIT_EXPERTS:
        problems.append(
            f"Choose exactly {AUDIT_EXPERTS} different audit experts "
            f"(App. D.4); {len({u.pk for u in experts})} chosen."
        )
    for user in experts:
        if not has_any_role(user, [Role.AUDIT_EXPERT]):
            problems.append(f"{user.get_username()} does not hold the audit expert role.")
    if adjudicator is None:
        problems.append("Choose the audit adjudicator.")
    else:
        if not has_any_role(adjudicator, [Role.AUDIT_ADJUDICATOR]):
            problems.append(
                f"{adjudicator.get_username()} does not hold the audit adjudicator role."
            )
        if adjudicator.pk in {u.pk for u in experts}:
            problems.append(
                f"{adjudicator.get_username()} cannot be both an expert and the adjudicator: "
                "the fourth expert adjudicates the other three's disagreements."
            )
    if problems:
        raise LabelAuditError(problems)


class LabelAuditConflict(LabelAuditError, ConflictOfInterest):
    """A member of the audit team with a construction record, refused at the act."""


def _refuse_conflicted(user) -> None:
    """Checked at every act of the audit team, at the moment of the act (issue #24): a
    record made after the audit was created refuses the act too."""
    message = team_member_conflict(user)
    if message:
        raise LabelAuditConflict(message)


@transaction.atomic
def label_audit_create(
    *,
    created_by,
    experts: list,
    adjudicator,
    items_per_stratum: int = AUDIT_ITEMS_PER_STRATUM,
    seed: int | None = None,
    note: str = "",
) -> LabelAudit:
    """Check the team (three experts, one adjudicator, nobody with a construction record),
    draw the stratified sample and store it with its seed and frame."""
    if not has_any_role(created_by, [Role.ADMIN]):
        raise LabelAuditError("Only an admin can create a reference-label audit.")
    check_text(note or "", label="Note", limit=AUDIT_NOTE_MAX, error=LabelAuditError)
    experts = list(experts)
    _check_team(experts, adjudicator)
    conflicts = conflict_of_interest_problems([*experts, adjudicator])
    if conflicts:
        raise LabelAuditError(
            conflicts
            + [
                "The audit team must not have taken part in construction (App. D.4); "
                "choose someone else for each excluded person."
            ]
        )
    if items_per_stratum < 1:
        raise LabelAuditError("Items per stratum must be at least 1.")
    seed = new_seed() if seed is None else int(seed)
    if not 0 <= seed <= MAX_SEED:
        raise LabelAuditError(f"The seed must be between 0 and {MAX_SEED}.")
    frame, pks, characters = sampling_frame()
    if not pks:
        raise LabelAuditError("The final set has no items to audit; import or finalize MCQs first.")
    drawn = draw_stratified_sample(frame, k=items_per_stratum, seed=seed)
    short = [
        {
            "character": stratum.split("|")[0],
            "stage": stratum.split("|")[1],
            "available": len(ids),
            "wanted": items_per_stratum,
        }
        for stratum, ids in sorted(frame.items())
        if len(ids) < items_per_stratum
    ]
    audit = LabelAudit.objects.create(
        note=note,
        seed=seed,
        items_per_stratum=items_per_stratum,
        adjudicator=adjudicator,
        created_by=created_by,
        sample_report={
            "frame": frame,
            "short": short,
            "strata": len(frame),
            "characters": characters,
            "final_items": len(pks),
            "drawn": drawn,
        },
    )
    LabelAuditExpert.objects.bulk_create(
        LabelAuditExpert(audit=audit, expert=user, position=n)
        for n, user in enumerate(experts, start=1)
    )
    items = McqItem.objects.select_related("character").in_bulk([pks[q] for q in drawn])
    rows = []
    for position, question_id in enumerate(drawn, start=1):
        item = items[pks[question_id]]
        version = record_version(item, origin=McqItemVersion.Origin.IMPORT)
        rows.append(
            LabelAuditItem(
                audit=audit,
                item=item,
                item_version=version,
                position=position,
                character_key=item.character.key,
                stage=item.stage,
            )
        )
    LabelAuditItem.objects.bulk_create(rows)
    _event(
        actor=created_by,
        action="audit_created",
        audit=audit,
        seed=seed,
        items_per_stratum=items_per_stratum,
        sampled=len(rows),
        short_strata=len(short),
        experts=[u.get_username() for u in experts],
        adjudicator=adjudicator.get_username(),
    )
    return audit


def label_audit_reproduce(*, audit: LabelAudit) -> bool:
    """Draw the sample again from the stored frame, k and seed: True when it is the same
    sample, in the same order, as the one stored."""
    frame = audit.sample_report.get("frame", {})
    again = draw_stratified_sample(frame, k=audit.items_per_stratum, seed=audit.seed)
    stored = list(
        LabelAuditItem.objects.filter(audit=audit)
        .order_by("position")
        .values_list("item__question_id", flat=True)
    )
    return again == stored


# --- Blind selection -----------------------------------------------------------------------


def _expert_row(audit_item_id: int, expert, *, lock: bool) -> LabelAuditItem:
    """The item, when ``expert`` is on its audit. Whatever writes an expert's selection
    locks the item first, so an autosave and a submit of the same item arriving together
    take turns: were the autosave to insert the selection unlocked, its foreign key check
    would wait for the submit's lock while the submit's insert waited for it (a deadlock)."""
    qs = LabelAuditItem.objects.select_related("audit", "item_version")
    if lock:
        qs = qs.select_for_update(of=("self",))
    row = qs.filter(pk=audit_item_id).first()
    if row is None or not LabelAuditExpert.objects.filter(audit=row.audit, expert=expert).exists():
        raise LabelAuditError("This item is not in an audit you are an expert on.")
    return row


def _clean_choice(choice: str, *, required: bool) -> str:
    choice = (choice or "").strip().upper()
    if not choice:
        if required:
            raise LabelAuditError("Select one of the options A, B, C or D.")
        return ""
    if choice not in OPTION_LABELS:
        raise LabelAuditError(f"{choice!r} is not an option; choose A, B, C or D.")
    return choice


def _clean_note(note: str, label: str = "Note") -> str:
    """The one text rule (issue #24): over the limit or with a control character, the
    note is refused (never cut or stripped), drafts included."""
    return check_text(note or "", label=label, limit=NOTE_MAX, error=LabelAuditError).strip()


@transaction.atomic
def label_selection_draft_save(
    *, audit_item_id: int, expert, choice: str = "", note: str = ""
) -> LabelSelection:
    """Autosave the expert's choice and note before submitting (nothing is lost on a
    closed tab). A submitted selection is not changed."""
    row = _expert_row(audit_item_id, expert, lock=True)
    _refuse_conflicted(expert)
    selection, _ = LabelSelection.objects.select_for_update().get_or_create(
        audit_item=row, expert=expert
    )
    if selection.submitted_at is not None:
        raise LabelAuditError("You have submitted this item; your selection is final.")
    selection.choice = _clean_choice(choice, required=False)
    selection.note = _clean_note(note)
    selection.save(update_fields=["choice", "note", "updated_at"])
    return selection


@transaction.atomic
def label_selection_submit(
    *, audit_item_id: int, expert, choice: str, note: str = ""
) -> LabelSelection:
    """The expert's blind selection, final once submitted; submitting the same choice
    again changes nothing. The third submission compares the selections with the key."""
    row = _expert_row(audit_item_id, expert, lock=True)
    _refuse_conflicted(expert)
    choice = _clean_choice(choice, required=True)
    note = _clean_note(note)
    selection, _ = LabelSelection.objects.get_or_create(audit_item=row, expert=expert)
    if selection.submitted_at is not None:
        if selection.choice == choice:
            return selection
        raise LabelAuditError(
            f"You submitted option {selection.choice} for this item; a selection is final."
        )
    selection.choice = choice
    selection.note = note
    selection.submitted_at = timezone.now()
    selection.save(update_fields=["choice", "note", "submitted_at", "updated_at"])
    _event(actor=expert, action="selection_submitted", audit=row.audit, audit_item=row)
    submitted = LabelSelection.objects.filter(audit_item=row, submitted_at__isnull=False).count()
    if submitted == AUDIT_EXPERTS and row.status == LabelAuditItem.Status.SELECTING:
        label_item_compare(audit_item=row)
    return selection


def label_item_compare(*, audit_item: LabelAuditItem) -> LabelAuditItem:
    """Compare the three selections with the audited version's key: 3/3 → approved,
    anything else → the adjudicator. Caller holds the item's row lock."""
    key = audit_item.item_version.correct_answer
    choices = list(
        LabelSelection.objects.filter(
            audit_item=audit_item, submitted_at__isnull=False
        ).values_list("choice", flat=True)
    )
    on_key = sum(1 for c in choices if c == key)
    audit_item.key_at_audit = key
    audit_item.n_on_key = on_key
    audit_item.compared_at = timezone.now()
    if on_key == AUDIT_EXPERTS:
        audit_item.status = LabelAuditItem.Status.APPROVED
        audit_item.outcome = LabelAuditItem.Outcome.APPROVED
    else:
        audit_item.status = LabelAuditItem.Status.ADJUDICATING
        audit_item.outcome = ""
    audit_item.save(update_fields=["key_at_audit", "n_on_key", "compared_at", "status", "outcome"])
    _event(
        actor=None,
        action="selections_compared",
        audit=audit_item.audit,
        audit_item=audit_item,
        experts_on_key=on_key,
    )
    _maybe_complete(audit_item.audit)
    return audit_item


def _maybe_complete(audit: LabelAudit) -> None:
    open_items = LabelAuditItem.objects.filter(
        audit=audit,
        status__in=[LabelAuditItem.Status.SELECTING, LabelAuditItem.Status.ADJUDICATING],
    ).exists()
    if not open_items and audit.status != LabelAudit.Status.COMPLETE:
        audit.status = LabelAudit.Status.COMPLETE
        audit.completed_at = timezone.now()
        audit.save(update_fields=["status", "completed_at"])
        _event(actor=None, action="audit_complete", audit=audit)


# --- Adjudication --------------------------------------------------------------------------

Decision = LabelAdjudication.Decision
OUTCOME_OF = {
    Decision.USABLE_AS_IS: LabelAuditItem.Outcome.USABLE_AS_IS,
    Decision.WORDING_EDIT: LabelAuditItem.Outcome.EDITED,
    Decision.KEY_CHANGE: LabelAuditItem.Outcome.KEY_CHANGED,
    Decision.REMOVAL: LabelAuditItem.Outcome.REMOVED,
}


@transaction.atomic
def label_item_adjudicate(
    *,
    audit_item_id: int,
    adjudicator,
    decision: str,
    note: str = "",
    options: list[dict] | None = None,
    new_key: str = "",
) -> LabelAdjudication:
    """The adjudicator's decision on an item without complete agreement (App. D.4).

    ``options`` (wording edit, optionally with a key change): the four option texts as
    ``[{"label", "content"}]``; ``new_key``: the option that becomes the key."""
    row = (
        LabelAuditItem.objects.select_for_update(of=("self",))
        .select_related("audit", "item_version", "item")
        .filter(pk=audit_item_id)
        .first()
    )
    if row is None:
        raise LabelAuditError("No such audited item.")
    if row.audit.adjudicator_id != adjudicator.pk:
        raise LabelAuditError(
            f"Only this audit's adjudicator ({row.audit.adjudicator.get_username()}) decides "
            "its items."
        )
    _refuse_conflicted(adjudicator)
    if row.status != LabelAuditItem.Status.ADJUDICATING:
        raise LabelAuditError(
            f"This item is not awaiting adjudication (it is {row.get_status_display().lower()})."
        )
    if decision not in Decision.values:
        raise LabelAuditError("Choose a decision: usable as-is, wording edit, key change, removal.")
    note = _clean_note(note)
    if decision != Decision.USABLE_AS_IS and not note:
        raise LabelAuditError("Say why in the note: an edit, a key change or a removal needs one.")
    item = row.item
    if item.version != row.item_version.number:
        raise LabelAuditError(
            f"{item.question_id} is at version {item.version} now, not the version "
            f"{row.item_version.number} the experts audited; it changed elsewhere. "
            "Review it in item review instead."
        )
    key = row.item_version.correct_answer
    result_version = None
    new_key = (new_key or "").strip().upper()
    try:
        if decision == Decision.WORDING_EDIT:
            if not options:
                raise LabelAuditError("A wording edit needs the revised option texts.")
            result_version = revise_item(
                item, user=adjudicator, origin=ORIGIN, note=note, options=options
            )
        elif decision == Decision.KEY_CHANGE:
            if new_key not in OPTION_LABELS:
                raise LabelAuditError("Choose the option that becomes the key (A, B, C or D).")
            if new_key == key:
                raise LabelAuditError(
                    f"Option {key} is already the key; choose another option or 'usable as-is'."
                )
            result_version = revise_item(
                item,
                user=adjudicator,
                origin=ORIGIN,
                note=note,
                options=options or None,
                correct_answer=new_key,
            )
        elif decision == Decision.REMOVAL:
            remove_item(item, user=adjudicator, origin=ORIGIN, note=note)
    except ItemEditRejected as error:
        raise LabelAuditError(str(error)) from None
    adjudication = LabelAdjudication.objects.create(
        audit_item=row,
        adjudicator=adjudicator,
        decision=decision,
        note=note,
        new_key=new_key if decision == Decision.KEY_CHANGE else "",
        result_version=result_version,
    )
    row.status = LabelAuditItem.Status.RESOLVED
    row.outcome = OUTCOME_OF[decision]
    row.save(update_fields=["status", "outcome"])
    _event(
        actor=adjudicator,
        action="item_adjudicated",
        audit=row.audit,
        audit_item=row,
        decision=decision,
        result_version=result_version.number if result_version else None,
    )
    _maybe_complete(row.audit)
    return adjudication


def team_users(*, expert_ids, adjudicator_id):
    """The users behind a create form's ids, experts in the order given."""
    users = get_user_model().objects.in_bulk([*expert_ids, adjudicator_id])
    return [users[i] for i in expert_ids if i in users], users.get(adjudicator_id)
