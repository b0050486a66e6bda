"""Writes of candidate screening: screen, clean, accept (issue 22, "Blinding integrity").

Screening runs when comparison pairs are created
(``annotation.comparison.services.comparison_pairs_create`` calls
:func:`screen_pair_candidates` for every new pair; so must any other path that creates
a pair) and again when the admin asks. Every function is keyword-only and atomic.
"""

from django.apps import apps
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from annotation.candidate_screening.leaks import screen_texts
from annotation.candidate_screening.models import SCREENED_FIELDS, CandidateCleaning, LeakFlag
from annotation.candidate_screening.selectors import judged_message, judged_pairs_of
from annotation.generation.models import Candidate
from core.roles import Role, has_any_role
from core.text_rules import NOTE, TEXT, check_text


class ScreeningError(ValidationError):
    """A screening action that cannot be carried out as asked; the message says why."""


def candidate_texts(candidate) -> dict[str, str]:
    return {f: getattr(candidate, f) or "" for f in SCREENED_FIELDS}


def _screen_one(candidate, user) -> LeakFlag | None:
    """Open a flag for ``candidate`` if its texts leak, unless one is open already or
    the same texts were accepted before."""
    if LeakFlag.objects.filter(candidate=candidate, status=LeakFlag.Status.OPEN).exists():
        return None
    texts = candidate_texts(candidate)
    findings = screen_texts(texts)
    if not findings:
        return None
    if LeakFlag.objects.filter(
        candidate=candidate, status=LeakFlag.Status.ACCEPTED, screened_texts=texts
    ).exists():
        return None
    return LeakFlag.objects.create(
        candidate=candidate,
        findings=[f.as_dict() for f in findings],
        screened_texts=texts,
        screened_by=user,
    )


@transaction.atomic
def screen_candidates(*, candidates, user=None) -> list[LeakFlag]:
    """Screen each candidate; returns the flags opened now."""
    flags = []
    for candidate in candidates:
        flag = _screen_one(candidate, user)
        if flag is not None:
            flags.append(flag)
    return flags


def screen_pair_candidates(pair, *, user=None) -> list[LeakFlag]:
    """Screen the three candidates of a comparison pair (anything with a ``candidates``
    manager). Every path that creates a pair calls this: a pair whose candidate has an
    open flag waits (:func:`annotation.candidate_screening.selectors.open_flags_of`)."""
    return screen_candidates(candidates=list(pair.candidates.order_by("pk")), user=user)


def _admin(user, what):
    if not has_any_role(user, [Role.ADMIN]):
        raise ScreeningError(f"Only an admin {what}.")


def _open_flag(flag_id) -> LeakFlag:
    flag = LeakFlag.objects.select_for_update().filter(pk=flag_id).first()
    if flag is None:
        raise ScreeningError(f"There is no leak flag {flag_id}.")
    if flag.status != LeakFlag.Status.OPEN:
        raise ScreeningError(
            f"Leak flag {flag.pk} is already {flag.get_status_display().lower()}; nothing to do."
        )
    return flag


@transaction.atomic
def flag_clean(*, flag_id: int, user, fields: dict, reason: str) -> CandidateCleaning:
    """Edit the flagged candidate's texts in place, record the edit (before, after, who,
    when, why), close the flag as cleaned and screen the cleaned text again (a leak
    left in it opens a new flag, so the pair keeps waiting).

    Refused once any annotator has submitted a judgment on a pair holding the candidate
    (a re-screening can flag a pair already being judged): their judgment is about the
    text they saw, so the admin accepts the flag with a reason instead."""
    check_text(reason, label="Why the text was edited", limit=NOTE, error=ScreeningError)
    for name, text in (fields or {}).items():
        check_text(
            text, label=name.replace("_", " ").capitalize(), limit=TEXT, error=ScreeningError
        )
    _admin(user, "cleans a candidate")
    if not (reason or "").strip():
        raise ScreeningError("Say why the text was edited (the reason is kept with the edit).")
    flag = _open_flag(flag_id)
    candidate = Candidate.objects.select_for_update().get(pk=flag.candidate_id)
    # The pairs' rows are what a judgment submit locks: no judgment lands between this
    # check and the edit. (The comparison layer is above this one: its model by label.)
    pair = apps.get_model("annotation", "ComparisonPair")
    held = pair.objects.select_for_update(of=("self",)).filter(candidates=candidate.pk)
    list(held.values_list("pk", flat=True))
    judged = judged_pairs_of(candidate.pk)
    if judged:
        raise ScreeningError(judged_message(judged))
    before = candidate_texts(candidate)
    after = {f: (fields.get(f, before[f]) or "").strip() for f in SCREENED_FIELDS}
    if not after["final_decision"]:
        raise ScreeningError("A candidate needs a final decision; it cannot be emptied.")
    if after == before:
        raise ScreeningError(
            "The texts are unchanged: edit them, or accept the flag if it is a false positive."
        )
    for f, value in after.items():
        setattr(candidate, f, value)
    candidate.save(update_fields=list(SCREENED_FIELDS))
    cleaning = CandidateCleaning.objects.create(
        flag=flag,
        candidate=candidate,
        before=before,
        after=after,
        edited_by=user,
        reason=reason.strip(),
    )
    flag.status = LeakFlag.Status.CLEANED
    flag.resolved_by = user
    flag.resolved_at = timezone.now()
    flag.reason = reason.strip()
    flag.save(update_fields=["status", "resolved_by", "resolved_at", "reason"])
    _screen_one(candidate, user)
    return cleaning


@transaction.atomic
def flag_accept(*, flag_id: int, user, reason: str) -> LeakFlag:
    """Close the flag as a false positive; the text stays as it is."""
    check_text(
        reason, label="Why these findings are false positives", limit=NOTE, error=ScreeningError
    )
    _admin(user, "accepts a leak flag")
    if not (reason or "").strip():
        raise ScreeningError("Say why the findings are false positives.")
    flag = _open_flag(flag_id)
    flag.status = LeakFlag.Status.ACCEPTED
    flag.resolved_by = user
    flag.resolved_at = timezone.now()
    flag.reason = reason.strip()
    flag.save(update_fields=["status", "resolved_by", "resolved_at", "reason"])
    return flag
