"""The demo's team: one pending invitation on the team page, so a new user sees how an
invitation waits, can be resent (the mail prints in the demo's terminal) or revoked."""

from django.conf import settings

from core.roles import Role

from .models import Invitation
from .services import invitation_create

DEMO_INVITATION_EMAIL = "new.annotator@example.org"


def seed_team_demo(*, admin) -> Invitation:
    existing = Invitation.objects.filter(email=DEMO_INVITATION_EMAIL).first()
    if existing is not None:
        return existing
    return invitation_create(
        email=DEMO_INVITATION_EMAIL,
        roles=[Role.PRIMARY_ANNOTATOR.value],
        invited_by=admin,
        # The demo serves on this machine; resending from the team page uses the
        # address the browser shows.
        site_url=settings.SITE_URL or "http://127.0.0.1:8000/",
    )
