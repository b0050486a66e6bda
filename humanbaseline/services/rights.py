"""Participants' rights (issue #36): withdrawing from a study, and the admin's erasure of
a participant's personal data (or of all their data).

Withdrawal keeps the participation, marked with its time; from then on its answers enter
no report, statistic or export (``Participation.objects.counted()``). A finished report
that counted them is set aside and a new one, with the same seed and resample counts, is
queued at once: no figure on a page or in a download keeps a withdrawn person's answers.

Erasure replaces the username with a placeholder that names nobody and empties every copy
of the personal fields: the pool ids (in the participation and in its decision-history
rows), the account's name and email, its sessions, API token, login-attempt records
(username, IP address, browser) and the Django admin log's mentions. The scope ``all``
also deletes the answers, with their history rows. A ``ParticipantErasure`` row records
who did it, when and how much, and holds no personal field itself.
"""

import secrets

from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.contrib.sessions.models import Session
from django.db import connection, transaction
from django.db.models import Q, Value
from django.db.models.functions import Replace
from django.utils import timezone
from rest_framework.authtoken.models import Token

from core.tasks import enqueue_on_commit

from ..models import (
    ERASED_PREFIX,
    BaselineError,
    BaselineReport,
    ItemResponse,
    ParticipantErasure,
    Participation,
)

S = Participation.Status
# The personal fields of a participation: who the person is in the recruitment pool.
POOL_FIELDS = ("pool_id", "pool_study_id", "pool_session_id")


def _locked(participation: Participation) -> Participation:
    return Participation.objects.select_for_update().get(pk=participation.pk)


@transaction.atomic
def participant_withdraw(*, participation: Participation) -> Participation:
    """Withdraw from the study. Done twice, the second time changes nothing (a double
    submit is harmless). A participant who declined consent has nothing to withdraw."""
    p = _locked(participation)
    if p.status == S.WITHDRAWN:
        return p
    if p.status == S.DECLINED:
        raise BaselineError("You declined to take part, so there is nothing to withdraw.")
    return _withdraw(p)


def _withdraw(p: Participation) -> Participation:
    """Mark the locked participation withdrawn; set aside the reports that counted it."""
    was_counted = p.status == S.FINALIZED
    p.status = S.WITHDRAWN
    p.withdrawn_at = timezone.now()
    p.save(update_fields=["status", "withdrawn_at"])
    if was_counted:
        _set_reports_aside(p)
    return p


def _set_reports_aside(p: Participation) -> None:
    """Every report of the study that is finished, queued or computing may hold the
    withdrawn answers: it is set aside (its figures dropped, the reason kept) and, when
    two counted participants remain, the latest is asked for again with the same
    settings."""
    reports = BaselineReport.objects.select_for_update().filter(study_id=p.study_id)
    latest = reports.exclude(status=BaselineReport.Status.FAILED).order_by("-created_at", "-pk")
    latest = latest.first()
    when = timezone.localtime(p.withdrawn_at).strftime("%Y-%m-%d %H:%M")
    reports.exclude(status=BaselineReport.Status.FAILED).update(
        status=BaselineReport.Status.FAILED,
        results={},
        error=(
            f"Set aside: a participant counted in it withdrew on {when}. "
            "A new report without their answers was asked for."
        ),
        finished_at=timezone.now(),
    )
    remaining = Participation.objects.counted().filter(study_id=p.study_id).count()
    if latest is None or remaining < 2:
        return
    report = BaselineReport.objects.create(
        study_id=p.study_id,
        seed=latest.seed,
        n_boot=latest.n_boot,
        n_permutations=latest.n_permutations,
        requested_by_id=latest.requested_by_id,
    )
    enqueue_on_commit(
        "humanbaseline.compute_report", report.pk, what=f"Baseline report {report.pk}"
    )


def _history_writes_allowed() -> None:
    """The decision history refuses UPDATE and DELETE; erasure is its one exception, for
    this transaction only (humanbaseline migration 0008)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL heartbench.erasure = 'on'")


def _sessions_of(user) -> list[str]:
    keys = []
    for session in Session.objects.all().iterator():
        if session.get_decoded().get("_auth_user_id") == str(user.pk):
            keys.append(session.session_key)
    return keys


def _login_records_erase(username: str) -> int:
    """django-axes' records of logins (username, IP address, browser)."""
    from axes.models import AccessAttempt, AccessFailureLog, AccessLog

    return sum(
        model.objects.filter(username=username).delete()[0]
        for model in (AccessAttempt, AccessFailureLog, AccessLog)
    )


def _admin_log_rename(person, participation_ids, old: str, new: str) -> int:
    """The Django admin log's entries about the account or its participations name the
    person in their text: the username is replaced by the placeholder there (and only
    there: a short username may be part of other words elsewhere)."""
    about = Q(content_type=ContentType.objects.get_for_model(person), object_id=str(person.pk))
    about |= Q(
        content_type=ContentType.objects.get_for_model(Participation),
        object_id__in=[str(pk) for pk in participation_ids],
    )
    return LogEntry.objects.filter(about).update(
        object_repr=Replace("object_repr", Value(old), Value(new)),
        change_message=Replace("change_message", Value(old), Value(new)),
    )


@transaction.atomic
def participant_erase(*, participation: Participation, scope: str, user) -> ParticipantErasure:
    """Erase the personal data of the person behind ``participation`` (every study they
    are in), or with ``scope="all"`` all their data. Final: nothing keeps the old values."""
    if scope not in ParticipantErasure.Scope.values:
        raise BaselineError("Choose what to erase: personal data only, or all their data.")
    p = _locked(participation)
    person = p.user
    if person.username.startswith(ERASED_PREFIX) and scope == ParticipantErasure.Scope.PERSONAL:
        raise BaselineError("This participant's personal data has already been erased.")
    _history_writes_allowed()
    old_username = person.get_username()
    placeholder = f"{ERASED_PREFIX}{secrets.token_hex(6)}"
    theirs = Participation.objects.select_for_update().filter(user=person)
    ids = list(theirs.values_list("pk", flat=True))
    counts = {"participations": len(ids)}
    history = Participation.history.model.objects.filter(id__in=ids)
    blank = dict.fromkeys(POOL_FIELDS, "")
    counts["history rows cleared"] = history.update(**blank)
    theirs.update(**blank)

    User = get_user_model()
    User.objects.filter(pk=person.pk).update(
        username=placeholder, first_name="", last_name="", email="", is_active=False
    )
    person = User.objects.get(pk=person.pk)
    person.set_unusable_password()
    person.save(update_fields=["password"])
    person.groups.clear()
    counts["sessions"] = Session.objects.filter(session_key__in=_sessions_of(person)).delete()[0]
    counts["api tokens"] = Token.objects.filter(user=person).delete()[0]
    counts["login records"] = _login_records_erase(old_username)
    counts["admin log entries"] = _admin_log_rename(person, ids, old_username, placeholder)

    if scope == ParticipantErasure.Scope.ALL:
        for other in theirs.exclude(status__in=[S.WITHDRAWN, S.DECLINED]):
            _withdraw(other)
        response_ids = list(
            ItemResponse.objects.filter(participation_id__in=ids).values_list("pk", flat=True)
        )
        counts["answers deleted"] = len(response_ids)
        Participation.objects.filter(pk__in=ids).delete()
        # Deleting writes a last history row of each; those go with the rest.
        Participation.history.model.objects.filter(id__in=ids).delete()
        ItemResponse.history.model.objects.filter(id__in=response_ids).delete()
    return ParticipantErasure.objects.create(
        study_id=p.study_id, scope=scope, placeholder=placeholder, counts=counts, erased_by=user
    )
