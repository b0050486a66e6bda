"""The navigation bar at 1280 × 800: an admin holding every role sees it on one line, and
its stage menus open and are followed by keyboard (issue 21)."""

import pytest
from django.contrib.auth.models import Group

from core.roles import Role
from tests.browser.actions import keep_screenshot, submit
from tests.factories import DEFAULT_PASSWORD, UserFactory

pytestmark = pytest.mark.browser


@pytest.fixture
def everyone(transactional_db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    # A long name, as a lab's accounts may have: it must not push the bar past the screen.
    return UserFactory(
        username="principal-investigator-with-every-role",
        roles=list(Role),
        is_staff=True,
        is_superuser=True,
    ).username


def log_in(page, live_server, username):
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(DEFAULT_PASSWORD)
    submit(page, page.get_by_role("button", name="Log in"))


def test_the_bar_of_an_admin_with_every_role_fits_on_one_line(page, live_server, everyone):
    log_in(page, live_server, everyone)
    keep_screenshot(page, "nav-every-role")
    entries = page.locator("#main-nav > .navbar-nav > .nav-item")
    boxes = [entries.nth(i).bounding_box() for i in range(entries.count())]
    # Geometry, not pixels: one row means every entry starts at the same height and is as
    # tall as the others (no label broken over two lines), and the log-out button is no
    # taller than an entry and sits on that row too.
    assert len({round(box["y"]) for box in boxes}) == 1, "the bar wraps onto a second row"
    heights = {round(box["height"]) for box in boxes}
    assert len(heights) == 1, f"a label breaks over two lines: heights {sorted(heights)}"
    account = page.get_by_role("button", name="Log out").bounding_box()
    assert account["height"] <= boxes[0]["height"]
    assert boxes[0]["y"] <= account["y"] <= boxes[0]["y"] + boxes[0]["height"]
    assert account["x"] + account["width"] <= page.viewport_size["width"]
    labels = [entries.nth(i).inner_text().strip() for i in range(entries.count())]
    assert labels == [
        "Home",
        "Pipeline",
        "Corpus",
        "Review",
        "Generation & comparison",
        "Item review",
        "Audit",
        "Baseline",
        "Evaluation",
        "Export",
    ]


def test_a_stage_menu_opens_and_is_followed_by_keyboard(page, live_server, everyone):
    log_in(page, live_server, everyone)
    toggle = page.get_by_role("button", name="Corpus")
    toggle.focus()
    page.keyboard.press("Enter")
    assert toggle.get_attribute("aria-expanded") == "true"
    page.keyboard.press("ArrowDown")
    focused = page.evaluate("document.activeElement.textContent.trim()")
    assert focused == "Characters"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Escape")
    assert toggle.get_attribute("aria-expanded") == "false"
    page.keyboard.press("Enter")  # the toggle has the focus back
    page.get_by_test_id("nav-memory-generation").focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url == f"{live_server.url}/memory-generation/"
    assert page.get_by_role("button", name="Corpus").get_attribute("class").count("active") == 1
