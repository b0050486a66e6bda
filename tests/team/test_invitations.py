"""Invitations: an admin invites an address with roles; the mailed link lets the person
set a password once, before it expires, and lands them on their home page with the roles."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from core.roles import Role, user_roles
from core.team import services
from core.team.models import Invitation, MailAttempt
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
LINK = re.compile(r"https?://\S+/team/join/\S+/")
GOOD_PASSWORD = "plum-orchard-lantern-42"


def invite(admin, capture, email="new.expert@lab.example", roles=(Role.AUDIT_EXPERT,)):
    with capture(execute=True):
        return services.invitation_create(
            email=email,
            roles=[r.value for r in roles],
            invited_by=admin,
            site_url="http://testserver/",
        )


def mailed_link(index=-1) -> str:
    return LINK.search(mail.outbox[index].body).group(0)


def join(client, link, username="new-expert", password=GOOD_PASSWORD):
    path = link.split("://", 1)[1].split("/", 1)[1]
    return client.post(
        "/" + path, {"username": username, "password1": password, "password2": password}
    )


def test_the_invitation_mail_carries_an_absolute_link_from_site_url_and_is_recorded_sent(
    admin, eager, settings, django_capture_on_commit_callbacks
):
    settings.SITE_URL = "https://bench.example.org"
    invitation = invite(admin, django_capture_on_commit_callbacks)
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["new.expert@lab.example"]
    assert mailed_link().startswith("https://bench.example.org/team/join/")
    assert "Audit expert" in message.body and "lab-admin" in message.body
    attempt = MailAttempt.objects.get(invitation=invitation)
    assert (attempt.status, attempt.kind, attempt.error) == ("sent", "invitation", "")
    # The link works without the table: a stored row alone does not hold it.
    assert invitation.nonce not in mailed_link()


def test_following_the_link_creates_the_account_with_its_roles_and_signs_in_once(
    admin, eager, client, django_capture_on_commit_callbacks
):
    settings_roles = (Role.AUDIT_EXPERT, Role.MEMORY_REVIEWER)
    invitation = invite(admin, django_capture_on_commit_callbacks, roles=settings_roles)
    response = client.get(mailed_link().split("testserver", 1)[-1])
    assert response.status_code == 200
    assert b"Audit expert" in response.content
    response = join(client, mailed_link())
    assert response.status_code == 302 and response["Location"] == reverse("home")
    user = get_user_model().objects.get(username="new-expert")
    assert user.email == "new.expert@lab.example" and user.check_password(GOOD_PASSWORD)
    assert user_roles(user) == {Role.AUDIT_EXPERT, Role.MEMORY_REVIEWER}
    assert client.get(reverse("home")).wsgi_request.user == user  # signed in
    invitation.refresh_from_db()
    assert invitation.accepted_user == user and invitation.state == "accepted"

    again = join(client.__class__(), mailed_link(), username="someone-else")
    assert again.status_code == 410
    assert b"already been used" in again.content
    assert not get_user_model().objects.filter(username="someone-else").exists()


def test_an_expired_or_revoked_link_is_refused_with_a_clear_message(
    admin, eager, client, django_capture_on_commit_callbacks
):
    invitation = invite(admin, django_capture_on_commit_callbacks)
    Invitation.objects.filter(pk=invitation.pk).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    response = join(client, mailed_link())
    assert response.status_code == 410 and b"expired on" in response.content
    assert not get_user_model().objects.filter(username="new-expert").exists()

    other = invite(admin, django_capture_on_commit_callbacks, email="second@lab.example")
    services.invitation_revoke(invitation_id=other.pk, by=admin)
    response = client.get(mailed_link().split("testserver", 1)[-1])
    assert response.status_code == 410 and b"withdrawn by the admin" in response.content


def test_resending_replaces_the_link_and_renews_the_expiry(
    admin, eager, client, settings, django_capture_on_commit_callbacks
):
    settings.HEARTBENCH_INVITATION_DAYS = 2
    invitation = invite(admin, django_capture_on_commit_callbacks)
    first = mailed_link()
    Invitation.objects.filter(pk=invitation.pk).update(
        expires_at=timezone.now() - timedelta(days=1)
    )
    with django_capture_on_commit_callbacks(execute=True):
        services.invitation_resend(invitation_id=invitation.pk, by=admin)
    second = mailed_link()
    assert second != first and len(mail.outbox) == 2
    invitation.refresh_from_db()
    assert invitation.expires_at > timezone.now() + timedelta(days=1, hours=23)
    refused = join(client, first)
    assert refused.status_code == 404 and b"replaced by a newer one" in refused.content
    assert join(client, second).status_code == 302


def test_a_weak_password_or_a_taken_username_is_refused_and_the_link_still_works(
    admin, eager, client, django_capture_on_commit_callbacks
):
    invite(admin, django_capture_on_commit_callbacks)
    weak = join(client, mailed_link(), password="password")
    assert weak.status_code == 200 and b"too common" in weak.content
    taken = join(client, mailed_link(), username="LAB-ADMIN")
    assert taken.status_code == 200 and b"is taken" in taken.content
    spaced = join(client, mailed_link(), username="new expert")
    assert spaced.status_code == 200 and b"valid username" in spaced.content
    assert get_user_model().objects.count() == 1
    assert join(client, mailed_link()).status_code == 302


def test_an_address_with_an_account_or_an_open_invitation_is_not_invited_again(
    admin, eager, django_capture_on_commit_callbacks
):
    UserFactory(username="kim", email="kim@lab.example")
    with pytest.raises(services.TeamError, match="already has an account"):
        invite(admin, django_capture_on_commit_callbacks, email="Kim@lab.example")
    invite(admin, django_capture_on_commit_callbacks, email="lee@lab.example")
    with pytest.raises(services.TeamError, match="already invited"):
        invite(admin, django_capture_on_commit_callbacks, email="LEE@lab.example")
    with pytest.raises(services.TeamError, match="cannot be given by invitation"):
        invite(
            admin,
            django_capture_on_commit_callbacks,
            email="p@lab.example",
            roles=(Role.BASELINE_PARTICIPANT,),
        )


def test_the_admin_invites_from_the_team_page_with_the_request_host_as_the_link(
    admin_client, eager, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            reverse("team:invite"),
            {"email": "rae@lab.example", "roles": [Role.ARBITRATOR.value]},
        )
    assert response.status_code == 302
    assert mailed_link().startswith("http://testserver/team/join/")
    page = admin_client.get(reverse("team:team")).content.decode()
    assert "rae@lab.example" in page and "Arbitrator" in page
    invitation = Invitation.objects.get(email="rae@lab.example")
    admin_client.post(reverse("team:invitation-revoke", args=[invitation.pk]))
    invitation.refresh_from_db()
    assert invitation.state == "revoked"
    assert "rae@lab.example" not in admin_client.get(reverse("team:team")).content.decode()
