"""The reference-label audit walked in Chromium (seed 000 App. D.4): the admin creates
an audit and draws the sample; three experts select blind (keyboard, autosaved note,
resumable) and disagree on an item; the adjudicator sees the three selections, the
notes and the key, and changes the key, which makes a new item version to re-screen."""

import pytest
from django.contrib.auth.models import Group

from adjudication.mcq.models import McqItem, McqItemVersion
from audit.reference_labels import stored_reports as label_reports
from audit.reference_labels.models import LabelAudit, LabelAuditItem
from core.roles import Role
from tests.browser.actions import submit
from tests.browser.confirming import submit_and_confirm
from tests.reference_labels.conftest import make_team, small_final_set
from tests.stored_reports import computed

from .test_login import log_in

pytestmark = pytest.mark.browser


@pytest.fixture
def world(transactional_db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    team = make_team("pw")
    small_final_set(characters=1, stages=("school_age", "adolescence"), per_stratum=2)
    return team


def log_out(page):
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url("**/accounts/login/")


def other(key):
    return next(x for x in "ABCD" if x != key)


def test_three_experts_disagree_and_the_adjudicator_changes_the_key(page, live_server, world):
    # The admin creates the audit: one item per stratum, a recorded seed.
    log_in(page, live_server, "pw-admin")
    page.goto(f"{live_server.url}/audit/labels/new/")
    for i in (1, 2, 3):
        page.get_by_label(f"pw-expert-{i}").check()
    page.get_by_label("Audit adjudicator").select_option(label="pw-adjudicator")
    page.get_by_label("Items per character × life-stage stratum (k)").fill("1")
    page.get_by_label("Sampling seed").fill("31")
    submit(page, page.get_by_role("button", name="Check the team and draw the sample"))
    assert "2 items sampled" in page.content()
    assert "gives the same sample" in page.get_by_test_id("sample-summary").inner_text()
    log_out(page)

    audit = LabelAudit.objects.get()
    first = LabelAuditItem.objects.filter(audit=audit).order_by("position").first()
    key = first.item_version.correct_answer
    choices = {1: key, 2: other(key), 3: key}
    notes = {1: "Fits the cautious profile.", 2: "The keyed one sounds too bold.", 3: ""}

    for i in (1, 2, 3):
        log_in(page, live_server, f"pw-expert-{i}")
        page.goto(f"{live_server.url}/audit/labels/")
        submit(page, page.get_by_test_id(f"resume-{audit.pk}"))
        assert page.get_by_test_id("options").locator("li").count() == 4
        assert "Item 1 of 2" in page.content()
        if i == 2:
            # The keyboard picks an option; the note autosaves; leaving and coming back
            # finds both as they were.
            page.get_by_role("heading", name="Options").click()
            page.keyboard.press(choices[i])
            page.get_by_label("Note (optional)").fill(notes[i])
            page.get_by_test_id("autosave-status").filter(
                has_text=f": option {choices[i]}, note of {len(notes[i])} characters."
            ).wait_for()
            page.goto(f"{live_server.url}/audit/labels/")
            submit(page, page.get_by_test_id(f"resume-{audit.pk}"))
            assert page.get_by_label("Note (optional)").input_value() == notes[i]
            assert page.get_by_label(f"Option {choices[i]}").is_checked()
            # Ctrl+Enter asks first (naming the option); Enter confirms.
            page.get_by_label("Note (optional)").press("Control+Enter")
            message = page.get_by_test_id("confirm-message")
            assert f"Submit option {choices[i]} as your selection?" in message.inner_text()
            with page.expect_navigation():
                page.keyboard.press("Enter")
        else:
            page.get_by_label(f"Option {choices[i]}").check()
            page.get_by_label("Note (optional)").fill(notes[i])
            submit_and_confirm(page, page.get_by_role("button", name="Submit my selection"))
        assert "Selection recorded for item 1" in page.content()
        assert "Item 2 of 2" in page.content()  # on to the next unfinished item
        log_out(page)

    first.refresh_from_db()
    assert first.status == LabelAuditItem.Status.ADJUDICATING and first.n_on_key == 2

    log_in(page, live_server, "pw-adjudicator")
    page.goto(f"{live_server.url}/audit/labels/{audit.pk}/")
    submit(page, page.get_by_test_id("adjudication-queue").get_by_role("link"))
    assert page.get_by_test_id("key").inner_text() == key
    selections = page.get_by_test_id("selections").inner_text()
    assert notes[1] in selections and notes[2] in selections
    assert "pw-expert-2" in selections
    page.get_by_role("radio", name="Key change: another option is the reference").check()
    submit_and_confirm(page, page.get_by_role("button", name="Record the decision"))
    assert "Say why in the note" in page.content()  # nothing recorded, form kept
    page.get_by_role("radio", name="Key change: another option is the reference").check()
    page.get_by_label("New key (key change only)").select_option(other(key))
    page.get_by_label("Note", exact=True).fill("Expert 2 is right: the profile is cautious.")
    submit_and_confirm(page, page.get_by_role("button", name="Record the decision"))
    assert "Decision recorded." in page.content()
    assert "Key changed" in page.get_by_test_id("adjudication-queue").inner_text()

    computed(label_reports.KIND, str(audit.pk))  # as a worker would have
    page.goto(f"{live_server.url}/audit/labels/{audit.pk}/outcomes/")
    table = page.get_by_test_id("outcome-table")
    assert table.locator('[data-row="key_changed"] td').nth(1).inner_text() == "1"
    assert table.locator('[data-row="agree_2"] td').nth(2).inner_text() == "50.0"
    page.get_by_test_id("outcome-plot").wait_for()

    item = McqItem.objects.get(pk=first.item_id)
    assert item.correct_answer == other(key)
    assert item.status == McqItem.Status.SCREENING
    assert item.versions.order_by("-number").first().origin == McqItemVersion.Origin.LABEL_AUDIT
