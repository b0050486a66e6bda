"""The navigation bar, grouped by pipeline stage, and the links of the shared pages: no
role is shown a link it cannot follow (issue 21)."""

import re
from urllib.parse import urljoin, urlsplit

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse

from core.roles import Role
from heartbench_site.context_processors import nav_groups
from heartbench_site.management.commands.demo_setup import DEMO_ACCOUNTS

from .test_access_matrix import populated  # noqa: F401 (the demo-populated database)

pytestmark = pytest.mark.django_db

STAGES = [
    "Corpus",
    "Review",
    "Generation & comparison",
    "Items",
    "Audit",
    "Baseline",
    "Evaluation",
    "Export",
]
HREF = re.compile(r"""<a\b[^>]*\bhref="([^"#]+)[^"]*\"""")
# Not pages: signing out is a POST; downloads and static files are not pages to crawl.
SKIP = ("/static/", "/accounts/logout/", "/admin/")


def internal_links(body: str, base: str) -> set[str]:
    links = set()
    for href in HREF.findall(body):
        url = urlsplit(urljoin(base, href.replace("&amp;", "&")))
        if url.netloc not in ("", "testserver") or url.path.startswith(SKIP):
            continue
        links.add(url.path + (f"?{url.query}" if url.query else ""))
    return links


def main_pages(client) -> set[str]:
    """The home, and every page the navigation bar offers (the pipeline page included)."""
    home = client.get(reverse("home"))
    assert home.status_code == 200
    body = home.content.decode()
    nav = body[body.index('id="main-nav"') : body.index("</nav>")]
    return {reverse("home")} | internal_links(nav, reverse("home"))


def test_no_role_is_shown_a_link_it_cannot_follow(populated):  # noqa: F811
    """Each demo account (and an admin who holds every role) opens its home and the pages
    of its navigation bar; every internal link on them answers without a 403.

    Until helper A's arbitration change of issue 21 is merged, this lists the arbitration
    queue's "Assign comparison pairs" link (/compare/assign/, admins only)."""
    everyone = populated[Role.ADMIN].__class__.objects.create_user("all-roles", password="x")
    everyone.groups.set(Group.objects.filter(name__in=[r.value for r in Role]))
    accounts = [(name, populated[role]) for name, role, _ in DEMO_ACCOUNTS]
    accounts.append(("every role", everyone))
    refused = []
    for who, user in accounts:
        client = Client()
        client.force_login(user)
        pages = main_pages(client)
        found_on = {page: "the navigation bar" for page in pages}
        for page in sorted(pages):
            response = client.get(page, follow=True)  # the baseline sends an admin on
            assert response.status_code == 200, f"{who} GET {page}: {response.status_code}"
            for link in internal_links(response.content.decode(), response.request["PATH_INFO"]):
                found_on.setdefault(link, page)
        for link, source in sorted(found_on.items()):
            if client.get(link, follow=True).status_code == 403:
                refused.append(f"{who}: {link} (linked from {source})")
    assert not refused, "links a role cannot follow:\n" + "\n".join(refused)


def test_an_admin_with_every_role_sees_the_pipeline_stages_in_order():
    held = frozenset(Role)
    assert [group.label for group in nav_groups(held, "home")] == STAGES


@pytest.mark.parametrize(
    "role, groups",
    [
        (Role.PRIMARY_ANNOTATOR, ["Corpus", "Review", "Generation & comparison"]),
        (Role.ARBITRATOR, ["Corpus", "Review", "Generation & comparison", "Items", "Audit"]),
        (Role.SCENARIO_REVIEWER, ["Corpus", "Review"]),
        (Role.MEMORY_REVIEWER, ["Corpus", "Audit"]),
        (Role.AUDIT_EXPERT, ["Corpus", "Audit"]),
        (Role.BASELINE_PARTICIPANT, ["Baseline"]),
        (Role.OBSERVER, ["Audit"]),  # their own tasks only (issue 37)
    ],
    ids=str,
)
def test_each_role_sees_only_the_stages_it_works_in(role, groups):
    assert [group.label for group in nav_groups(frozenset({role}), "home")] == groups


def test_a_group_with_one_link_is_a_plain_link_and_the_others_dropdowns(client_for):
    body = client_for(Role.PRIMARY_ANNOTATOR).get(reverse("home")).content.decode()
    nav = body[body.index('id="main-nav"') : body.index("</nav>")]
    # Review: profile review only, a plain link; Corpus: characters and scenarios.
    assert 'data-testid="nav-review"' in nav and ">Profile review</a>" in nav
    assert 'data-testid="nav-corpus"' in nav and 'data-bs-toggle="dropdown"' in nav
    assert "Scenario review" not in nav


def test_the_page_on_screen_is_marked_current_in_its_group(client_for):
    body = client_for(Role.ADMIN).get(reverse("corpus:scenario-list")).content.decode()
    nav = body[body.index('id="main-nav"') : body.index("</nav>")]
    assert re.search(r'dropdown-toggle active"[^>]*>Corpus<', nav)
    assert re.search(r'aria-current="page" href="/corpus/scenarios/"', nav)
