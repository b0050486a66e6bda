"""Help links: every page of the site links to the section of its role's guide.

The guides are Markdown under docs/, built by MkDocs (mkdocs.yml) into ``DOCS_ROOT`` and
served by ``docs`` below at /docs/. ``HELP`` maps a URL name to a guide section,
``"page.md#anchor"``; a name without an entry of its own takes the longest entry it
starts with (``"review:scenario"`` covers ``review:scenario-list`` and
``review:scenario-rate``), down to its namespace (``"judging"``), so a new namespace
needs one line here. tests/site/test_docs_help_links.py walks every URL pattern and
checks that each page's section exists in the built site.
"""

import base64
import hashlib
import re
from pathlib import Path

from django.conf import settings
from django.http import Http404, HttpResponse
from django.urls import reverse
from django.views.static import serve

from core.roles import Role, user_roles

#: Where `mkdocs build` writes the site (mkdocs.yml's site_dir).
DOCS_ROOT = Path(getattr(settings, "HEARTBENCH_DOCS_ROOT", settings.BASE_DIR / ".build" / "docs"))

#: Each role's guide, for the pages every role shares (the home page).
ROLE_GUIDES = {
    Role.BASELINE_PARTICIPANT: "participant/index.md#joining",
    Role.PRIMARY_ANNOTATOR: "annotator/index.md#comparison",
    Role.ARBITRATOR: "arbitrator/index.md#arbitration",
    Role.SCENARIO_REVIEWER: "reviewers/scenario-review.md#diamonds",
    Role.MEMORY_REVIEWER: "audit-experts/index.md#memory-reviewers",
    Role.AUDIT_EXPERT: "audit-experts/index.md#steps",
    Role.AUDIT_ADJUDICATOR: "audit-experts/label-audit.md#adjudication",
    Role.OBSERVER: "observer/index.md#queue",
    Role.ADMIN: "lab-admin/pipeline.md#pipeline-page",
}
GUIDES_INDEX = "index.md#guides"

#: URL name (or the start of one, or a namespace) → guide section.
HELP = {
    "login": GUIDES_INDEX,
    "account-token": "api/index.md#authentication",
    "api-index": "api/index.md#conventions",
    "api-docs": "api/index.md#conventions",
    "decision-history": "lab-admin/reliability.md#reliability-what-is-tested-and-how",
    "conflicts": "audit-experts/label-audit.md#creating",
    "pipeline": "lab-admin/pipeline.md#pipeline-page",
    "docs": GUIDES_INDEX,
    # Corpus, import and candidate generation (admins; the corpus pages for every role)
    "corpus": "lab-admin/pipeline.md#workflows",
    "corpus:import": "lab-admin/pipeline.md#import",
    "corpus:generation": "lab-admin/pipeline.md#candidate-generation",
    "corpus:prompt": "lab-admin/pipeline.md#candidate-generation",
    "corpus:distinctness": "lab-admin/validity-distinctness.md#distinctness-page",
    "drafting": "lab-admin/pipeline.md#drafting",
    "drafting:redraft": "lab-admin/pipeline.md#redrafting",
    "memory_generation": "lab-admin/pipeline.md#memory-generation",
    "memory_generation:index": "lab-admin/pipeline.md#memory-quota",
    "memory_generation:weights": "lab-admin/pipeline.md#memory-quota",
    "memory_generation:plan": "lab-admin/pipeline.md#memory-quota",
    # Reviews
    "review": "reviewers/index.md#guide-for-reviewers",
    "review:profile": "reviewers/profile-review.md#reviewing",
    "review:change-request": "reviewers/profile-review.md#reviewing",
    "review:change-request-resolve": "reviewers/profile-review.md#senior",
    "review:profile-adjudicate": "reviewers/profile-review.md#senior",
    "review:profile-edit": "reviewers/profile-review.md#senior",
    "review:profile-freeze": "reviewers/profile-review.md#senior",
    "review:profile-outcomes": "reviewers/profile-review.md#outcomes",
    "review:scenario": "reviewers/scenario-review.md#scenario-review",
    "review:scenario-rate": "reviewers/scenario-review.md#diamonds",
    "review:scenario-rating-draft": "reviewers/scenario-review.md#diamonds",
    "review:scenario-reassess": "reviewers/scenario-review.md#reassessment",
    "review:coverage": "reviewers/scenario-review.md#scenario-review",
    "review:blueprint": "reviewers/scenario-review.md#blueprints",
    # The memory audit and the reference-label audit
    "audit": "audit-experts/memory-audit.md#queue",
    "audit:queue": "audit-experts/index.md#memory-reviewers",
    "audit:case": "audit-experts/memory-audit.md#case-page",
    "audit:case-edit": "audit-experts/memory-audit.md#repair",
    "audit:case-reaudit": "audit-experts/memory-audit.md#repair",
    "audit:case-ask-team": "audit-experts/memory-audit.md#repair",
    # Release hygiene (issue #37): the reviewers' flags and the admins' screens.
    "audit:hygiene-flag": "lab-admin/validity-release-hygiene.md#reviewing-flags",
    "audit:hygiene-run": "lab-admin/validity-release-hygiene.md#running-a-screen",
    "audit:labels": "audit-experts/label-audit.md#the-reference-label-audit",
    "audit:observers": "lab-admin/validity-observers.md#observer-runs",
    "audit:observers:inventories": "lab-admin/validity-observers.md#inventory-file",
    "audit:observers:report": "lab-admin/validity-observers.md#reading-the-report",
    "audit:observers:people": "lab-admin/validity-observers.md#human-observers",
    "audit:observers:task": "observer/index.md#steps",
    "audit:labels:create": "audit-experts/label-audit.md#creating",
    "audit:labels:expert-queue": "audit-experts/index.md#queue",
    "audit:labels:select": "audit-experts/index.md#steps",
    "audit:labels:draft": "audit-experts/index.md#steps",
    "audit:labels:adjudicate": "audit-experts/label-audit.md#adjudication",
    "audit:labels:outcomes": "audit-experts/label-audit.md#outcomes",
    "audit:labels:items": "audit-experts/label-audit.md#outcomes",
    # Comparison, blinding and arbitration
    "comparison": "annotator/index.md#comparison",
    "comparison:queue": "annotator/index.md#queue",
    "comparison:assign": "lab-admin/pipeline.md#stages",
    "comparison:pair": "annotator/index.md#comparison",
    "comparison:screen": "lab-admin/judge-and-blinding.md#blinding",
    "screening": "lab-admin/judge-and-blinding.md#blinding",
    "blinding": "lab-admin/judge-and-blinding.md#blinding",
    "blinding:guess": "annotator/index.md#family-question",
    "adjudication": "arbitrator/index.md#arbitration",
    "adjudication:queue": "arbitrator/index.md#queue",
    "adjudication:decided": "arbitrator/index.md#queue",
    "adjudication:reopen": "arbitrator/index.md#fixing",
    "adjudication:outcomes": "arbitrator/index.md#outcomes",
    "adjudication:analytics": "arbitrator/index.md#analytics",
    "judging": "lab-admin/judge-and-blinding.md#judge-runs",
    # MCQ items
    "mcq": "reviewers/item-review.md#item-page",
    "mcq:queue": "reviewers/item-review.md#pages",
    "mcq:run": "reviewers/item-review.md#flow",
    "mcq:runs": "reviewers/item-review.md#flow",
    "mcq:screening-run": "reviewers/item-review.md#flow",
    "mcq:screener-agreement": "lab-admin/validity-judges.md#screener",
    "mcq:recall-audit": "lab-admin/validity-judges.md#recall-audit",
    "audit:classifier-agreement": ("lab-admin/validity-judges.md#classifier"),
    # The human baseline: the participant's pages, then the admin's
    "baseline": "lab-admin/human-baseline.md#pages",
    "baseline:home": "participant/index.md#joining",
    "baseline:join": "participant/index.md#joining",
    "baseline:study": "participant/index.md#items",
    "baseline:consent": "participant/index.md#consent",
    "baseline:briefing": "participant/index.md#practice",
    "baseline:practice": "participant/index.md#practice",
    "baseline:start": "participant/index.md#practice",
    "baseline:item": "participant/index.md#items",
    "baseline:item-time": "participant/index.md#recorded",
    "baseline:finalize": "participant/index.md#finishing",
    "baseline:study-": "lab-admin/human-baseline.md#pages",
    "baseline:practice-reason": "lab-admin/human-baseline.md#pages",
    "evaluation": "lab-admin/evaluation.md#model-evaluation-runs",
    "export": "lab-admin/export.md#export-jobs",
    # Issue #36: the team, participants' rights, costs
    "team": "lab-admin/team.md#what-the-team-page-shows-for-each-person",
    "team:invite": "lab-admin/team.md#inviting-someone",
    "team:invitation-": "lab-admin/team.md#inviting-someone",
    "team:person-deactivate": "lab-admin/team.md#when-someone-leaves-deactivating",
    "team:person-reactivate": "lab-admin/team.md#when-someone-leaves-deactivating",
    "team:join": GUIDES_INDEX,
    "password_reset": "lab-admin/team.md#password-reset",
    "password_reset_done": "lab-admin/team.md#password-reset",
    "password_reset_confirm": "lab-admin/team.md#password-reset",
    "password_reset_complete": "lab-admin/team.md#password-reset",
    "baseline:withdraw": "participant/withdrawal.md#how-to-withdraw",
    "baseline:participant-erase": "lab-admin/participant-data.md#erasing-a-participants-data",
    "corpus:generation-resume": "lab-admin/costs.md#resuming-a-stopped-run",
    "drafting:job-resume": "lab-admin/costs.md#resuming-a-stopped-run",
}


def help_section(view_name: str, roles=frozenset()) -> str | None:
    """The guide section ("page.md#anchor") of the page named ``view_name``, or None."""
    if not view_name:  # a page no URL names (404): the guides' index
        return GUIDES_INDEX
    if view_name == "home":
        held = [ROLE_GUIDES[role] for role in Role if role in roles]
        return held[0] if held else GUIDES_INDEX
    if view_name in HELP:
        return HELP[view_name]
    starts = [key for key in HELP if _starts(view_name, key)]
    return HELP[max(starts, key=len)] if starts else None


def _starts(view_name: str, key: str) -> bool:
    """``key`` begins ``view_name`` at a word's end ("review:profile" begins
    "review:profile-list", not "review:profiles"); a key ending in "-" or ":" begins any
    name that continues it."""
    if not view_name.startswith(key):
        return False
    return key.endswith(("-", ":")) or view_name[len(key) : len(key) + 1] in (":", "-")


def section_url(section: str) -> str:
    """/docs/<page>/#<anchor> for "page.md#anchor" (MkDocs' directory URLs)."""
    page, _, anchor = section.partition("#")
    path = page.removesuffix(".md")
    path = "" if path == "index" else path.removesuffix("/index") + "/"
    url = reverse("docs-index") + path.lstrip("/")
    return f"{url}#{anchor}" if anchor else url


def help_url(request) -> str | None:
    """The help link of the page ``request`` is for."""
    match = getattr(request, "resolver_match", None)
    user = getattr(request, "user", None)
    roles = user_roles(user) if user is not None and user.is_authenticated else frozenset()
    section = help_section(match.view_name if match else "", roles)
    return section_url(section) if section else None


def docs(request, path=""):
    """A file of the built guides; a folder answers its index.html."""
    if not path or path.endswith("/"):
        path += "index.html"
    if not DOCS_ROOT.is_dir():
        raise Http404("The guides are not built: run `.venv/bin/mkdocs build`.")
    try:  # a name too long or holding a NUL is a page that is not there, not an error
        if not path.endswith(".html"):
            return serve(request, path, document_root=DOCS_ROOT)  # 404 for what is not there
        page = (DOCS_ROOT / path).resolve()
        if not page.is_relative_to(DOCS_ROOT.resolve()) or not page.is_file():
            raise Http404("No such page in the guides.")
    except (OSError, ValueError):
        raise Http404("No such page in the guides.") from None
    # A page is answered whole (not streamed), and the theme's one inline script (where
    # the search index lies) runs by its hash: the site's policy allows no other inline
    # script (settings: django-csp).
    text = page.read_text(encoding="utf-8")
    response = HttpResponse(text, content_type="text/html; charset=utf-8")
    hashes = [_sha256(body) for body in INLINE_SCRIPT.findall(text)]
    if hashes:
        response._csp_update = {"script-src": hashes}
    return response


INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)


def _sha256(body: str) -> str:
    digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
    return f"'sha256-{digest}'"
