"""Invitations and mail attempts can be looked at in Django's admin, never changed there,
and an invitation's nonce is not shown."""

import pytest
from django.test import Client
from django.urls import reverse

from core.roles import Role
from core.team import services
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_invitations_and_mail_are_read_only_in_the_admin(django_capture_on_commit_callbacks):
    staff = UserFactory(
        username="staff-admin", roles=[Role.ADMIN], is_staff=True, is_superuser=True
    )
    with django_capture_on_commit_callbacks(execute=False):
        invitation = services.invitation_create(
            email="ines@lab.example",
            roles=[Role.ARBITRATOR.value],
            invited_by=staff,
            site_url="http://testserver/",
        )
    client = Client()
    client.force_login(staff)
    for name in ("invitation", "mailattempt"):
        listing = client.get(reverse(f"admin:team_{name}_changelist"))
        assert listing.status_code == 200 and b"ines@lab.example" in listing.content
        assert client.get(reverse(f"admin:team_{name}_add")).status_code == 403
    page = client.get(reverse("admin:team_invitation_change", args=[invitation.pk]))
    assert page.status_code == 200 and invitation.nonce.encode() not in page.content
