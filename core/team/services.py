"""Every change to the team: invitations, accounts, roles, deactivation, and mail.

Each service is keyword-only and atomic and raises ``TeamError`` with a message an admin
(or the invited person) can act on. Mail is queued with ``core.tasks.enqueue_on_commit``
and sent by the ``team.send_mail`` task, which records how the attempt ended.
"""

import logging
import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.models import Group
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.mail import EmailMessage
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from core.roles import Role, user_roles
from core.tasks import enqueue_on_commit

from .models import Invitation, MailAttempt

logger = logging.getLogger(__name__)

LINK_SALT = "core.team.invitation"
SEND_MAIL_TASK = "team.send_mail"

# Study participants join through their study's own link and pool (humanbaseline), never
# through a team invitation.
INVITABLE_ROLES = tuple(r for r in Role if r is not Role.BASELINE_PARTICIPANT)


class TeamError(ValidationError):
    """A team change that cannot be made as asked; the message says why and what to do."""


# --- the invitation link ----------------------------------------------------------------


def invitation_link(invitation: Invitation) -> str:
    """The absolute link the invited person follows (it changes when the mail is resent)."""
    value = signing.dumps({"i": invitation.pk, "n": invitation.nonce}, salt=LINK_SALT)
    return invitation.site_url.rstrip("/") + reverse("team:join", args=[value])


def invitation_from_link(value: str) -> Invitation | None:
    """The invitation a link names, or None when the link was never issued by this site or
    was replaced by a newer one."""
    try:
        data = signing.loads(value, salt=LINK_SALT)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict):
        return None
    invitation = Invitation.objects.filter(pk=data.get("i")).first()
    if invitation is None or not constant_time_compare(invitation.nonce, str(data.get("n"))):
        return None
    return invitation


def invitation_refusal(invitation: Invitation | None) -> str | None:
    """Why a link no longer works, in words for the person who followed it; None if it does."""
    if invitation is None:
        return (
            "This invitation link is not valid. It may have been replaced by a newer one: "
            "use the link in the latest invitation mail, or ask the admin to send it again."
        )
    state = invitation.state
    if state == "accepted":
        return (
            "This invitation link has already been used to create an account. Log in with "
            "that account, or reset its password from the login page."
        )
    if state == "revoked":
        return "This invitation was withdrawn by the admin. Ask them for a new one."
    if state == "expired":
        return (
            f"This invitation link expired on {invitation.expires_at:%Y-%m-%d %H:%M} UTC. "
            "Ask the admin to send it again."
        )
    return None


# --- invitations ------------------------------------------------------------------------


def _clean_roles(roles) -> list[str]:
    values = [str(r) for r in roles]
    allowed = {r.value for r in INVITABLE_ROLES}
    unknown = sorted(set(values) - allowed)
    if unknown:
        raise TeamError(f"These roles cannot be given by invitation: {', '.join(unknown)}.")
    if not values:
        raise TeamError("Choose at least one role for the person you invite.")
    return [r.value for r in Role if r.value in values]


def _link_base(site_url: str | None) -> str:
    base = settings.SITE_URL or site_url or ""
    if not base:
        raise TeamError(
            "The invitation link needs the site's address: set SITE_URL "
            "(e.g. https://bench.example.org) in the environment."
        )
    return base


@transaction.atomic
def invitation_create(
    *, email: str, roles: list[str], invited_by, site_url: str | None = None
) -> Invitation:
    """Invite ``email`` with ``roles`` and queue the invitation mail. ``site_url`` (the
    request's own address) is used when the SITE_URL setting is empty."""
    email = get_user_model().objects.normalize_email(email.strip())
    roles = _clean_roles(roles)
    existing = get_user_model().objects.filter(email__iexact=email).first()
    if existing is not None:
        raise TeamError(
            f"{email} already has an account ({existing.get_username()}). Change their roles "
            "on their page instead."
        )
    now = timezone.now()
    open_one = (
        Invitation.objects.select_for_update()
        .filter(email__iexact=email, accepted_at__isnull=True, revoked_at__isnull=True)
        .first()
    )
    if open_one is not None:
        if open_one.expires_at > now:
            raise TeamError(
                f"{email} was already invited on {open_one.created_at:%Y-%m-%d}. Send that "
                "invitation again or revoke it."
            )
        # An expired invitation gives way to the new one.
        open_one.revoked_at, open_one.revoked_by = now, invited_by
        open_one.save(update_fields=["revoked_at", "revoked_by"])
    try:
        with transaction.atomic():
            invitation = Invitation.objects.create(
                email=email,
                roles=roles,
                nonce=secrets.token_urlsafe(32),
                invited_by=invited_by,
                sent_at=now,
                expires_at=now + timedelta(days=settings.HEARTBENCH_INVITATION_DAYS),
                site_url=_link_base(site_url),
            )
    except IntegrityError:  # another admin invited the same address a moment before
        raise TeamError(f"{email} was invited a moment ago; see the team page.") from None
    _queue_invitation_mail(invitation)
    return invitation


def _open_invitation(invitation_id: int, *, action: str) -> Invitation:
    invitation = Invitation.objects.select_for_update().filter(pk=invitation_id).first()
    if invitation is None:
        raise TeamError("There is no such invitation.")
    if invitation.accepted_at:
        raise TeamError(
            f"The invitation of {invitation.email} was accepted; there is nothing to {action}."
        )
    if invitation.revoked_at:
        raise TeamError(f"The invitation of {invitation.email} was revoked; invite them again.")
    return invitation


@transaction.atomic
def invitation_resend(*, invitation_id: int, by, site_url: str | None = None) -> Invitation:
    """Send a new link (the earlier one stops working) valid for the full period again."""
    invitation = _open_invitation(invitation_id, action="resend")
    now = timezone.now()
    invitation.nonce = secrets.token_urlsafe(32)
    invitation.sent_at = now
    invitation.expires_at = now + timedelta(days=settings.HEARTBENCH_INVITATION_DAYS)
    invitation.site_url = settings.SITE_URL or invitation.site_url or _link_base(site_url)
    invitation.save(update_fields=["nonce", "sent_at", "expires_at", "site_url"])
    _queue_invitation_mail(invitation)
    return invitation


@transaction.atomic
def invitation_revoke(*, invitation_id: int, by) -> Invitation:
    invitation = _open_invitation(invitation_id, action="revoke")
    invitation.revoked_at, invitation.revoked_by = timezone.now(), by
    invitation.save(update_fields=["revoked_at", "revoked_by"])
    return invitation


@transaction.atomic
def invitation_accept(*, invitation_id: int, nonce: str, username: str, password: str):
    """Create the invited account with its roles, once. The row lock makes a second use of
    the link (two tabs, a double click) find it accepted and be refused."""
    invitation = Invitation.objects.select_for_update().filter(pk=invitation_id).first()
    if invitation is None or not constant_time_compare(invitation.nonce, nonce):
        raise TeamError(invitation_refusal(None))
    refusal = invitation_refusal(invitation)
    if refusal:
        raise TeamError(refusal)
    users = get_user_model()
    username = username.strip()
    try:
        users.username_validator(username)
    except ValidationError as error:
        raise TeamError(error.messages) from None
    if users.objects.filter(username__iexact=username).exists():
        raise TeamError(f"The username {username} is taken; choose another.")
    user = users(username=username, email=invitation.email)
    password_validation.validate_password(password, user=user)
    user.set_password(password)
    user.save()
    user.groups.set(Group.objects.filter(name__in=invitation.roles))
    invitation.accepted_at, invitation.accepted_user = timezone.now(), user
    invitation.save(update_fields=["accepted_at", "accepted_user"])
    return user


# --- people -----------------------------------------------------------------------------


def _person(person_id: int):
    person = get_user_model().objects.select_for_update().filter(pk=person_id).first()
    if person is None:
        raise TeamError("There is no such person.")
    return person


@transaction.atomic
def person_roles_set(*, person_id: int, roles: list[str], by):
    """Give the person exactly ``roles`` (groups that are not roles stay as they are)."""
    person = _person(person_id)
    values = {str(r) for r in roles}
    unknown = values - {r.value for r in Role}
    if unknown:
        raise TeamError(f"Unknown roles: {', '.join(sorted(unknown))}.")
    if person.pk == by.pk and Role.ADMIN.value not in values and not person.is_superuser:
        raise TeamError("You cannot take away your own admin role; ask another admin.")
    role_names = {r.value for r in Role}
    kept = [g for g in person.groups.all() if g.name not in role_names]
    for role in values:
        Group.objects.get_or_create(name=role)
    person.groups.set(kept + list(Group.objects.filter(name__in=values)))
    person.__dict__.pop("_heartbench_roles", None)
    return person


@transaction.atomic
def person_deactivate(*, person_id: int, by):
    """Refuse the person's logins from now on (their sessions end at their next request;
    their API token stops working); every record of theirs keeps their name."""
    person = _person(person_id)
    if person.pk == by.pk:
        raise TeamError("You cannot deactivate your own account; ask another admin.")
    if not person.is_active:
        raise TeamError(f"{person.get_username()} is already deactivated.")
    person.is_active = False
    person.save(update_fields=["is_active"])
    return person


@transaction.atomic
def person_reactivate(*, person_id: int, by):
    person = _person(person_id)
    if person.is_active:
        raise TeamError(f"{person.get_username()} is already active.")
    person.is_active = True
    person.save(update_fields=["is_active"])
    return person


def is_admin(person) -> bool:
    return Role.ADMIN in user_roles(person)


# --- mail -------------------------------------------------------------------------------


def _queue_invitation_mail(invitation: Invitation) -> MailAttempt:
    roles = [Role(r).label for r in invitation.roles]
    body = render_to_string(
        "team/mail/invitation.txt",
        {
            "invitation": invitation,
            "link": invitation_link(invitation),
            "roles": roles,
            "inviter": invitation.invited_by.get_username(),
        },
    )
    return mail_queue(
        to=invitation.email,
        subject="You are invited to heartbench",
        body=body,
        kind=MailAttempt.Kind.INVITATION,
        invitation=invitation,
    )


def mail_queue(*, to: str, subject: str, body: str, kind: str, invitation=None, user=None):
    """Record the attempt and queue its sending once the caller's transaction commits.

    The body travels in the task's message and is not stored: it holds a working link."""
    attempt = MailAttempt.objects.create(
        to=to, subject=subject, kind=kind, invitation=invitation, user=user
    )

    def broker_down(message: str) -> None:
        MailAttempt.objects.filter(pk=attempt.pk, status=MailAttempt.Status.QUEUED).update(
            status=MailAttempt.Status.FAILED, error=message, finished_at=timezone.now()
        )

    enqueue_on_commit(
        SEND_MAIL_TASK,
        attempt.pk,
        body,
        what=f"The {attempt.get_kind_display().lower()} mail to {to}",
        on_unavailable=broker_down,
    )
    return attempt


def mail_send(*, attempt_id: int, body: str) -> MailAttempt | None:
    """Send one queued mail and record how it went. A redelivered message for an attempt
    that already ended sends nothing (a worker lost between the send and the record may
    still send twice: a duplicate mail, never a lost one)."""
    attempt = MailAttempt.objects.filter(pk=attempt_id).first()
    if attempt is None or attempt.status != MailAttempt.Status.QUEUED:
        return attempt
    try:
        EmailMessage(attempt.subject, body, settings.DEFAULT_FROM_EMAIL, [attempt.to]).send()
    except Exception as error:  # any failure of the mail server is the admin's to see
        logger.warning("mail %s to %s failed: %s", attempt.pk, attempt.to, error)
        status, message = MailAttempt.Status.FAILED, f"{type(error).__name__}: {error}"
    else:
        status, message = MailAttempt.Status.SENT, ""
    MailAttempt.objects.filter(pk=attempt.pk, status=MailAttempt.Status.QUEUED).update(
        status=status, error=message[:2000], finished_at=timezone.now()
    )
    attempt.refresh_from_db()
    return attempt
