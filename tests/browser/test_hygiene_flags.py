"""Release hygiene flags walked in Chromium on the keyboard alone: a memory reviewer opens
the flag list, confirms the flagged e-mail address and dismisses the flagged phone
number (a reason required), each behind the confirmation dialog; the page says what
happened and the list shows each flag's new status."""

import pytest
from django.contrib.auth.models import Group

from audit.hygiene import services
from audit.hygiene.models import HygieneDecision, HygieneFlag
from audit.hygiene.rules import Rule
from core.roles import Role
from tests.factories import CharacterFactory, MemoryFactory, ProfileVersionFactory, UserFactory
from tests.hygiene.conftest import CLEAN, EMAIL, PHONE, PLANTED

from .test_login import log_in

pytestmark = pytest.mark.browser


@pytest.fixture
def flagged(transactional_db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    admin = UserFactory(username="hygiene-admin", roles=[Role.ADMIN])
    UserFactory(username="memory-reviewer", roles=[Role.MEMORY_REVIEWER])
    character = CharacterFactory(key="CHAR_05")
    ProfileVersionFactory(character=character, number=1, description="Grew up in a quiet town.")
    MemoryFactory(character=character, sequence=1, content_full=CLEAN)
    MemoryFactory(character=character, sequence=2, content_full=PLANTED)
    run = services.hygiene_run_start(created_by=admin)
    for unit_id in services.FLOW.units(run.pk).order_by("pk").values_list("pk", flat=True):
        services.hygiene_unit_screen(unit_id=unit_id)
    flags = HygieneFlag.objects.filter(run=run)
    return {
        "email": flags.get(rule=Rule.EMAIL),
        "phone": flags.get(rule=Rule.PHONE),
        "open": flags.filter(status=HygieneFlag.Status.OPEN).count(),
    }


def press_until_focused(page, key, locator, limit=60):
    """Press ``key`` (Tab) until ``locator`` has the focus, as a keyboard user would."""
    for _ in range(limit):
        if locator.evaluate("el => el === document.activeElement"):
            return
        page.keyboard.press(key)
    raise AssertionError(f"{locator} never took the focus")


def row_of(page, matched):
    """The list's row whose flagged span (not its context) is ``matched``."""
    span = page.get_by_test_id("flag-span").filter(has_text=matched)
    return page.get_by_test_id("hygiene-flag-row").filter(has=span)


def open_flag_by_keyboard(page, matched):
    link = row_of(page, matched).get_by_role("link")
    press_until_focused(page, "Tab", link)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert matched in page.get_by_test_id("flag-excerpt").inner_text()


def decide_by_keyboard(page, choice, reason=""):
    """Choose the decision, type the reason, submit and confirm: keys only."""
    radio = page.get_by_label(choice)
    press_until_focused(page, "Tab", page.locator('input[name="decision"]').first)
    for _ in range(4):  # the arrow keys move between the radio buttons and select
        if radio.is_checked():
            break
        page.keyboard.press("ArrowDown")
    assert radio.is_checked()
    if reason:
        press_until_focused(page, "Tab", page.get_by_label("Reason"))
        page.keyboard.type(reason)
    press_until_focused(page, "Tab", page.get_by_role("button", name="Record my decision"))
    page.keyboard.press("Enter")  # the confirmation opens with its button focused
    message = page.get_by_test_id("confirm-message")
    message.wait_for()
    assert "Confirming sends the text for repair" in message.inner_text()
    with page.expect_navigation():
        page.keyboard.press("Enter")


def test_a_reviewer_confirms_one_flag_and_dismisses_another_on_the_keyboard(
    page, live_server, flagged
):
    log_in(page, live_server, "memory-reviewer")
    page.goto(f"{live_server.url}/audit/hygiene/?status=open")
    rows = page.get_by_test_id("hygiene-flag-row")
    assert rows.count() == flagged["open"] >= 2

    open_flag_by_keyboard(page, EMAIL)
    decide_by_keyboard(page, "Confirm: the text must be rewritten")
    success = page.locator(".alert-success").inner_text()
    assert "Decision recorded: confirmed: to be rewritten." in success
    assert page.get_by_test_id("hygiene-flag-row").count() == flagged["open"] - 1
    assert row_of(page, EMAIL).count() == 0

    open_flag_by_keyboard(page, PHONE)
    # Dismissing without a reason is refused, with the field named; nothing recorded.
    decide_by_keyboard(page, "Dismiss: the text is fine")
    assert "Say why the flagged text is fine" in page.content()
    flagged["phone"].refresh_from_db()
    assert flagged["phone"].status == HygieneFlag.Status.OPEN
    decide_by_keyboard(page, "Dismiss: the text is fine", "A made-up number of a drama line.")
    assert "Decision recorded: dismissed as fine." in page.locator(".alert-success").inner_text()
    assert page.get_by_test_id("hygiene-flag-row").count() == flagged["open"] - 2

    # The whole list shows what happened to each.
    page.goto(f"{live_server.url}/audit/hygiene/?status=all")
    assert "Confirmed: to be rewritten" in row_of(page, EMAIL).inner_text()
    assert "Dismissed as fine" in row_of(page, PHONE).inner_text()
    decisions = HygieneDecision.objects.order_by("pk")
    assert [(d.flag_id, d.decision) for d in decisions] == [
        (flagged["email"].pk, HygieneDecision.Decision.CONFIRM),
        (flagged["phone"].pk, HygieneDecision.Decision.DISMISS),
    ]
    assert decisions[1].reason == "A made-up number of a drama line."
