from heartbench_site.base.roles import (
    CORPUS_ADMINS,
    CORPUS_READERS,
    Role,
    has_any_role,
    ordered_roles,
    user_roles,
)

PROFILE_REVIEW_ROLES = (Role.PRIMARY_ANNOTATOR, Role.ARBITRATOR, Role.ADMIN)
SCENARIO_REVIEW_ROLES = (Role.SCENARIO_REVIEWER, Role.ADMIN)
COMPARISON_ROLES = (Role.PRIMARY_ANNOTATOR,)
ARBITRATION_ROLES = (Role.ARBITRATOR, Role.ADMIN)
MEMORY_AUDIT_ROLES = (Role.MEMORY_REVIEWER, Role.ARBITRATOR, Role.ADMIN)


def roles(request):
    """The signed-in person's roles, and which navigation sections those roles open."""
    user = getattr(request, "user", None)
    held = user_roles(user) if user is not None else frozenset()
    return {
        "user_roles": ordered_roles(held),
        "nav_corpus": has_any_role(user, CORPUS_READERS) if held else False,
        "nav_import": has_any_role(user, CORPUS_ADMINS) if held else False,
        "nav_profile_review": bool(held & set(PROFILE_REVIEW_ROLES)),
        "nav_scenario_review": bool(held & set(SCENARIO_REVIEW_ROLES)),
        "nav_comparison": bool(held & set(COMPARISON_ROLES)),
        "nav_arbitration": bool(held & set(ARBITRATION_ROLES)),
        "nav_memory_audit": bool(held & set(MEMORY_AUDIT_ROLES)),
        "nav_label_audit": bool(held & {Role.AUDIT_EXPERT, Role.AUDIT_ADJUDICATOR, Role.ADMIN}),
        "nav_baseline": bool(held & {Role.BASELINE_PARTICIPANT, Role.ADMIN}),
        "nav_pipeline": Role.ADMIN in held,
    }
