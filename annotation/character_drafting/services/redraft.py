"""Launching a redraft of a profile (seed 000 App. B.3): guided by the open change
requests of the character's review case and an optional note from the admin. Once the
reviews are in, it changes one field a request names, or every field they name, and
nothing else; before any review it may rewrite the whole draft. The rules are in
``redraft_rules``; the draft runs like any other (``execution``) and ends in the
character's next profile version."""

from django.db import transaction

from annotation.character_drafting.models import CharacterDraft, DraftingJob
from annotation.character_drafting.services.common import (
    DraftingError,
    DraftStatus,
    max_attempts_setting,
    require_admin,
)
from annotation.character_drafting.services.jobs import (
    drafting_prompt_current,
    enqueue_drafts,
    provider_for,
)
from annotation.character_drafting.services.redraft_rules import (
    FIELD_LABELS,
    open_case,
    planned_for_version,
    redraft_blocker,
)
from annotation.corpus.models import Character
from annotation.profile_review.models import ChangeRequest, ProfileReviewCase
from core.text_rules import NAME, NOTE, check_text


def redraft_guidance(character: Character, field: str = "") -> list[dict]:
    """The open change requests of the character's review case (submitted reviews
    only), on ``field`` when one is given, as the redraft prompt quotes them."""
    case = open_case(character)
    if case is None:
        return []
    requests = ChangeRequest.objects.filter(
        review__case=case,
        review__submitted_at__isnull=False,
        status=ChangeRequest.Status.OPEN,
    ).order_by("pk")
    if field:
        requests = requests.filter(field=field)
    return [
        {
            "id": r.pk,
            "field": r.field,
            "field_label": FIELD_LABELS.get(r.field, r.field),
            "passage": r.passage,
            "concern": r.concern,
            "suggested_correction": r.suggested_correction,
        }
        for r in requests
    ]


def _reviewed_field(character: Character, field: str) -> str:
    """The field of a redraft of a reviewed profile (App. B.3: revisions are field-level
    and answer the change requests): ``field`` when an open request names it, the one
    named field when ``field`` is "" and the requests name one, else "" (every named
    field). Refused when no open request names a field, or not ``field``."""
    named = list(dict.fromkeys(r["field"] for r in redraft_guidance(character)))
    if not named:
        raise DraftingError(
            f"{character.key} has no open change request. Once the reviews are in, App. B.3 "
            "revises a profile only field by field where a reviewer asked for a change: "
            "a redraft changes only the fields the open change requests name. The senior "
            "expert can edit a field directly."
        )
    if field and field not in named:
        raise DraftingError(
            f"No open change request names {FIELD_LABELS[field]}; a redraft of a reviewed "
            "profile changes only the fields the requests name: "
            + ", ".join(FIELD_LABELS[f] for f in named)
            + "."
        )
    if not field and len(named) == 1:
        return named[0]
    return field


def _scope_label(field: str, guidance: list[dict]) -> str:
    if field:
        return FIELD_LABELS[field]
    if guidance:
        named = dict.fromkeys(g["field"] for g in guidance)
        return "the requested fields: " + ", ".join(FIELD_LABELS[f] for f in named)
    return "whole profile"


@transaction.atomic
def drafting_redraft_create(
    *,
    user,
    character_key: str,
    field: str = "",
    admin_note: str = "",
    model: str = "",
    on_unavailable=None,
) -> DraftingJob:
    """A one-draft job redrafting the character's latest version, queued at once.
    Refused (nothing written) for a frozen latest version, while the reviewers are
    mid-review, on a profile the reviewers accepted unanimously, while another redraft of
    the character waits, for a fixed vector's scores, when there is nothing to address,
    and, once the reviews are in, for a field no open change request names."""
    check_text(admin_note, label="Note to the model", limit=NOTE, error=DraftingError)
    check_text(model, label="Model", limit=NAME, error=DraftingError)
    require_admin(user, "redraft profiles")
    character = Character.objects.select_for_update().filter(key=character_key).first()
    if character is None:
        raise DraftingError(f"There is no character {character_key}.")
    if field and field not in FIELD_LABELS:
        raise DraftingError(f"{field!r} is not a profile field.")
    blocker = redraft_blocker(character)
    if blocker:
        raise DraftingError(blocker)
    if CharacterDraft.objects.filter(
        char_key=character_key,
        job__kind=DraftingJob.Kind.REDRAFT,
        status__in=(DraftStatus.PENDING, DraftStatus.RUNNING),
    ).exists():
        raise DraftingError(
            f"A redraft of {character_key} is already waiting or running; let it finish first."
        )
    latest = character.versions.order_by("-number").first()
    planned = planned_for_version(latest)
    if field == "big_five" and planned.vector_fixed:
        raise DraftingError(
            f"{character_key}'s Big Five vector is fixed by its design (App. B.2: the neutral "
            "reference is all 0.50); redraft its prose fields instead."
        )
    case = open_case(character)
    if case is not None and case.status == ProfileReviewCase.Status.ADJUDICATING:
        field = _reviewed_field(character, field)
    guidance = redraft_guidance(character, field)
    admin_note = admin_note.strip()
    if not guidance and not admin_note:
        where = f" on {FIELD_LABELS[field]}" if field else ""
        raise DraftingError(
            f"{character_key} has no open change request{where} to address: write a note "
            "saying what the redraft should change."
        )
    config = provider_for(model)
    job = DraftingJob.objects.create(
        kind=DraftingJob.Kind.REDRAFT,
        design=DraftingJob.Design.REDRAFT,
        provider=config.kind.value,
        model=config.model,
        prompt=drafting_prompt_current(),
        max_attempts=max_attempts_setting(),
        note=f"Redraft of {latest} ({_scope_label(field, guidance)})",
        created_by=user,
        is_demo=latest.is_demo_standin,
    )
    draft = CharacterDraft.objects.create(
        job=job,
        char_key=character_key,
        planned=planned.as_dict(),
        redraft_of=latest,
        redraft_field=field,
        guidance=guidance,
        admin_note=admin_note,
    )
    enqueue_drafts(job, [draft.pk], on_unavailable)
    return job
