"""The memory audit's manual review queue walked in Chromium: a memory reviewer confirms
one flagged memory and agrees that another is a false positive (reason required), which
takes effect once the team of three has agreed; the senior expert edits the confirmed
one with a diff preview, and the re-audit passes."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from audit.memory_quality.models import MemoryCase
from audit.memory_quality.services.review import case_review_decide
from audit.memory_quality.services.runs import audit_run_execute, audit_run_start
from core.roles import Role
from tests.browser.confirming import submit_and_confirm
from tests.factories import CharacterFactory, UserFactory
from tests.memory_quality.conftest import CLEAN, DRIFT, hand_written

from .test_login import log_in

pytestmark = pytest.mark.browser
User = get_user_model()


@pytest.fixture
def flagged(transactional_db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    admin = UserFactory(username="audit-admin", roles=[Role.ADMIN])
    for name in ("memory-reviewer", "memory-reviewer-2", "memory-reviewer-3"):
        UserFactory(username=name, roles=[Role.MEMORY_REVIEWER])
    UserFactory(username="senior", roles=[Role.ARBITRATOR])
    char = CharacterFactory(key="CHAR_01")
    confirm = hand_written(char, sequence=1, event_age=20, content_full=DRIFT)
    override = hand_written(
        char,
        sequence=2,
        event_age=35,
        content_full='"Years later," my friend read aloud from the novel, and I laughed. ' + CLEAN,
    )
    run = audit_run_start(created_by=admin)
    audit_run_execute(run_id=run.pk)
    return {"confirm": confirm, "override": override}


def open_case(page, memory):
    """The queue names a memory by its summary, not its id: open it by its row."""
    case = MemoryCase.objects.get(memory=memory)
    page.locator(f'tr[data-case="{case.pk}"]').get_by_role("link").click()


def log_out(page):
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url("**/accounts/login/")


def test_confirm_senior_edit_re_audit_and_false_positive(page, live_server, flagged):
    confirm, override = flagged["confirm"], flagged["override"]
    log_in(page, live_server, "memory-reviewer")
    page.get_by_test_id("queue-memory_audit").click()
    page.wait_for_url("**/audit/?status=review")
    assert page.get_by_test_id("case-queue").locator("tbody tr").count() == 2

    # Confirm the drift: the evidence is highlighted in the narrative.
    open_case(page, confirm)
    evidence = page.get_by_test_id("evidence")
    assert evidence.first.inner_text() == "Years later"
    assert "repair" in page.content().lower()
    page.get_by_label("Confirm the defect").check()
    submit_and_confirm(page, page.get_by_role("button", name="Record my decision"))
    assert "awaiting the senior" in page.get_by_test_id("case-status").inner_text()

    # Override the quoted novel line as a false positive: a reason is required.
    page.goto(f"{live_server.url}/audit/?status=review")
    open_case(page, override)
    page.get_by_label("False positive", exact=False).check()
    submit_and_confirm(page, page.get_by_role("button", name="Record my decision"))
    assert "Say why the flag is a false positive" in page.content()
    page.get_by_label("Reason").fill("The marker is a line read aloud from a novel.")
    submit_and_confirm(page, page.get_by_role("button", name="Record my decision"))
    # The override takes effect once the team of three has agreed, each on their own.
    assert page.get_by_test_id("case-status").inner_text() == "Awaiting memory reviewer"
    assert page.get_by_test_id("agreements-needed").inner_text() == "2 more"
    assert "memory-reviewer" in page.get_by_test_id("agreement").first.inner_text()
    for name in ("memory-reviewer-2", "memory-reviewer-3"):
        case_review_decide(
            case_id=MemoryCase.objects.get(memory=override).pk,
            reviewer=User.objects.get(username=name),
            decision="false_positive",
            reason="A quoted line, not the narrator's later knowledge.",
        )
    page.reload()
    assert page.get_by_test_id("case-status").inner_text() == "Accepted as false positive"
    assert page.get_by_test_id("agreement").count() == 3
    log_out(page)

    # The senior expert edits the confirmed memory, previews the diff, saves.
    log_in(page, live_server, "senior")
    page.get_by_test_id("queue-memory_senior_edit").click()
    open_case(page, confirm)
    narrative = page.get_by_label("Full account")
    narrative.fill(CLEAN)
    page.get_by_role("button", name="Preview the diff").click()
    diff = page.locator("#diff-preview").get_by_test_id("memory-diff")
    diff.wait_for()
    assert "Years later" in diff.locator("tbody del").first.inner_text()
    assert page.get_by_test_id("case-status").inner_text().startswith("Confirmed")
    submit_and_confirm(page, page.get_by_role("button", name="Save and re-audit"))
    assert page.get_by_test_id("case-status").inner_text() == "Revised by the senior expert"
    assert "passed the re-audit" in page.content()
    page.get_by_test_id("no-current-flags").wait_for()
    assert page.get_by_test_id("memory-diff").count() == 1  # the last edit, as a diff

    statuses = dict(MemoryCase.objects.values_list("memory_id", "status"))
    assert statuses == {
        confirm.pk: MemoryCase.Status.REVISED,
        override.pk: MemoryCase.Status.FALSE_POSITIVE,
    }
    confirm.refresh_from_db()
    assert confirm.content_full == CLEAN
