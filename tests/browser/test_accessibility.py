"""axe-core on every role's main pages, in Chromium at 1280 × 800 (issue 21).

Each demo account (the demo's data: every workflow at a stage where its pages hold real
objects) opens its home and its work pages, a real item included; axe-core 4, vendored
under static/vendor/axe-core/ from the npm registry by scripts/vendor_static.sh, runs on
each and no violation may be "serious" or "critical". A screenshot of each page is kept
under test-output/screenshots/ as <role>-<page>.png for people to look at.
"""

import os
import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.test import Client

from heartbench_site.base.roles import Role
from heartbench_site.management.commands.demo_setup import DEMO_ACCOUNTS
from tests.browser.actions import keep_screenshot

pytestmark = pytest.mark.browser

AXE = "/static/vendor/axe-core/axe.min.js"
BLOCKING = {"serious", "critical"}

# Per role: (page name, start path, links to follow in turn from it). A link is the first
# <a> inside <main> whose href matches; following them reaches a real item of the queue.
MAIN_PAGES = {
    Role.PRIMARY_ANNOTATOR: [
        ("home", "/", []),
        ("comparison-queue", "/compare/", []),
        ("comparison-pair", "/compare/", [r"^/compare/[0-9a-f-]{36}/$"]),
        ("profile-review", "/review/profiles/", [r"^/review/profiles/\w+/$"]),
    ],
    Role.ARBITRATOR: [
        ("home", "/", []),
        ("arbitration-queue", "/arbitration/", []),
        ("arbitration-pair", "/arbitration/", [r"^/arbitration/pairs/\d+/$"]),
        ("profile-adjudication", "/review/profiles/", [r"^/review/profiles/\w+/adjudicate/$"]),
        ("item-review", "/items/", [r"^/items/\d+/$"]),
        ("memory-edit", "/audit/", [r"^/audit/cases/\d+/$"]),
    ],
    Role.SCENARIO_REVIEWER: [
        ("home", "/", []),
        ("scenario-list", "/review/scenarios/", []),
        ("scenario-review", "/review/scenarios/", [r"^/review/scenarios/SCN_\w+/$"]),
    ],
    Role.MEMORY_REVIEWER: [
        ("home", "/", []),
        ("memory-audit-queue", "/audit/", []),
        ("memory-audit-case", "/audit/", [r"^/audit/cases/\d+/$"]),
    ],
    Role.AUDIT_EXPERT: [
        ("home", "/", []),
        ("label-audit", "/audit/labels/", []),
        (
            "label-audit-item",
            "/audit/labels/",
            [r"^/audit/labels/\d+/mine/$", r"^/audit/labels/items/\d+/$"],
        ),
    ],
    Role.AUDIT_ADJUDICATOR: [
        ("home", "/", []),
        ("label-audit", "/audit/labels/", []),
        (
            "label-audit-adjudication",
            "/audit/labels/",
            [r"^/audit/labels/\d+/$", r"^/audit/labels/items/\d+/adjudicate/$"],
        ),
    ],
    Role.BASELINE_PARTICIPANT: [
        ("home", "/", []),
        ("baseline", "/baseline/", []),
        ("baseline-study", "/baseline/", [r"^/baseline/s/\d+/"]),
    ],
    Role.ADMIN: [
        ("home", "/", []),
        ("pipeline", "/pipeline/", []),
        ("characters", "/corpus/characters/", []),
        ("generation-runs", "/corpus/generation/", []),
        ("memory-generation", "/memory-generation/", []),
        ("drafting", "/drafting/", []),
        ("item-review", "/items/", []),
        ("label-audits", "/audit/labels/", []),
        ("baseline-admin", "/baseline/admin/", []),
        ("evaluation-runs", "/evaluation/", []),
        ("export", "/export/", []),
        ("decision-history", "/history/", []),
        ("api-index", "/api/", []),
        ("not-found", "/no-such-page/", []),
    ],
}


def sign_in(browser, live_server, user):
    """A 1280 × 800 browser context holding ``user``'s session (no login form: the
    login is tested elsewhere, and repeated logins would trip the lockout)."""
    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    cookie = client.cookies["sessionid"]
    context.add_cookies([{"name": "sessionid", "value": cookie.value, "url": live_server.url}])
    page = context.new_page()
    page.set_default_timeout(15_000)
    return context, page


def follow(page, base, pattern):
    for link in page.locator("main a[href]").all():
        href = link.get_attribute("href") or ""
        if re.match(pattern, href):
            page.goto(f"{base}{href}")
            return True
    return False


def axe_violations(page, base):
    # From our own origin: the CSP refuses an inline script, so no add_script_tag(path=).
    page.add_script_tag(url=f"{base}{AXE}")
    return page.evaluate(
        """async () => {
            const result = await axe.run(document);
            return result.violations.map(v => ({
                id: v.id, impact: v.impact, help: v.help,
                targets: v.nodes.slice(0, 5).map(n => n.target.join(' ')),
            }));
        }"""
    )


def check(page, base, name, problems):
    page.wait_for_load_state("load")
    keep_screenshot(page, name)
    for violation in axe_violations(page, base):
        line = f"{name} {page.url}: {violation['id']} ({violation['impact']}) {violation['help']}"
        print(line, *violation["targets"], sep="\n    ")
        if violation["impact"] in BLOCKING:
            problems.append(f"{line}: {', '.join(violation['targets'])}")


@pytest.fixture
def populated(transactional_db, release_dir, demo_providers):
    """The demo's data, committed so the live server's thread sees it."""
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    call_command("demo_setup", release=release_dir, stdout=open(os.devnull, "w"))
    users = get_user_model().objects
    return {role: users.get(username=name) for name, role, _ in DEMO_ACCOUNTS}


def test_every_roles_main_pages_have_no_serious_accessibility_violation(
    browser, live_server, populated
):
    problems, missing = [], []

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    anonymous = context.new_page()
    anonymous.goto(f"{live_server.url}/accounts/login/")
    check(anonymous, live_server.url, "anonymous-login", problems)
    context.close()

    for _username, role, _password in DEMO_ACCOUNTS:
        context, page = sign_in(browser, live_server, populated[role])
        for name, start, links in MAIN_PAGES[role]:
            page.goto(f"{live_server.url}{start}")
            if not all(follow(page, live_server.url, pattern) for pattern in links):
                missing.append(f"{role.value} {name}: no link {links} on {start}")
                continue
            check(page, live_server.url, f"{role.value}-{name}", problems)
        if role == Role.BASELINE_PARTICIPANT:
            page.goto(f"{live_server.url}/pipeline/")  # the 403 page
            check(page, live_server.url, f"{role.value}-forbidden", problems)
        context.close()

    assert not missing, "pages without a real item to open:\n" + "\n".join(missing)
    assert not problems, "serious or critical violations:\n" + "\n".join(problems)
