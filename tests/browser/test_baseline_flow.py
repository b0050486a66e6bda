"""The human baseline walked in Chromium (seed 000 App. J): a participant joins through
the invitation link, consents, reads the briefing, does a practice item (with feedback),
answers items (saved as chosen, and again after a lost connection), revises one through
the navigator, searches the memories, logs out, comes back to find everything as left,
and finalizes. Leaving an item sends exactly one time-on-task report. Finalizing and
closing a study both ask first."""

import pytest
from django.contrib.auth.models import Group

from core.roles import Role
from humanbaseline.models import AnswerEvent, ItemResponse, Participation, TimeReport
from tests.factories import UserFactory
from tests.humanbaseline.conftest import enrol, make_study

from .test_login import log_in

pytestmark = pytest.mark.browser
PASSWORD = "a-long-study-password-42"


@pytest.fixture
def study(transactional_db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    study, _, _ = make_study(n_items=3, n_practice=1, n_characters=4)
    return study


def choose(page, letter):
    page.locator(f'#answer-form label[for="choice-{letter}"]').click()
    page.get_by_test_id("save-status").filter(has_text=f"Saved {letter}").wait_for()


def test_participant_consents_practises_answers_revises_resumes_and_finalizes(
    page, live_server, study
):
    page.goto(f"{live_server.url}/baseline/join/{study.invitation_token}/")
    page.get_by_label("Username").fill("undergrad-1")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Create my account").click()

    page.wait_for_url("**/consent/")
    assert "You may stop at any time" in page.get_by_test_id("consent-text").inner_text()
    page.get_by_role("button", name="I have read the text and agree").click()
    p = Participation.objects.get(user__username="undergrad-1")
    assert p.status == "consented" and p.consent_version == "v1" and p.consent_decided_at

    page.wait_for_url("**/briefing/")
    page.get_by_role("button", name="Continue to the practice items").click()
    page.wait_for_url("**/practice/1/")
    page.get_by_text("practice only, not counted").wait_for()
    page.locator('#practice-form label[for="choice-B"]').click()
    page.get_by_role("button", name="Check my answer").click()
    feedback = page.get_by_test_id("practice-feedback")
    feedback.wait_for()
    assert "You chose B. The expected answer is" in feedback.inner_text()

    # Time-on-task reports as the server received them, per item: each names itself, so
    # a page that sent one twice on leaving would show two. (A beacon sent while a page
    # unloads raises no Playwright "request" event, so they are counted here.)
    def reports(position, expected):
        for _ in range(50):  # a beacon may land just after the next page's round trip
            n = TimeReport.objects.filter(
                response__participation=p, response__position=position
            ).count()
            if n >= expected:
                break
            page.wait_for_timeout(100)
        return n

    page.get_by_role("button", name="Start the study").click()
    page.wait_for_url("**/items/1/")
    assert page.get_by_test_id("progress-text").inner_text() == "0 of 3 answered"
    # The memories: search narrows them and says how many match.
    page.get_by_label("Search the memories").fill("Narrative 2")
    assert "1 of 4 memories" in page.locator("[data-memory-count]").inner_text()
    page.get_by_role("button", name="Collapse all").click()
    assert page.locator("[data-memory] details[open]").count() == 0
    page.get_by_role("button", name="Expand all").click()
    assert page.locator("[data-memory] details[open]").count() == 4

    choose(page, "A")
    assert page.get_by_test_id("progress-text").inner_text() == "1 of 3 answered"
    assert page.get_by_test_id("progress-bar").get_attribute("aria-valuenow") == "1"
    assert ItemResponse.objects.get(participation=p, position=1).choice == "A"
    page.locator('[data-nav="next"]').click()
    page.wait_for_url("**/items/2/")
    page.keyboard.press("c")  # keyboard choice
    page.get_by_test_id("save-status").filter(has_text="Saved C").wait_for()
    # Item 1: the save of A carried one report, leaving it sent one more (pagehide and
    # the hidden page's visibilitychange used to send one each).
    assert reports(1, 2) == 2

    # Revise item 1 through the navigator.
    page.locator("summary", has_text="Go to another item").click()
    page.locator('#baseline-navigator [data-nav-position="1"]').click()
    page.wait_for_url("**/items/1/")
    assert page.locator("#choice-A").is_checked()
    choose(page, "D")
    assert reports(2, 2) == 2  # the save of C, then the leave through the navigator
    first = ItemResponse.objects.get(participation=p, position=1)
    assert (first.choice, first.revisions) == ("D", 1)
    assert list(AnswerEvent.objects.filter(response=first).values_list("choice", flat=True)) == [
        "A",
        "D",
    ]

    page.locator("summary", has_text="Go to another item").click()
    page.locator('#baseline-navigator [data-nav-position="3"]').click()
    page.wait_for_url("**/items/3/")
    assert reports(1, 4) == 4  # the second visit: the save of D, then the leave
    assert reports(2, 2) == 2  # and nothing more arrived late for item 2

    page.get_by_role("button", name="Log out").click()
    page.wait_for_url("**/accounts/login/**")
    log_in(page, live_server, "undergrad-1", PASSWORD)
    page.goto(f"{live_server.url}/baseline/")
    page.get_by_role("link", name="Continue").click()
    page.wait_for_url("**/items/3/")  # the first unanswered item
    page.locator('[data-nav-position="1"]').first.wait_for(state="attached")
    page.goto(f"{live_server.url}/baseline/s/{study.pk}/items/1/")
    assert page.locator("#choice-D").is_checked()
    page.goto(f"{live_server.url}/baseline/s/{study.pk}/items/2/")
    assert page.locator("#choice-C").is_checked()

    # A lost connection: the choice is kept on the page and sent again once it is back.
    page.goto(f"{live_server.url}/baseline/s/{study.pk}/items/3/")
    page.context.set_offline(True)
    page.locator('#answer-form label[for="choice-B"]').click()
    page.get_by_test_id("save-status").filter(has_text="connection was lost").wait_for()
    assert ItemResponse.objects.get(participation=p, position=3).choice == ""
    page.context.set_offline(False)
    page.get_by_test_id("save-status").filter(has_text="Saved B").wait_for()
    assert ItemResponse.objects.get(participation=p, position=3).choice == "B"
    with page.expect_navigation():  # the page and its scripts loaded before "Finalize"
        page.get_by_role("link", name="Review and finalize").click()
    page.get_by_role("button", name="Finalize my answers").click()
    page.get_by_test_id("confirm-yes").click()  # the confirmation; test_study_comfort has more
    assert "You finalized your answers" in page.get_by_test_id("finalized").inner_text()
    p.refresh_from_db()
    assert p.status == "finalized"
    assert [
        r.choice for r in ItemResponse.objects.filter(participation=p).order_by("position")
    ] == [
        "D",
        "C",
        "B",
    ]
    # After finalizing, the item page shows the answer but can no longer change it.
    page.goto(f"{live_server.url}/baseline/s/{study.pk}/items/1/")
    assert page.locator("#choice-A").is_disabled()
    # Time on task was recorded on the way.
    assert p.sessions.count() >= 1


def test_finalizing_asks_first_and_escape_changes_nothing(page, live_server, study):
    p = enrol(study, "reader-3")
    p.responses.update(choice="A")
    log_in(page, live_server, p.user.get_username())
    page.goto(f"{live_server.url}/baseline/s/{study.pk}/finalize/")

    page.get_by_role("button", name="Finalize my answers").click()
    message = page.get_by_test_id("confirm-message")
    message.wait_for()
    assert "cannot be undone" in message.inner_text()
    assert "3 items" in message.inner_text()
    page.keyboard.press("Escape")
    message.wait_for(state="hidden")
    p.refresh_from_db()
    assert p.status == Participation.Status.STARTED and p.finalized_at is None

    # The keyboard alone: the finalize button has the focus back; Enter opens the
    # dialog, whose confirm button has the focus, and Enter confirms.
    assert page.evaluate("document.activeElement.textContent") == "Finalize my answers"
    page.keyboard.press("Enter")
    message.wait_for()
    assert page.get_by_test_id("confirm-yes").inner_text() == "Finalize"
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "You finalized your answers" in page.get_by_test_id("finalized").inner_text()
    p.refresh_from_db()
    assert p.status == Participation.Status.FINALIZED


def test_closing_a_study_asks_the_admin_first(page, live_server, study):
    UserFactory(username="admin-close", roles=[Role.ADMIN])
    log_in(page, live_server, "admin-close")
    page.goto(f"{live_server.url}/baseline/admin/studies/{study.pk}/")
    page.get_by_role("button", name="Close the study").click()
    message = page.get_by_test_id("confirm-message")
    assert "until you reopen it" in message.inner_text()
    page.keyboard.press("Escape")
    message.wait_for(state="hidden")
    study.refresh_from_db()
    assert study.status == "open"
    page.get_by_role("button", name="Close the study").click()
    with page.expect_navigation():
        page.get_by_test_id("confirm-yes").click()
    study.refresh_from_db()
    assert study.status == "closed"
