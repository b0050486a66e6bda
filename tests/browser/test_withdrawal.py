"""Participants' rights in Chromium (issue #36): on a phone (390 px) a participant finds
"Withdraw from the study" at the foot of a study item, reads what happens to their
answers and withdraws with the keyboard; the admin then erases their personal data,
confirming it in the final-action dialog (Escape first cancels it)."""

import re

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from core.roles import Role
from humanbaseline.models import ParticipantErasure, Participation
from tests.factories import UserFactory
from tests.humanbaseline.conftest import enrol, make_study

from .confirming import open_confirmation
from .role_pages import BLOCKING, axe_violations
from .test_login import log_in

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def study(transactional_db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    study, _, _ = make_study(n_items=2, n_practice=1, n_characters=4)
    return study


def blocking(page, live_server):
    """axe-core's serious and critical findings on the page."""
    return [v for v in axe_violations(page, live_server.url) if v["impact"] in BLOCKING]


def no_sideways_scroll(page):
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_a_participant_withdraws_on_a_phone_and_the_admin_erases_their_data(
    browser, live_server, study
):
    p = enrol(study, "phone-person")
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    pp = context.new_page()
    pp.set_default_timeout(15_000)
    log_in(pp, live_server, "phone-person")
    pp.goto(f"{live_server.url}/baseline/s/{study.pk}/items/1/")
    link = pp.get_by_role("link", name="Withdraw from the study")
    link.scroll_into_view_if_needed()
    expect(link).to_be_visible()
    assert no_sideways_scroll(pp)
    link.focus()
    with pp.expect_navigation():
        pp.keyboard.press("Enter")
    expect(pp.get_by_role("heading", name="Withdraw from the study")).to_be_visible()
    terms = pp.get_by_test_id("withdrawal-terms").inner_text()
    assert "your answers are set aside" in terms and no_sideways_scroll(pp)
    assert blocking(pp, live_server) == []
    button = pp.get_by_role("button", name="Withdraw from the study")
    button.focus()
    with pp.expect_navigation():
        pp.keyboard.press("Enter")
    pp.get_by_test_id("withdrawn").wait_for()
    assert "You withdrew on" in pp.get_by_test_id("withdrawn").inner_text()
    assert pp.get_by_role("link", name="Withdraw from the study").count() == 0
    p.refresh_from_db()
    assert p.status == Participation.Status.WITHDRAWN
    # Going back to an item leads to the same page: nothing more can be answered.
    pp.goto(f"{live_server.url}/baseline/s/{study.pk}/items/1/")
    pp.get_by_test_id("withdrawn").wait_for()
    context.close()

    admin = UserFactory(username="rights-admin", roles=[Role.ADMIN])
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(15_000)
    log_in(page, live_server, admin.username)
    page.goto(f"{live_server.url}/baseline/admin/studies/{study.pk}/")
    assert "answers set aside" in page.get_by_test_id("participant-status").inner_text()
    page.get_by_test_id("erase-link").click()
    assert blocking(page, live_server) == []
    page.get_by_role("radio", name=re.compile(r"^Personal data")).check()
    submit = page.get_by_test_id("erase-submit")
    message = open_confirmation(page, submit)
    assert "final" in message and "cannot be undone" in message
    page.keyboard.press("Escape")
    assert not ParticipantErasure.objects.exists()
    open_confirmation(page, submit)
    with page.expect_navigation():
        page.get_by_test_id("confirm-yes").click()
    erasure = ParticipantErasure.objects.get()
    assert f"now listed as {erasure.placeholder}" in page.locator(".alert-success").inner_text()
    p.refresh_from_db()
    assert p.user.username == erasure.placeholder and not p.user.is_active
    assert "Erased" in page.locator("table").first.inner_text() or "Erased" in page.content()
    page.close()
