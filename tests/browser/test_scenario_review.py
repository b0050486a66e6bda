"""The two-pass scenario review walked in Chromium: a flag and a consensus revision both
reviewers approve, blind independent ratings, a >1-point disagreement and its joint
re-assessment (one reviewer proposes, the other confirms), then the coverage table."""

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from annotation.scenario_review.models import ScenarioReview
from core.roles import Role
from tests.browser.actions import submit
from tests.factories import ScenarioFactory, UserFactory

from .test_login import log_in

pytestmark = pytest.mark.browser

FIRST = dict(
    duty=5, intellect=3, adversity=6, mating=1, positivity=2, negativity=6, deception=2, sociality=5
)
SECOND = dict(FIRST, adversity=3, duty=4)  # adversity 6 vs 3: re-assessment; duty 5 vs 4: rule
LABELS = dict(
    duty="Duty",
    intellect="Intellect",
    adversity="Adversity",
    mating="Mating",
    positivity="Positivity",
    negativity="Negativity",
    deception="Deception",
    sociality="Sociality",
)


@pytest.fixture
def people(transactional_db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    ScenarioFactory(scenario_id="SCN_SCHOOL_AGE_1", name="The Entrusted Caretaker")
    UserFactory(username="reviewer-a", roles=[Role.SCENARIO_REVIEWER])
    UserFactory(username="reviewer-b", roles=[Role.SCENARIO_REVIEWER])


def switch_to(page, live_server, username):
    if page.get_by_role("button", name="Log out").count():
        page.get_by_role("button", name="Log out").click()
        page.wait_for_url("**/accounts/login/")
    log_in(page, live_server, username)
    page.goto(f"{live_server.url}/review/scenarios/")
    page.get_by_role("link", name="The Entrusted Caretaker").click()
    page.wait_for_url("**/review/scenarios/SCN_SCHOOL_AGE_1/")


def approve(page):
    form = page.locator("#screening-form")
    form.get_by_label("Approve").check()
    form.get_by_label("Logically consistent").check()
    form.get_by_label("Psychologically plausible").check()
    form.get_by_label("Character-agnostic", exact=False).check()
    submit(page, form.get_by_role("button", name="Record my decision"))


def rate(page, scores):
    """By keyboard only: each dimension is a 1–7 radio group; a digit picks the point,
    Tab moves on to the next dimension."""
    form = page.locator("#rating-form")
    form.get_by_role("group", name="Duty").get_by_role("radio").first.focus()
    for field, value in scores.items():
        assert page.evaluate("document.activeElement.name") == field
        page.keyboard.press(str(value))
        page.keyboard.press("Tab")
    for field, value in scores.items():
        group = form.get_by_role("group", name=LABELS[field])
        assert group.get_by_role("radio", name=str(value), exact=True).is_checked()
    submit(page, form.get_by_role("button", name="Submit my ratings"))


def test_two_pass_review_with_a_joint_reassessment(page, live_server, people):
    # Pass 1: A flags, B proposes the consensus revision, both approve it.
    switch_to(page, live_server, "reviewer-a")
    form = page.locator("#screening-form")
    form.get_by_label("Flag for revision").check()
    form.get_by_label("Note").fill("Nothing forces a decision now.")
    submit(page, form.get_by_role("button", name="Record my decision"))
    assert (
        "flagged, awaiting a consensus revision" in page.get_by_test_id("review-stage").inner_text()
    )

    switch_to(page, live_server, "reviewer-b")
    page.get_by_role("link", name="Propose the consensus revision").click()
    revise = page.locator("#scenario-content-form")
    revise.get_by_label("Action required").fill("Decide before your mom's car pulls away.")
    revise.get_by_label("What this version changes", exact=False).fill("Added urgency.")
    revise.get_by_role("button", name="Propose this revision").click()
    page.wait_for_url("**/review/scenarios/SCN_SCHOOL_AGE_1/")
    assert "version under review: v2" in page.get_by_test_id("review-stage").inner_text()
    approve(page)
    assert "waiting for the other reviewer" in page.content()

    switch_to(page, live_server, "reviewer-a")
    approve(page)
    assert "Pass 2" in page.get_by_test_id("review-stage").inner_text()

    # Pass 2: A rates; B sees nothing of it until B has submitted.
    rate(page, FIRST)
    expect(page.get_by_test_id("awaiting-other")).to_be_visible()
    switch_to(page, live_server, "reviewer-b")
    assert page.get_by_test_id("ratings-table").count() == 0
    assert "reviewer-a" not in page.locator("#pass2-h").locator("..").locator("..").inner_text()
    api = page.request.get(f"{live_server.url}/api/review/scenarios/SCN_SCHOOL_AGE_1/").json()
    assert api["ratings"] == []
    rate(page, SECOND)
    table = page.get_by_test_id("ratings-table")
    assert table.locator('[data-rater="reviewer-a"]').count() == 1
    flagged = table.locator("tr[data-reassess]")
    assert flagged.count() == 1 and flagged.get_attribute("data-dimension") == "adversity"

    # The joint re-assessment: B proposes the agreed value, which waits for A's confirmation.
    reassess = page.locator("#reassessment-form")
    # The agreed value on the same 1–7 scale as the ratings (no free number box).
    agreed = reassess.get_by_role("group", name="Agreed Adversity")
    assert "Rated 6 and 3" in agreed.inner_text()
    agreed.get_by_text("5", exact=True).click()
    assert agreed.get_by_role("radio", name="5", exact=True).is_checked()
    reassess.get_by_label("How the reviewers agreed").fill("Discussed: the loss is real but small.")
    submit(page, reassess.get_by_role("button", name="Propose these final ratings"))
    state = page.get_by_test_id("reassessment-state")
    assert "Proposed by reviewer-b" in state.inner_text()
    assert "Waiting for reviewer-a to confirm" in state.inner_text()
    assert page.get_by_test_id("final-recorded").count() == 0
    assert ScenarioReview.objects.get().stage == "reassessment"

    switch_to(page, live_server, "reviewer-a")
    assert "Waiting for you to confirm" in page.get_by_test_id("reassessment-state").inner_text()
    submit(
        page,
        page.locator("#confirm-form").get_by_role("button", name="Confirm these final ratings"),
    )
    expect(page.get_by_test_id("final-recorded")).to_be_visible()
    assert (
        "proposed by reviewer-b, confirmed by reviewer-a"
        in page.get_by_test_id("final-recorded").inner_text()
    )
    row = page.locator('tr[data-dimension="adversity"] td').last
    assert row.inner_text() == "5"
    assert page.locator('tr[data-dimension="duty"] td').last.inner_text() == "4"
    review = ScenarioReview.objects.get()
    assert review.stage == "complete" and review.final.adversity == 5

    # Coverage: the final ratings, each row summing to the one reviewed scenario.
    page.get_by_role("link", name="Coverage").click()
    dist = page.get_by_test_id("diamonds-distribution")
    assert dist.locator('tr[data-dimension="adversity"] td').nth(4).inner_text() == "1"
    totals = dist.locator("td[data-total]").all_inner_texts()
    assert totals == ["1"] * 8
    expect(page.get_by_test_id("diamonds-chart")).to_be_visible()
    with page.expect_download() as download:
        page.locator("a[href$='diamonds.csv']").click()
    assert download.value.suggested_filename == "diamonds_final_ratings.csv"
