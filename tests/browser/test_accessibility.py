"""axe-core on every role's main pages, in Chromium, at three screen sizes (issues 21, 32).

Each demo account (the demo's data: every workflow at a stage where its pages hold real
objects) opens its home and its work pages, a real item included; axe-core 4, vendored
under static/vendor/axe-core/ from the npm registry by scripts/vendor_static.sh, runs on
each, at a 1280 × 800 laptop, a 1920 × 1080 desktop and a 390 × 844 phone, and no
violation may be "serious" or "critical". A screenshot of each page at each size is kept
under test-output/screenshots/ as <role>-<page>-<size>.png for people to look at.

The role's pages are in tests/browser/role_pages.py, which the other every-page tests
(plain names, page width) share.
"""

import pytest

from core.roles import Role
from heartbench_site.management.commands.demo_setup import DEMO_ACCOUNTS
from tests.browser.actions import keep_screenshot
from tests.browser.role_pages import (
    BLOCKING,
    LAPTOP,
    MAIN_PAGES,
    SCREEN_SIZES,
    axe_violations,
    build_demo,
    follow,
    sign_in,
)

pytestmark = pytest.mark.browser


def check(page, base, name, problems):
    """axe-core and a screenshot at each screen size, then back to the laptop's."""
    page.wait_for_load_state("load")
    for size, viewport in SCREEN_SIZES.items():
        page.set_viewport_size(viewport)
        keep_screenshot(page, f"{name}-{size}")
        for violation in axe_violations(page, base):
            line = (
                f"{name} at {size} {page.url}: {violation['id']} ({violation['impact']}) "
                f"{violation['help']}"
            )
            print(line, *violation["targets"], sep="\n    ")
            if violation["impact"] in BLOCKING:
                problems.append(f"{line}: {', '.join(violation['targets'])}")
    page.set_viewport_size(LAPTOP)


@pytest.fixture
def populated(transactional_db, release_dir, demo_providers):
    """The demo's data, committed so the live server's thread sees it."""
    return build_demo(release_dir)


def test_every_roles_main_pages_have_no_serious_accessibility_violation(
    browser, live_server, populated
):
    problems, missing = [], []

    context = browser.new_context(viewport=LAPTOP)
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
