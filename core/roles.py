"""The platform's roles (DESIGN.md) as Django groups, and the checks views use.

A person may hold several roles. Superusers hold the admin role. Each view names the
roles allowed to reach it; everyone else gets 403.
"""

from enum import StrEnum
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from rest_framework.permissions import BasePermission


class Role(StrEnum):
    PRIMARY_ANNOTATOR = "primary_annotator"
    ARBITRATOR = "arbitrator"
    SCENARIO_REVIEWER = "scenario_reviewer"
    MEMORY_REVIEWER = "memory_reviewer"
    AUDIT_EXPERT = "audit_expert"
    AUDIT_ADJUDICATOR = "audit_adjudicator"
    BASELINE_PARTICIPANT = "baseline_participant"
    OBSERVER = "observer"
    ADMIN = "admin"

    @property
    def label(self) -> str:
        return ROLE_LABELS[self]


ROLE_LABELS = {
    Role.PRIMARY_ANNOTATOR: "Primary annotator",
    Role.ARBITRATOR: "Arbitrator",
    Role.SCENARIO_REVIEWER: "Scenario reviewer",
    Role.MEMORY_REVIEWER: "Memory reviewer",
    Role.AUDIT_EXPERT: "Audit expert",
    Role.AUDIT_ADJUDICATOR: "Audit adjudicator",
    Role.BASELINE_PARTICIPANT: "Baseline participant",
    Role.OBSERVER: "Observer",
    Role.ADMIN: "Admin",
}

# Who may read the construction corpus (profiles, memories, scenarios). Baseline
# participants never see profiles or psychological annotations (App. J). An observer rates
# characters from their memories alone (issue 37): profiles, memory ids (which carry the
# design) and construction labels would tell them what the ratings are compared with.
CORPUS_READERS = frozenset(Role) - {Role.BASELINE_PARTICIPANT, Role.OBSERVER}

# Who may import corpus files and run the pipeline's jobs.
CORPUS_ADMINS = frozenset({Role.ADMIN})


def ordered_roles(roles) -> list[Role]:
    """``roles`` in the order the Role enum lists them (the pipeline's order)."""
    return [r for r in Role if r in roles]


def user_roles(user) -> frozenset[Role]:
    if not user.is_authenticated:
        return frozenset()
    cached = getattr(user, "_heartbench_roles", None)
    if cached is None:
        names = set(user.groups.values_list("name", flat=True))
        cached = frozenset(r for r in Role if r.value in names)
        if user.is_superuser:
            # A superuser administers; working roles (annotating, auditing, taking the
            # baseline) still come from groups, so their queues stay their own.
            cached |= {Role.ADMIN}
        user._heartbench_roles = cached
    return cached


def has_any_role(user, roles) -> bool:
    return bool(user_roles(user) & frozenset(roles))


def role_required(*roles: Role):
    """View decorator: log in first, then 403 unless the user holds one of ``roles``."""

    def decorator(view):
        @wraps(view)
        @login_required
        def wrapped(request, *args, **kwargs):
            if not has_any_role(request.user, roles):
                raise PermissionDenied("Your roles do not include access to this page.")
            return view(request, *args, **kwargs)

        return wrapped

    return decorator


class HasRole(BasePermission):
    """DRF permission: the view declares ``allowed_roles``; unsafe methods may narrow it
    with ``write_roles``."""

    message = "Your roles do not include access to this endpoint."

    def has_permission(self, request, view):
        roles = getattr(view, "allowed_roles", ())
        if request.method not in ("GET", "HEAD", "OPTIONS"):
            roles = getattr(view, "write_roles", roles)
        return bool(request.user and request.user.is_authenticated) and has_any_role(
            request.user, roles
        )
