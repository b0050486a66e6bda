"""Forms that keep a person's work, walked in Chromium at 1280 × 800 (issue 21): the
profile review, the DIAMONDS ratings, the senior's memory edit and the item-review revise
form save themselves on the server and survive a reload; the DIAMONDS scales work by
keyboard alone; the decision controls stay beside the material they decide on; and each
final action asks first (Escape records nothing, confirming records)."""

import re

import pytest
from django.contrib.auth.models import Group

from adjudication.mcq.models import McqItem
from adjudication.mcq.services import item_assembly
from annotation.corpus.models import ProfileVersion
from annotation.profile_review.models import ProfileReviewCase
from audit.memory_quality.models import MemoryCase
from audit.memory_quality.services.runs import audit_run_execute, audit_run_start
from audit.reference_labels import services as label_services
from audit.reference_labels.models import LabelAuditItem, LabelSelection
from core.drafts import FormDraft
from core.roles import Role
from tests.browser.actions import in_viewport, keep_screenshot
from tests.browser.confirming import open_confirmation, submit_and_confirm
from tests.factories import CharacterFactory, ProfileVersionFactory, ScenarioFactory, UserFactory
from tests.mcq.conftest import flag, scenario_with_references
from tests.memory_quality.conftest import CLEAN, DRIFT, hand_written
from tests.reference_labels.conftest import make_team, small_final_set
from tests.review.conftest import approve, submit

from .test_login import log_in

pytestmark = pytest.mark.browser

SAVED = re.compile(r"Draft saved \d\d:\d\d")
NOT_SAVED = "Not saved yet — changes save automatically."


@pytest.fixture
def groups(transactional_db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)


def wait_saved(page, **expected):
    """Wait for the status line to say so, and for the server's draft to hold
    ``expected`` (field → value): typing saves after a pause, so an earlier save of the
    same form may have answered first."""
    status = page.get_by_test_id("autosave-status")
    status.filter(has_text=SAVED).wait_for()
    # Up to 30 s, Playwright's own default: on a loaded machine the later saves queue
    # behind the first.
    for _ in range(300):
        drafts = [d.data for d in FormDraft.objects.all()]
        if not expected or any(expected.items() <= data.items() for data in drafts):
            return
        page.wait_for_timeout(100)
    raise AssertionError(
        f"no draft holds {expected}: {drafts}; the status line says {status.inner_text()!r}"
    )


def cancel_confirmation(page, button):
    """Open the confirmation, read it, press Escape: the dialog closes, nothing is sent."""
    message = open_confirmation(page, button)
    page.keyboard.press("Escape")
    page.locator("#hb-confirm").wait_for(state="hidden")
    assert "cannot be undone" in message
    return message


def test_the_profile_review_autosaves_beside_the_profile(page, live_server, groups):
    ProfileVersionFactory(character=CharacterFactory(key="CHAR_01"), number=1)
    UserFactory(username="annotator", roles=[Role.PRIMARY_ANNOTATOR])
    log_in(page, live_server, "annotator")
    page.goto(f"{live_server.url}/review/profiles/CHAR_01/")
    assert page.get_by_test_id("autosave-status").inner_text() == NOT_SAVED

    # The review form and the specification are on screen together, and stay so while
    # the specification scrolls.
    form = page.locator("#profile-review-form")
    first_criterion = form.get_by_role("radio").first
    assert in_viewport(page, first_criterion)
    assert in_viewport(page, page.locator("[data-profile-field]").first)
    page.locator("[data-profile-field]").last.scroll_into_view_if_needed()
    assert in_viewport(page, form)
    keep_screenshot(page, "profile-review")

    form.get_by_label("Meets the criterion").first.check()
    form.get_by_label("Explanation").fill("Coherent, but the occupation reads thin.")
    wait_saved(page, explanation="Coherent, but the occupation reads thin.")
    page.reload()
    form = page.locator("#profile-review-form")
    assert form.get_by_label("Explanation").input_value() == (
        "Coherent, but the occupation reads thin."
    )
    assert form.get_by_label("Meets the criterion").first.is_checked()
    assert SAVED.search(page.get_by_test_id("autosave-status").inner_text())

    # Saving the review itself empties the draft: the saved review holds it now.
    with page.expect_navigation():
        form.get_by_role("button", name="Save draft").click()
    assert FormDraft.objects.count() == 0
    assert page.get_by_test_id("autosave-status").inner_text() == NOT_SAVED


def test_freezing_a_profile_asks_first(page, live_server, groups):
    version = ProfileVersionFactory(character=CharacterFactory(key="CHAR_01"), number=1)
    for i in (1, 2, 3):
        submit("CHAR_01", UserFactory(username=f"rev-{i}", roles=[Role.PRIMARY_ANNOTATOR]))
    UserFactory(username="senior", roles=[Role.ARBITRATOR])
    log_in(page, live_server, "senior")
    page.goto(f"{live_server.url}/review/profiles/CHAR_01/adjudicate/")
    freeze = page.locator("#freeze-form")
    freeze.get_by_label("Final suitability check", exact=False).check()
    button = freeze.get_by_role("button", name="Freeze this version")
    assert "frozen version cannot be edited" in cancel_confirmation(page, button)
    version.refresh_from_db()
    assert not version.is_frozen
    submit_and_confirm(page, button)
    assert ProfileVersion.objects.get(pk=version.pk).is_frozen
    assert ProfileReviewCase.objects.get().status == ProfileReviewCase.Status.FROZEN


def test_diamonds_ratings_are_keyboard_scales_that_autosave(page, live_server, groups):
    ScenarioFactory(scenario_id="SCN_SCHOOL_AGE_1")
    a = UserFactory(username="reviewer-a", roles=[Role.SCENARIO_REVIEWER])
    b = UserFactory(username="reviewer-b", roles=[Role.SCENARIO_REVIEWER])
    approve("SCN_SCHOOL_AGE_1", a)
    approve("SCN_SCHOOL_AGE_1", b)
    log_in(page, live_server, "reviewer-a")
    page.goto(f"{live_server.url}/review/scenarios/SCN_SCHOOL_AGE_1/")
    form = page.locator("#rating-form")
    assert page.get_by_test_id("autosave-status").inner_text() == NOT_SAVED
    duty = form.get_by_role("group", name="Duty")
    assert duty.get_by_role("radio").count() == 7
    assert "not present" in duty.inner_text() and "strongly present" in duty.inner_text()

    # Keyboard only: Tab into the scale, a digit picks a point, the arrows move along it,
    # Tab goes on to the next dimension.
    page.locator("#pass2-h").click()
    duty.get_by_role("radio").first.focus()
    page.keyboard.press("5")
    page.keyboard.press("ArrowRight")
    assert duty.get_by_role("radio", name="6", exact=True).is_checked()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.name") == "intellect"
    page.keyboard.press("2")
    wait_saved(page, duty="6", intellect="2")
    # Rating the last dimension, the scenario rated is still beside the scale.
    form.get_by_role("group", name="Sociality").scroll_into_view_if_needed()
    assert in_viewport(page, page.locator("#content-h"))
    keep_screenshot(page, "scenario-review")

    page.reload()
    form = page.locator("#rating-form")
    assert form.get_by_role("group", name="Duty").get_by_role("radio", name="6").is_checked()
    intellect = form.get_by_role("group", name="Intellect")
    assert intellect.get_by_role("radio", name="2", exact=True).is_checked()
    assert FormDraft.objects.get().key == "scenario-rating:SCN_SCHOOL_AGE_1"


@pytest.fixture
def flagged_memory(groups):
    admin = UserFactory(username="audit-admin", roles=[Role.ADMIN])
    UserFactory(username="memory-reviewer", roles=[Role.MEMORY_REVIEWER])
    UserFactory(username="senior", roles=[Role.ARBITRATOR])
    memory = hand_written(CharacterFactory(key="CHAR_01"), content_full=DRIFT)
    run = audit_run_start(created_by=admin)
    audit_run_execute(run_id=run.pk)
    return MemoryCase.objects.get(memory=memory)


def test_the_memory_audit_asks_before_deciding_and_keeps_the_senior_edit(
    page, live_server, flagged_memory
):
    case = flagged_memory
    log_in(page, live_server, "memory-reviewer")
    page.goto(f"{live_server.url}/audit/cases/{case.pk}/")
    # The flagged evidence and the decision on it are on screen together.
    assert in_viewport(page, page.get_by_test_id("evidence").first)
    assert in_viewport(page, page.get_by_label("Confirm the defect"))
    page.get_by_label("Confirm the defect").check()
    button = page.get_by_role("button", name="Record my decision")
    assert "senior expert" in cancel_confirmation(page, button)
    case.refresh_from_db()
    assert case.status == MemoryCase.Status.REVIEW and not case.decision
    submit_and_confirm(page, button)
    case.refresh_from_db()
    assert case.status == MemoryCase.Status.SENIOR
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url("**/accounts/login/")

    log_in(page, live_server, "senior")
    page.goto(f"{live_server.url}/audit/cases/{case.pk}/")
    assert page.get_by_test_id("autosave-status").inner_text() == NOT_SAVED
    page.get_by_label("Full account").fill(CLEAN + " Half-way through my edit.")
    page.get_by_label("Note on the edit").fill("Removed the later knowledge.")
    wait_saved(page, note="Removed the later knowledge.")
    page.reload()
    narrative = page.get_by_label("Full account")
    assert narrative.input_value().endswith("Half-way through my edit.")
    assert page.get_by_label("Note on the edit").input_value() == "Removed the later knowledge."
    narrative.scroll_into_view_if_needed()
    keep_screenshot(page, "memory-audit-case")

    # Saving asks first too; cancelling leaves the memory as it was.
    narrative.fill(CLEAN)
    save = page.get_by_role("button", name="Save and re-audit")
    cancel_confirmation(page, save)
    assert MemoryCase.objects.get(pk=case.pk).status == MemoryCase.Status.SENIOR
    submit_and_confirm(page, save)
    assert MemoryCase.objects.get(pk=case.pk).status == MemoryCase.Status.REVISED
    assert not FormDraft.objects.exists()


def test_the_label_audit_selection_asks_before_it_is_final(page, live_server, groups):
    team = make_team("kw")
    small_final_set(characters=1, stages=("school_age",), per_stratum=1)
    audit = label_services.label_audit_create(
        created_by=team["admin"],
        experts=team["experts"],
        adjudicator=team["adjudicator"],
        items_per_stratum=1,
        seed=9,
    )
    item = LabelAuditItem.objects.get(audit=audit)
    log_in(page, live_server, "kw-expert-1")
    page.goto(f"{live_server.url}/audit/labels/items/{item.pk}/")
    assert page.get_by_test_id("autosave-status").inner_text() == NOT_SAVED
    # The options decided on and the controls deciding are on screen together.
    assert in_viewport(page, page.get_by_test_id("option-A"))
    assert in_viewport(page, page.get_by_test_id("option-D"))
    assert in_viewport(page, page.get_by_label("Option A"))
    assert in_viewport(page, page.get_by_role("button", name="Submit my selection"))
    keep_screenshot(page, "label-audit-selection")

    page.get_by_role("heading", name="Options").click()
    page.keyboard.press("C")
    wait_saved(page)
    # Ctrl+Enter opens the confirmation, naming the option; Escape goes back.
    page.keyboard.press("Control+Enter")
    message = page.get_by_test_id("confirm-message")
    assert "Submit option C as your selection?" in message.inner_text()
    assert "cannot be undone" in message.inner_text()
    page.keyboard.press("Escape")
    page.locator("#hb-confirm").wait_for(state="hidden")
    assert LabelSelection.objects.get().submitted_at is None
    # Ctrl+Enter, then Enter, submits.
    page.keyboard.press("Control+Enter")
    message.wait_for()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    selection = LabelSelection.objects.get()
    assert selection.submitted_at is not None and selection.choice == "C"


@pytest.fixture
def flagged_items(groups):
    UserFactory(username="item-reviewer", roles=[Role.ARBITRATOR])
    return [
        flag(
            item_assembly.mcq_item_assemble(
                reference_id=scenario_with_references(n).pk, selector=False
            )
        )
        for n in (1, 2)
    ]


def test_item_review_keeps_the_revision_and_asks_before_removing(page, live_server, flagged_items):
    item = flagged_items[0]
    label = next(o.label for o in item.options.order_by("label") if not o.is_correct)
    log_in(page, live_server, "item-reviewer")
    page.goto(f"{live_server.url}/items/{item.pk}/")
    # The options under review and the review actions are on screen together.
    assert in_viewport(page, page.get_by_test_id(f"option-text-{label}"))
    assert in_viewport(page, page.get_by_test_id("form-revise").get_by_label("Distractor"))
    revise = page.get_by_test_id("form-revise")
    assert revise.get_by_test_id("autosave-status").inner_text() == NOT_SAVED
    revise.get_by_label("Distractor").select_option(label)
    revise.get_by_label("Revised text").fill("I water the plants at dawn, then")
    wait_saved(page, label=label, content="I water the plants at dawn, then")
    page.reload()
    revise = page.get_by_test_id("form-revise")
    assert revise.get_by_label("Revised text").input_value() == "I water the plants at dawn, then"
    assert revise.get_by_label("Distractor").input_value() == label
    revise.scroll_into_view_if_needed()
    keep_screenshot(page, "item-review")

    # The actions are disclosures, one open at a time.
    page.get_by_test_id("review-actions").locator("summary", has_text="Other decisions").click()
    decide = page.get_by_test_id("form-decide")
    decide.get_by_label("Decision").select_option("remove")
    decide.get_by_label("Note (required: say why)").fill("The scenario cannot separate these.")
    button = decide.get_by_role("button", name="Record decision")
    assert "Remove this item" in cancel_confirmation(page, button)
    assert McqItem.objects.get(pk=item.pk).status == McqItem.Status.FLAGGED
    submit_and_confirm(page, button)
    assert McqItem.objects.get(pk=item.pk).status == McqItem.Status.REMOVED
    assert not FormDraft.objects.exists()
