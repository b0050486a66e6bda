"""Mail is sent by a worker and every attempt is recorded: a failure reaches the team page
with a way to send again; password reset works by mail through the same path."""

import re
import socket
import time

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse

from core.roles import Role
from core.team import services
from core.team.models import Invitation, MailAttempt
from tests.factories import UserFactory

LINK = re.compile(r"https?://\S+/team/join/\S+/")
RESET_LINK = re.compile(r"https?://testserver(/accounts/reset/\S+/)")


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.django_db
def test_a_mail_server_that_refuses_is_recorded_and_shown_to_the_admin_who_resends(
    admin, admin_client, eager, settings, django_capture_on_commit_callbacks
):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", closed_port(), 5
    with django_capture_on_commit_callbacks(execute=True):
        invitation = services.invitation_create(
            email="kai@lab.example",
            roles=[Role.SCENARIO_REVIEWER.value],
            invited_by=admin,
            site_url="http://testserver/",
        )
    attempt = MailAttempt.objects.get(invitation=invitation)
    assert attempt.status == "failed" and "Connection refused" in attempt.error
    page = admin_client.get(reverse("team:team")).content.decode()
    assert 'data-testid="failed-mail"' in page and "kai@lab.example" in page
    assert reverse("team:invitation-resend", args=[invitation.pk]) in page

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(reverse("team:invitation-resend", args=[invitation.pk]))
    assert len(mail.outbox) == 1 and LINK.search(mail.outbox[0].body)
    assert list(invitation.mails.order_by("pk").values_list("status", flat=True)) == [
        "failed",
        "sent",
    ]
    page = admin_client.get(reverse("team:team")).content.decode()
    assert 'data-testid="failed-mail"' not in page


@pytest.mark.django_db
def test_a_redelivered_send_task_sends_nothing_twice(admin, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):  # queued, never sent here
        invitation = services.invitation_create(
            email="ash@lab.example",
            roles=[Role.ARBITRATOR.value],
            invited_by=admin,
            site_url="http://testserver/",
        )
    attempt = invitation.mails.get()
    services.mail_send(attempt_id=attempt.pk, body="the link")
    services.mail_send(attempt_id=attempt.pk, body="the link")
    assert len(mail.outbox) == 1
    attempt.refresh_from_db()
    assert attempt.status == "sent" and attempt.finished_at is not None


@pytest.mark.django_db
def test_password_reset_mails_a_single_use_link_through_the_recorded_path(
    eager, django_capture_on_commit_callbacks
):
    UserFactory(username="forgetful", email="forgetful@lab.example", roles=[Role.ARBITRATOR])
    UserFactory(username="gone", email="gone@lab.example", is_active=False)
    client = Client()
    login_page = client.get(reverse("login")).content.decode()
    assert reverse("password_reset") in login_page
    for address in ("forgetful@lab.example", "gone@lab.example"):
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(reverse("password_reset"), {"email": address})
        assert response.status_code == 302
    # Nothing is sent for a deactivated account.
    assert [m.to for m in mail.outbox] == [["forgetful@lab.example"]]
    attempt = MailAttempt.objects.get()
    assert (attempt.kind, attempt.status, attempt.user.username) == (
        "password_reset",
        "sent",
        "forgetful",
    )
    path = RESET_LINK.search(mail.outbox[0].body).group(1)
    form = client.get(path, follow=True)
    new = "quince-harbour-mosaic-77"
    done = client.post(form.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    assert done.status_code == 302
    assert get_user_model().objects.get(username="forgetful").check_password(new)
    again = client.get(path, follow=True)
    assert b"does not work any more" in again.content


@pytest.mark.worker
def test_a_real_worker_sends_the_invitation_and_records_it(
    celery_worker_factory, tmp_path, settings
):
    """The worker is a separate process: it writes the mail to files (Django's file
    backend) where the test reads it, and records the attempt in the shared database."""
    from django.contrib.auth.models import Group

    for role in Role:
        Group.objects.get_or_create(name=role.value)
    admin = UserFactory(username="worker-admin", roles=[Role.ADMIN])
    celery_worker_factory(
        extra_env={
            "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
            "EMAIL_FILE_PATH": str(tmp_path),
        },
        name="team-mail",
    )
    settings.SITE_URL = "https://bench.example.org"
    invitation = services.invitation_create(
        email="remote@lab.example", roles=[Role.MEMORY_REVIEWER.value], invited_by=admin
    )
    attempt = invitation.mails.get()
    deadline = time.monotonic() + 60
    while attempt.status == "queued" and time.monotonic() < deadline:
        time.sleep(0.2)
        attempt.refresh_from_db()
    assert attempt.status == "sent", attempt.error
    written = "".join(p.read_text() for p in tmp_path.iterdir())
    assert "To: remote@lab.example" in written
    link = LINK.search(written).group(0)
    assert link.startswith("https://bench.example.org/team/join/")
    assert services.invitation_from_link(link.rstrip("/").rsplit("/", 1)[1]) == invitation
    assert Invitation.objects.get().state == "pending"
