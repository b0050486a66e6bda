"""Layout on the demo's data, measured in Chromium (issue #36): the admin's navigation bar
is one line at 1280 px and nothing overflows at 1024 and 1440 px; on a phone (390 px) the
folded menu opens and is followed. The cost estimate on the generation launch page stays
inside its card at 1280 px and, on a phone, scrolls inside its own box instead of widening
the page. The team page, a participant's withdraw page and the admin's erasure page do
not scroll sideways on a phone. Geometry, never pixels."""

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from core.roles import Role
from heartbench_site.settings.base import _generation_families
from humanbaseline import services
from humanbaseline.demo import DEMO_STUDY_NAME
from humanbaseline.models import BaselineStudy
from tests.browser.actions import keep_screenshot
from tests.browser.role_pages import LAPTOP, PHONE, build_demo, sign_in
from tests.factories import UserFactory

pytestmark = pytest.mark.browser

SMALL_LAPTOP = {"width": 1024, "height": 768}
WIDE = {"width": 1440, "height": 900}

#: The one-command demo's illustrative prices (heartbench_site/settings/local.py).
DEMO_PRICES = {
    f"HEARTBENCH_{family}_{name}": value
    for family in ("CLAUDE", "GPT", "GEMINI")
    for name, value in (
        ("KIND", "offline_demo"),
        ("PRICE_IN", "3"),
        ("PRICE_OUT", "15"),
        ("ACTIVATION_PRICE_IN", "1"),
        ("ACTIVATION_PRICE_OUT", "5"),
    )
}


@pytest.fixture
def populated(transactional_db, release_dir, demo_providers, settings):
    accounts = build_demo(release_dir)
    settings.HEARTBENCH_GENERATION_FAMILIES = _generation_families(DEMO_PRICES)
    return accounts


def page_fits(page) -> bool:
    """No sideways scrolling of the page itself."""
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def box(locator) -> dict:
    found = locator.bounding_box()
    assert found, "the element is not displayed"
    return found


def right(found: dict) -> float:
    return found["x"] + found["width"]


def bar_is_one_line(browser, live_server, admin, screen):
    """Open the pipeline page as ``admin`` at ``screen`` and assert the bar is one line."""
    context, page = sign_in(browser, live_server, admin, viewport=screen)
    try:
        page.goto(f"{live_server.url}/pipeline/")
        keep_screenshot(page, f"layout-nav-{admin.username[:24]}-{screen['width']}")
        entries = page.locator("#main-nav > .navbar-nav > .nav-item")
        assert entries.count() >= 8, "the admin sees every stage"
        boxes = [box(entries.nth(i)) for i in range(entries.count())]
        assert len({round(b["y"]) for b in boxes}) == 1, f"{screen['width']}: entries wrap"
        assert len({round(b["height"]) for b in boxes}) == 1, "a label breaks over two lines"
        # The name, the help link and "Log out" sit on the entries' row, inside the screen.
        row_top, row_bottom = boxes[0]["y"], boxes[0]["y"] + boxes[0]["height"]
        assert page.get_by_test_id("help-link").count() == 1
        for part in (page.get_by_role("button", name="Log out"), page.get_by_test_id("nav-roles")):
            found = box(part)
            middle = found["y"] + found["height"] / 2
            assert row_top <= middle <= row_bottom, f"{screen['width']}: the account wraps"
            assert right(found) <= screen["width"]
        bar = box(page.locator("nav.hb-navbar"))
        assert bar["height"] < 70, f"{screen['width']}: the bar is {bar['height']} px tall"
        assert page_fits(page)
    finally:
        context.close()


@pytest.mark.parametrize(
    "second_role",
    [None, Role.ARBITRATOR, Role.PRIMARY_ANNOTATOR, Role.BASELINE_PARTICIPANT],
    ids=["admin-only", "arbitrator", "annotator", "longest-badge"],
)
def test_an_admin_with_a_second_role_has_a_one_line_bar_at_1280_and_1440(
    browser, live_server, transactional_db, second_role
):
    """Up to two roles show as badges beside the name: the widest bar an admin gets."""
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    roles = [Role.ADMIN] + ([second_role] if second_role else [])
    admin = UserFactory(username="principal-investigator-of-the-lab", roles=roles)
    for screen in (LAPTOP, WIDE):
        bar_is_one_line(browser, live_server, admin, screen)


def demo_admins_bar(browser, live_server, populated):
    admin = populated[Role.ADMIN]
    for screen in (LAPTOP, WIDE):
        bar_is_one_line(browser, live_server, admin, screen)

    # At 1024 px the bar folds into its toggler and nothing sticks out.
    context, page = sign_in(browser, live_server, admin, viewport=SMALL_LAPTOP)
    page.goto(f"{live_server.url}/pipeline/")
    expect(page.locator(".navbar-toggler")).to_be_visible()
    assert not page.get_by_test_id("nav-pipeline").is_visible()
    assert page_fits(page)
    context.close()


def phone_menu(browser, live_server, populated):
    context, page = sign_in(browser, live_server, populated[Role.ADMIN], viewport=PHONE)
    page.goto(f"{live_server.url}/")
    assert page_fits(page)
    link = page.get_by_test_id("nav-pipeline")
    assert not link.is_visible()
    page.locator(".navbar-toggler").click()
    link.wait_for(state="visible")
    assert right(box(page.get_by_role("button", name="Log out"))) <= PHONE["width"]
    assert page_fits(page)
    keep_screenshot(page, "layout-nav-phone-open")
    with page.expect_navigation():
        link.click()
    assert page.url == f"{live_server.url}/pipeline/"
    context.close()


def cost_estimate(browser, live_server, populated):
    context, page = sign_in(browser, live_server, populated[Role.ADMIN], viewport=LAPTOP)
    page.goto(f"{live_server.url}/corpus/generation/new/")
    estimate = page.get_by_test_id("cost-estimate")
    table = estimate.locator("table")
    assert estimate.get_by_test_id("cost-row").count() == 3, "one row per family"
    assert "price not configured" not in estimate.inner_text()
    keep_screenshot(page, "layout-cost-estimate-1280")
    card = box(page.locator("#unit-estimate"))
    assert right(box(table)) <= right(card) - 1, "the table sticks out of its card"
    wrapper = page.get_by_test_id("cost-table-wrapper")
    # It fits at 1280: nothing to scroll inside the wrapper either.
    assert wrapper.evaluate("w => w.scrollWidth <= w.clientWidth")
    assert page_fits(page)
    context.close()

    context, page = sign_in(browser, live_server, populated[Role.ADMIN], viewport=PHONE)
    page.goto(f"{live_server.url}/corpus/generation/new/")
    wrapper = page.get_by_test_id("cost-table-wrapper")
    wrapper.scroll_into_view_if_needed()
    keep_screenshot(page, "layout-cost-estimate-390")
    assert wrapper.evaluate("w => getComputedStyle(w).overflowX") == "auto"
    assert right(box(wrapper)) <= PHONE["width"]
    assert page_fits(page), "the estimate widens the page on a phone"
    # Were the table wider than its box, it scrolls there: force it, and the page still fits.
    wrapper.locator("table").evaluate("t => { t.style.minWidth = '700px'; }")
    assert wrapper.evaluate("w => w.scrollWidth > w.clientWidth")
    wrapper.evaluate("w => { w.scrollLeft = 200; }")
    assert wrapper.evaluate("w => w.scrollLeft") > 0
    assert page_fits(page)
    context.close()


#: Names as long as a lab's accounts and a pool's ids can make them, unbroken.
LONG_NAME = "participant-5f2a9c41e7b3d8a06c1f4e92b7d3a5c8-prolific"


def phone_pages(browser, live_server, populated):
    study = BaselineStudy.objects.get(name=DEMO_STUDY_NAME)
    participation = services.participant_account_create(
        study=study, username=LONG_NAME, password="a-long-study-password-42"
    )
    participation = services.consent_decide(
        participation=participation, agree=True, version=study.consent_version
    )
    participant, study_id = participation.user, study.pk
    UserFactory(username=f"annotator-{LONG_NAME}", roles=[Role.PRIMARY_ANNOTATOR])

    context, page = sign_in(browser, live_server, participant, viewport=PHONE)
    page.goto(f"{live_server.url}/baseline/s/{study_id}/withdraw/")
    expect(page.get_by_role("heading", name="Withdraw from the study")).to_be_visible()
    keep_screenshot(page, "layout-withdraw-390")
    assert page_fits(page), "the withdraw page scrolls sideways"
    context.close()

    context, page = sign_in(browser, live_server, populated[Role.ADMIN], viewport=PHONE)
    path = f"/baseline/admin/studies/{study_id}/participants/{participation.pk}/erase/"
    page.goto(f"{live_server.url}{path}")
    expect(page.get_by_test_id("erase-submit")).to_be_visible()
    keep_screenshot(page, "layout-erase-390")
    assert page_fits(page), "the erasure page scrolls sideways"

    # The team page: its invitations table names its actions column for screen readers
    # only (.visually-hidden, absolutely placed), which widened the page until the
    # tables' scrolling boxes were positioned.
    page.goto(f"{live_server.url}/team/")
    expect(page.get_by_role("heading", level=1).first).to_be_visible()
    assert page.locator("main table, main li").count() > 0, "the team page lists people"
    keep_screenshot(page, "layout-team-390")
    assert page_fits(page), "the team page scrolls sideways"
    context.close()


def test_on_the_demo_the_bar_the_estimate_and_the_phone_pages_fit(browser, live_server, populated):
    """One demo build (it takes minutes) for the four checks, each a function above."""
    demo_admins_bar(browser, live_server, populated)
    phone_menu(browser, live_server, populated)
    cost_estimate(browser, live_server, populated)
    phone_pages(browser, live_server, populated)
