"""The signed-in person's roles, and the navigation bar those roles open.

The bar groups the pages by pipeline stage (seed 000's Figure 2, top to bottom) and
lists only the links a role may follow: a link that answers 403 is never shown.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.urls import reverse

from core.roles import (
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
LABEL_AUDIT_ROLES = (Role.AUDIT_EXPERT, Role.AUDIT_ADJUDICATOR, Role.ADMIN)
BASELINE_ROLES = (Role.BASELINE_PARTICIPANT, Role.ADMIN)
OBSERVER_ROLES = (Role.OBSERVER,)
ADMINS = (Role.ADMIN,)


def _prefix(*prefixes: str) -> Callable[[str], bool]:
    return lambda name: name.startswith(prefixes)


def _contains(*parts: str) -> Callable[[str], bool]:
    return lambda name: any(part in name for part in parts)


@dataclass(frozen=True)
class NavLink:
    label: str
    url_name: str
    roles: frozenset
    active: Callable[[str], bool]
    testid: str = ""


def _link(label, url_name, roles, active, testid=""):
    return NavLink(label, url_name, frozenset(roles), active, testid)


# (group label, links). A group whose role sees one link shows that link alone; more
# than one makes a dropdown.
NAV_GROUPS: tuple[tuple[str, tuple[NavLink, ...]], ...] = (
    (
        "Corpus",
        (
            _link(
                "Characters",
                "corpus:character-list",
                CORPUS_READERS,
                _prefix("corpus:character-", "corpus:memory-"),
            ),
            _link("Scenarios", "corpus:scenario-list", CORPUS_READERS, _prefix("corpus:scenario-")),
            _link("Import", "corpus:import", CORPUS_ADMINS, _prefix("corpus:import")),
            _link(
                "Drafting", "drafting:job-list", CORPUS_ADMINS, _prefix("drafting:"), "nav-drafting"
            ),
            _link(
                "Memory generation",
                "memory_generation:index",
                CORPUS_ADMINS,
                _prefix("memory_generation:"),
                "nav-memory-generation",
            ),
        ),
    ),
    (
        "Review",
        (
            _link(
                "Profile review",
                "review:profile-list",
                PROFILE_REVIEW_ROLES,
                _contains("review:profile", "review:change"),
            ),
            _link(
                "Scenario review",
                "review:scenario-list",
                SCENARIO_REVIEW_ROLES,
                _contains("review:scenario", "review:blueprint"),
            ),
        ),
    ),
    (
        "Generation & comparison",
        (
            _link(
                "Generation runs",
                "corpus:generation-list",
                CORPUS_ADMINS,
                _prefix("corpus:generation-", "corpus:prompt-"),
            ),
            _link("Comparison", "comparison:queue", COMPARISON_ROLES, _prefix("comparison:")),
            _link("Arbitration", "adjudication:queue", ARBITRATION_ROLES, _prefix("adjudication:")),
            _link("Judge runs", "judging:runs", CORPUS_ADMINS, _prefix("judging:")),
            _link("Leak flags", "screening:flags", ADMINS, _prefix("screening:")),
            _link("Blinding report", "blinding:report", ADMINS, _prefix("blinding:report")),
        ),
    ),
    ("Items", (_link("Item review", "mcq:queue", ARBITRATION_ROLES, _prefix("mcq:")),)),
    (
        "Audit",
        (
            _link(
                "Memory audit",
                "audit:queue",
                MEMORY_AUDIT_ROLES,
                lambda name: name.startswith("audit:") and not name.startswith("audit:labels:"),
            ),
            _link("Label audit", "audit:labels:home", LABEL_AUDIT_ROLES, _prefix("audit:labels:")),
            # An observer's own tasks (issue 37); the admin's observer pages are elsewhere.
            _link(
                "Observer tasks",
                "audit:observers:tasks",
                OBSERVER_ROLES,
                _prefix("audit:observers:task"),
                "nav-observer-tasks",
            ),
        ),
    ),
    ("Baseline", (_link("Baseline", "baseline:home", BASELINE_ROLES, _prefix("baseline:")),)),
    (
        "Evaluation",
        (_link("Evaluation", "evaluation:run-list", ADMINS, _prefix("evaluation:")),),
    ),
    (
        "Export",
        (
            _link("Export the final set", "export:home", ADMINS, _prefix("export:")),
            _link("Decision history", "decision-history", ADMINS, _prefix("decision-history")),
        ),
    ),
)


@dataclass(frozen=True)
class NavEntry:
    label: str
    url: str
    active: bool
    testid: str


@dataclass(frozen=True)
class NavGroup:
    label: str
    slug: str
    links: list[NavEntry]

    @property
    def active(self) -> bool:
        return any(link.active for link in self.links)

    @property
    def testid(self) -> str:
        return f"nav-{self.slug}"


def nav_groups(held: frozenset, view_name: str) -> list[NavGroup]:
    """The navigation groups ``held`` roles may follow, each with only its followable
    links; the link of the page on screen (``view_name``) is marked active."""
    groups = []
    for label, links in NAV_GROUPS:
        entries = [
            NavEntry(link.label, reverse(link.url_name), link.active(view_name), link.testid)
            for link in links
            if held & link.roles
        ]
        if entries:
            slug = label.lower().replace(" & ", "-").replace(" ", "-")
            groups.append(NavGroup(label, slug, entries))
    return groups


def roles(request):
    """The signed-in person's roles, and which navigation sections those roles open."""
    user = getattr(request, "user", None)
    held = user_roles(user) if user is not None else frozenset()
    match = getattr(request, "resolver_match", None)
    view_name = (match.view_name if match else "") or ""
    return {
        "user_roles": ordered_roles(held),
        "nav_groups": nav_groups(held, view_name) if held else [],
        "nav_corpus": has_any_role(user, CORPUS_READERS) if held else False,
        "nav_import": has_any_role(user, CORPUS_ADMINS) if held else False,
        "nav_pipeline": Role.ADMIN in held,
    }
