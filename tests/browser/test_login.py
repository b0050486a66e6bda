"""People log in through the real form in Chromium and see their role's home."""

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from core.roles import Role
from tests.browser.actions import submit
from tests.factories import DEFAULT_PASSWORD, UserFactory

pytestmark = pytest.mark.browser


@pytest.fixture
def person(transactional_db):
    """person(Role.X) -> username of a new account holding that role."""
    # A transactional test flushes the tables, including the migration-made groups.
    for role in Role:
        Group.objects.get_or_create(name=role.value)

    def make(*roles, **kwargs):
        return UserFactory(roles=list(roles), **kwargs).username

    return make


def log_in(page, live_server, username, password=DEFAULT_PASSWORD):
    page.goto(f"{live_server.url}/")
    assert "/accounts/login/" in page.url  # home requires a login
    # autofocus: the browser applies it once the page renders, which a busy machine delays
    page.wait_for_function("() => document.activeElement?.name === 'username'", timeout=10_000)
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    submit(page, page.get_by_role("button", name="Log in"))


def test_primary_annotator_sees_their_queue_and_not_the_admin_card(page, live_server, person):
    log_in(page, live_server, person(Role.PRIMARY_ANNOTATOR, username="annotator-1"))
    card = page.locator('[data-role="primary_annotator"]')
    card.wait_for()
    assert "Blinded three-candidate comparison" in card.inner_text()
    assert "No items assigned yet" in card.inner_text()
    assert page.locator('[data-role="admin"]').count() == 0
    assert page.get_by_role("link", name="Import corpus files").count() == 0
    assert "Primary annotator" in page.get_by_test_id("nav-roles").inner_text()


def test_admin_sees_the_import_link_and_reaches_the_upload_page(page, live_server, person):
    log_in(page, live_server, person(Role.ADMIN, username="admin-1", is_staff=True))
    page.locator('[data-role="admin"]').first.wait_for()
    page.get_by_role("link", name="Import corpus files").click()
    page.wait_for_url(f"{live_server.url}/corpus/import/")
    expect(page.get_by_label("Corpus files")).to_be_visible()


def test_baseline_participant_sees_only_the_baseline_card(page, live_server, person):
    log_in(page, live_server, person(Role.BASELINE_PARTICIPANT, username="participant-1"))
    page.locator('[data-role="baseline_participant"]').wait_for()
    assert page.locator("[data-role]").count() == 1
    assert "your 150 items" in page.locator('[data-role="baseline_participant"]').inner_text()
    nav = page.get_by_role("navigation", name="Main").inner_text()
    assert "Characters" not in nav and "Scenarios" not in nav and "Import" not in nav


def test_a_wrong_password_shows_a_clear_error(page, live_server, person):
    log_in(page, live_server, person(Role.ARBITRATOR, username="senior-1"), password="wrong")
    error = page.get_by_test_id("login-error")
    error.wait_for()
    assert "correct username and password" in error.inner_text()
    assert "/accounts/login/" in page.url


def test_logging_out_returns_to_the_login_page(page, live_server, person):
    log_in(page, live_server, person(Role.ARBITRATOR, username="senior-2"))
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url(f"{live_server.url}/accounts/login/")
    page.goto(f"{live_server.url}/")
    assert "/accounts/login/" in page.url
