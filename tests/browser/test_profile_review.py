"""The profile review walked in Chromium: three reviews (one with a field-level change
request made by selecting text, one typed by hand), the senior's edit with its diff, the
change request resolved, and the freeze."""

import pytest
from django.contrib.auth.models import Group

from annotation.corpus.models import FrozenVersionError, ProfileVersion
from annotation.profile_review.models import ChangeRequest, ProfileReviewCase
from core.roles import Role
from tests.browser.actions import submit
from tests.browser.confirming import submit_and_confirm
from tests.factories import CharacterFactory, ProfileVersionFactory, UserFactory

from .test_login import log_in

pytestmark = pytest.mark.browser


@pytest.fixture
def people(transactional_db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    ProfileVersionFactory(character=CharacterFactory(key="CHAR_01"), number=1)
    for i in (1, 2, 3):
        UserFactory(username=f"annotator-{i}", roles=[Role.PRIMARY_ANNOTATOR])
    UserFactory(username="senior", roles=[Role.ARBITRATOR])


def switch_to(page, live_server, username):
    if page.get_by_role("button", name="Log out").count():
        page.get_by_role("button", name="Log out").click()
        page.wait_for_url("**/accounts/login/")
    log_in(page, live_server, username)


def select_text(page, field, text):
    """Select ``text`` inside a profile field as a mouse drag would, then release."""
    page.evaluate(
        """([field, text]) => {
            const el = document.querySelector(`[data-profile-field="${field}"]`);
            const node = el.firstChild;
            const start = node.textContent.indexOf(text);
            const range = document.createRange();
            range.setStart(node, start);
            range.setEnd(node, start + text.length);
            const sel = window.getSelection();
            sel.removeAllRanges();
            sel.addRange(range);
        }""",
        [field, text],
    )
    page.locator(f'[data-profile-field="{field}"]').dispatch_event("mouseup")


def judge_all_criteria(page):
    for label in (
        "Trait alignment",
        "Internal coherence",
        "Occupational plausibility",
        "Behavioral specificity",
        "Interpretive restraint",
    ):
        group = page.locator(
            f"fieldset:has(legend:text-is('{label}')), div:has(> label:text-is('{label}'))"
        ).first
        group.get_by_label("Meets the criterion").check()


def review(page, live_server, username, recommendation):
    switch_to(page, live_server, username)
    page.goto(f"{live_server.url}/review/profiles/")
    page.get_by_role("link", name="Review Character 1").click()
    page.wait_for_url("**/review/profiles/CHAR_01/")
    judge_all_criteria(page)
    page.get_by_label(recommendation).check()
    submit(page, page.get_by_role("button", name="Submit review"))
    assert "Review of CHAR_01 submitted." in page.locator(".alert-success").inner_text()


def test_three_reviews_then_the_senior_edits_and_freezes(page, live_server, people):
    switch_to(page, live_server, "annotator-1")
    page.goto(f"{live_server.url}/review/profiles/CHAR_01/")
    assert page.get_by_test_id("trait-anchor").inner_text() == "N high"
    # Selecting a passage fills the field and the passage of a new change request.
    select_text(page, "description", "reads every situation")
    form = page.locator("#change-request-form")
    assert form.get_by_label("Passage").input_value() == "reads every situation"
    assert form.get_by_label("Field").input_value() == "description"
    form.get_by_label("Concern").fill("Categorical: states vigilance as constant.")
    form.get_by_label("Suggested correction").fill("tends to read situations")
    form.get_by_role("button", name="Add change request").press("Enter")
    page.locator("[data-change-request]").wait_for()  # swapped in by htmx, no reload
    assert page.get_by_test_id("own-request-count").inner_text() == "1"
    judge_all_criteria(page)
    page.get_by_label("Local revision needed").check()
    submit(page, page.get_by_role("button", name="Submit review"))
    assert "submitted" in page.get_by_test_id("review-closed").inner_text()

    # The second reviewer types a passage by hand (no selection) and sees no other review.
    switch_to(page, live_server, "annotator-2")
    page.goto(f"{live_server.url}/review/profiles/CHAR_01/")
    assert "Categorical: states vigilance" not in page.content()
    form = page.locator("#change-request-form")
    form.get_by_label("Field").select_option("core_pattern_2")
    form.get_by_label("Passage").fill("observable habit 2")
    form.get_by_label("Concern").fill("Vague label.")
    form.get_by_label("Suggested correction").fill("Name the situation.")
    form.get_by_role("button", name="Add change request").press("Enter")
    page.locator("[data-change-request]").wait_for()
    judge_all_criteria(page)
    page.get_by_label("Local revision needed").check()
    submit(page, page.get_by_role("button", name="Submit review"))

    review(page, live_server, "annotator-3", "Acceptable as-is")
    assert ProfileReviewCase.objects.get().status == "adjudicating"

    # The senior expert: reviews side by side, an edit with its diff, resolve, freeze.
    switch_to(page, live_server, "senior")
    page.goto(f"{live_server.url}/review/profiles/")
    page.get_by_role("link", name="Adjudicate Character 1").click()
    side = page.get_by_test_id("reviews-side-by-side")
    for name in ("annotator-1", "annotator-2", "annotator-3"):
        assert name in side.inner_text()
    assert page.get_by_test_id("open-requests").inner_text() == "2"
    edit = page.locator("#profile-edit-form")
    description = edit.get_by_label("Description")
    description.fill(
        description.input_value().replace("reads every situation", "tends to read situations")
    )
    edit.get_by_label("Neuroticism (N)").fill("0.90")
    submit(page, edit.get_by_role("button", name="Save as the next version"))
    assert "I confirm changing the anchor trait score" in page.locator(".alert").first.inner_text()
    assert ProfileVersion.objects.count() == 1
    edit = page.locator("#profile-edit-form")
    edit.get_by_label("Neuroticism (N)").fill("0.95")
    edit.get_by_label("Core pattern 2").fill("pattern 2: names the situation before acting")
    edit.get_by_role("button", name="Save as the next version").click()
    page.wait_for_url("**/edits/*/")
    diff = page.get_by_test_id("profile-diff")
    assert diff.locator("tbody del").first.inner_text().strip() == "reads every situation"
    assert "tends to read situations" in diff.locator("tbody ins").first.inner_text()
    assert diff.locator('[data-diff-field="core_pattern_2"]').count() == 1
    page.get_by_role("link", name="Back to the adjudication").click()

    requests = list(ChangeRequest.objects.order_by("pk"))
    page.locator(f"#resolve-{requests[0].pk}").get_by_label("Accept").check()
    # Enter on the button submits; htmx swaps the request in place.
    page.locator(f"#resolve-{requests[0].pk}").get_by_role("button", name="Resolve").press("Enter")
    page.locator(f'#change-request-{requests[0].pk}[data-status="accepted"]').wait_for()
    # Freezing with a request still open is refused.
    page.locator("#freeze-form").get_by_label("Final suitability check", exact=False).check()
    submit_and_confirm(page, page.get_by_role("button", name="Freeze this version"))
    assert "1 change request is still open" in page.locator(".alert").first.inner_text()
    resolve = page.locator(f"#resolve-{requests[1].pk}")
    resolve.get_by_label("Accept").check()
    resolve.get_by_role("button", name="Resolve").press("Enter")
    page.locator(f'#change-request-{requests[1].pk}[data-status="accepted"]').wait_for()
    page.locator("#freeze-form").get_by_label("Final suitability check", exact=False).check()
    submit_and_confirm(page, page.get_by_role("button", name="Freeze this version"))
    assert "v2 is frozen" in page.locator(".alert-success").inner_text()
    assert "frozen" in page.get_by_test_id("case-status").inner_text()
    assert page.locator("#profile-edit-form").count() == 0

    v2 = ProfileVersion.objects.get(number=2)
    assert v2.is_frozen and "tends to read situations" in v2.description
    v2.description = "changed later"
    with pytest.raises(FrozenVersionError):
        v2.save()
    # The annotators now see the adjudicated reviews.
    switch_to(page, live_server, "annotator-3")
    page.goto(f"{live_server.url}/review/profiles/CHAR_01/")
    assert (
        "Categorical: states vigilance" in page.get_by_test_id("adjudicated-reviews").inner_text()
    )
