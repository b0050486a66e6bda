"""A participant's way through a study: enrolment, consent, briefing, practice, the
seeded item order, answers and time on task, finalize."""

import math
import random
import re
from datetime import timedelta

import numpy as np
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from adjudication.mcq.models import OPTION_LABELS
from core.plurals import agree, counted
from core.roles import Role, user_roles
from core.text_rules import check_text

from ..models import (
    PASSWORD_MAX,
    AnswerEvent,
    BaselineError,
    BaselineNotFound,
    BaselineStudy,
    ItemResponse,
    Participation,
    PracticeAnswer,
    StudyItem,
    TimeReport,
    WorkSession,
)
from .pools import pool_record

# A pause longer than this ends a work session; the next action starts a new one.
SESSION_IDLE_LIMIT = timedelta(minutes=30)
# One report of time on an item counts at most this much (a tab left open overnight
# must not be paid).
MAX_SECONDS_PER_REPORT = 30 * 60
# A report may also claim the last few seconds before the previous one was received (the
# page measures from when it sent that report, the server counts from when it arrived);
# wall-clock time older than this that no report claimed is not counted later.
REPORT_LATENCY_SLACK = timedelta(seconds=5)
# The page names each time report; anything else is not a name it sent.
REPORT_ID = re.compile(r"[A-Za-z0-9_.:-]{1,64}")


def _new_order_seed() -> int:
    return random.SystemRandom().randrange(2**62)


@transaction.atomic
def participant_enrol(
    *, study: BaselineStudy, user, via: str, pool: dict | None = None
) -> Participation:
    """Enrol ``user``; ``pool`` is what the invitation link carried
    (``pools.pool_from_query``), stored unless the participation has a pool id already."""
    if study.status != BaselineStudy.Status.OPEN:
        raise BaselineError(f"The study {study.name!r} is closed to new participants.")
    other = sorted(r.label for r in user_roles(user) if r is not Role.BASELINE_PARTICIPANT)
    if other:
        # App. J: participants took no part in construction and see none of its materials.
        raise BaselineError(
            f"The account {user.get_username()!r} holds other roles ({', '.join(other)}); "
            "a participant must not be involved in building the benchmark. Sign out and "
            "create a separate participant account."
        )
    user.groups.add(Group.objects.get(name=Role.BASELINE_PARTICIPANT.value))
    participation, _ = Participation.objects.get_or_create(
        study=study, user=user, defaults={"enrolled_via": via, "order_seed": _new_order_seed()}
    )
    if participation.status != Participation.Status.WITHDRAWN:
        # A withdrawn participant's pool id is not taken again (it may have been erased).
        pool_record(participation, pool)
    return participation


def _new_account(username: str, password: str):
    User = get_user_model()
    check_text(username or "", label="Username", limit=150, error=BaselineError)
    check_text(password or "", label="Password", limit=PASSWORD_MAX, error=BaselineError)
    if not username.strip():
        raise BaselineError("Choose a username.")
    if User.objects.filter(username=username).exists():
        raise BaselineError(f"The username {username!r} is taken; choose another.")
    user = User(username=username)
    try:
        validate_password(password, user)
    except ValidationError as error:
        raise BaselineError(*error.messages) from None
    user.set_password(password)
    user.save()
    return user


@transaction.atomic
def participant_account_create(*, study: BaselineStudy, username: str, password: str):
    """An admin creates the participant's account and enrols it."""
    user = _new_account(username, password)
    return participant_enrol(study=study, user=user, via="admin")


@transaction.atomic
def invitation_signup(
    *, token, username: str, password: str, pool: dict | None = None
) -> Participation:
    study = BaselineStudy.objects.filter(invitation_token=token).first()
    if study is None:
        raise BaselineError("This invitation link is not valid.")
    user = _new_account(username, password)
    return participant_enrol(study=study, user=user, via="invitation", pool=pool)


def _locked(participation: Participation) -> Participation:
    return Participation.objects.select_for_update().get(pk=participation.pk)


@transaction.atomic
def consent_decide(*, participation: Participation, agree: bool, version: str) -> Participation:
    p = _locked(participation)
    if p.status != Participation.Status.INVITED:
        raise BaselineError("Consent has already been recorded for this study.")
    if version != p.study.consent_version:
        raise BaselineError(
            "The consent text changed while the page was open; read the current version."
        )
    p.consent_version = version
    p.consent_decided_at = timezone.now()
    p.status = Participation.Status.CONSENTED if agree else Participation.Status.DECLINED
    p.save(update_fields=["consent_version", "consent_decided_at", "status"])
    return p


WITHDRAWN_MESSAGE = "You have withdrawn from this study; nothing more is recorded."


def _require_consent(p: Participation):
    if p.status == Participation.Status.WITHDRAWN:
        raise BaselineError(WITHDRAWN_MESSAGE)
    if p.status in (Participation.Status.INVITED, Participation.Status.DECLINED):
        raise BaselineError("Informed consent is required before this step.")


@transaction.atomic
def briefing_complete(*, participation: Participation) -> Participation:
    p = _locked(participation)
    _require_consent(p)
    if p.briefing_done_at is None:
        p.briefing_done_at = timezone.now()
        p.save(update_fields=["briefing_done_at"])
    return p


@transaction.atomic
def practice_answer(*, participation: Participation, position: int, choice: str):
    p = _locked(participation)
    _require_consent(p)
    if choice not in OPTION_LABELS:
        raise BaselineError("Choose one of the options A, B, C or D.")
    item = StudyItem.objects.filter(study=p.study, is_practice=True, position=position).first()
    if item is None:
        raise BaselineNotFound(f"There is no practice item {position} in this study.")
    answer, _ = PracticeAnswer.objects.update_or_create(
        participation=p, study_item=item, defaults={"choice": choice}
    )
    return answer


@transaction.atomic
def baseline_session_start(*, participation: Participation) -> Participation:
    """Fix the participant's item order (seeded permutation) and begin the study, once
    every practice item has an answer (the practice cannot be skipped)."""
    p = _locked(participation)
    _require_consent(p)
    if p.status in (Participation.Status.STARTED, Participation.Status.FINALIZED):
        return p
    if p.briefing_done_at is None:
        raise BaselineError("Read the briefing first.")
    unanswered = list(
        StudyItem.objects.filter(study=p.study, is_practice=True)
        .exclude(pk__in=PracticeAnswer.objects.filter(participation=p).values("study_item"))
        .order_by("position")
        .values_list("position", flat=True)
    )
    if unanswered:
        listed = ", ".join(str(n) for n in unanswered)
        raise BaselineError(
            f"Answer the practice {agree(len(unanswered), 'item', 'items')} first "
            f"(practice {agree(len(unanswered), 'item', 'items')} {listed}): the study "
            "starts once every practice item has an answer."
        )
    items = list(StudyItem.objects.filter(study=p.study, is_practice=False).order_by("position"))
    order = participant_order(order_seed=p.order_seed, n_items=len(items))
    ItemResponse.objects.bulk_create(
        ItemResponse(participation=p, study_item=items[index], position=n)
        for n, index in enumerate(order, start=1)
    )
    now = timezone.now()
    p.practice_done_at = p.practice_done_at or now
    p.started_at = now
    p.status = Participation.Status.STARTED
    p.save(update_fields=["practice_done_at", "started_at", "status"])
    return p


def participant_order(*, order_seed: int, n_items: int) -> list[int]:
    """Indices into the study items by position, in the order this participant sees them."""
    return [int(i) for i in np.random.default_rng(order_seed).permutation(n_items)]


def _require_started(p: Participation):
    if p.status == Participation.Status.WITHDRAWN:
        raise BaselineError(WITHDRAWN_MESSAGE)
    if p.status == Participation.Status.FINALIZED:
        raise BaselineError("You have finalized your answers; they can no longer change.")
    if p.status != Participation.Status.STARTED:
        raise BaselineError("The study has not started yet.")


def _reported_seconds(seconds) -> float:
    """The seconds a report names; blank is none. Anything but a finite number of
    seconds, zero or more, is refused."""
    if seconds is None or (isinstance(seconds, str) and not seconds.strip()):
        return 0.0
    try:
        value = float(seconds)
    except (TypeError, ValueError):
        raise BaselineError(
            f"The time on the item must be a number of seconds, not {str(seconds)[:40]!r}."
        ) from None
    if not math.isfinite(value) or value < 0:
        raise BaselineError(
            f"The time on the item must be a finite number of seconds, zero or more "
            f"(received {str(seconds)[:40]!r})."
        )
    return value


def _add_time(p: Participation, response: ItemResponse, amount: float, report_id: str = ""):
    """Add a report of time on ``response``'s item, once per report name: the same
    report sent again adds nothing. A report without a (valid) name is added as it is.

    One report counts at most MAX_SECONDS_PER_REPORT, and at most the wall-clock time
    since the participation's time was last counted (``time_counted_until``, first the
    start of the study): however the reports are sent, the sum of counted time never
    exceeds the time that passed since the participant started. Caller must hold the
    participation's row lock and pass the locked row as ``p``."""
    report_id = (report_id or "").strip()
    if (
        REPORT_ID.fullmatch(report_id)
        and response.time_reports.filter(report_id=report_id).exists()
    ):
        return False
    now = timezone.now()
    since = p.time_counted_until or p.started_at or now
    available = max((now - since).total_seconds(), 0.0)
    counted = min(amount, MAX_SECONDS_PER_REPORT, available)
    if REPORT_ID.fullmatch(report_id):
        TimeReport.objects.create(response=response, report_id=report_id, seconds=counted)
    if counted:
        ItemResponse.objects.filter(pk=response.pk).update(seconds=F("seconds") + counted)
    if amount:
        # Like the seconds themselves, recorded by update(): the time reports are the
        # event table, and a report is no decision for the decision history.
        p.time_counted_until = max(since + timedelta(seconds=counted), now - REPORT_LATENCY_SLACK)
        Participation.objects.filter(pk=p.pk).update(time_counted_until=p.time_counted_until)
    return True


@transaction.atomic
def answer_save(
    *, participation: Participation, position: int, choice: str, seconds=0, report_id=""
):
    """Save the participant's answer; ``seconds`` is time on the item the page reports
    with it, counted once per ``report_id`` (see :func:`time_record`)."""
    p = _locked(participation)
    _require_started(p)
    if choice not in OPTION_LABELS:
        raise BaselineError("Choose one of the options A, B, C or D.")
    amount = _reported_seconds(seconds)
    response = (
        ItemResponse.objects.select_for_update().filter(participation=p, position=position).first()
    )
    if response is None:
        raise BaselineNotFound(f"There is no item {position} in your study.")
    if response.choice and response.choice != choice:
        response.revisions += 1
    if response.choice != choice:
        AnswerEvent.objects.create(response=response, choice=choice)
    response.choice = choice
    response.answered_at = timezone.now()
    response.save(update_fields=["choice", "answered_at", "revisions"])
    _add_time(p, response, amount, report_id)
    _touch(p)
    response.refresh_from_db(fields=["seconds"])
    return response


@transaction.atomic
def time_record(*, participation: Participation, position: int, seconds, report_id="") -> bool:
    """Add time the page reported for one item (sent once when the participant leaves
    it). Idempotent per ``report_id``: a report received again changes nothing and
    returns False. The participation's row lock orders two copies arriving together.
    Bounded by the wall-clock time that passed (see :func:`_add_time`); a value that is
    not a finite number of seconds, zero or more, or a report before the start or after
    finalizing is refused (BaselineError), an item position that is not the
    participant's is BaselineNotFound."""
    p = _locked(participation)
    amount = _reported_seconds(seconds)
    response = ItemResponse.objects.filter(participation=p, position=position).first()
    if response is None and p.status in (
        Participation.Status.STARTED,
        Participation.Status.FINALIZED,
    ):
        raise BaselineNotFound(f"There is no item {position} in your study.")
    if p.status == Participation.Status.FINALIZED:
        raise BaselineError("You have finalized your answers; time is no longer counted.")
    _require_started(p)
    added = _add_time(p, response, amount, report_id)
    _touch(p)
    return added


@transaction.atomic
def activity_touch(*, participation: Participation, now=None) -> WorkSession:
    """Extend the current work session, or start one after an idle gap.

    Takes the participation's row lock first, so that every write of a participant's
    time goes in one lock order: participation, then response, then session."""
    return _touch(_locked(participation), now)


def _touch(p: Participation, now=None) -> WorkSession:
    """:func:`activity_touch` for a service that holds the participation's row lock
    already (``p`` is the locked row): no second lock, no savepoint."""
    now = now or timezone.now()
    session = WorkSession.objects.filter(participation=p).order_by("-started_at").first()
    if session is not None and now - session.last_activity_at <= SESSION_IDLE_LIMIT:
        session.last_activity_at = max(now, session.last_activity_at)
        session.save(update_fields=["last_activity_at"])
        return session
    return WorkSession.objects.create(participation=p, started_at=now, last_activity_at=now)


@transaction.atomic
def baseline_finalize(*, participation: Participation) -> Participation:
    p = _locked(participation)
    _require_started(p)
    missing = list(
        ItemResponse.objects.filter(participation=p, choice="")
        .order_by("position")
        .values_list("position", flat=True)
    )
    if missing:
        shown = ", ".join(str(m) for m in missing[:20]) + (" …" if len(missing) > 20 else "")
        raise BaselineError(
            f"{counted(len(missing), 'item')} {agree(len(missing), 'has', 'have')} "
            f"no answer yet: {shown}."
        )
    p.status = Participation.Status.FINALIZED
    p.finalized_at = timezone.now()
    p.save(update_fields=["status", "finalized_at"])
    _touch(p)
    return p
