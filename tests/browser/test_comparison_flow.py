"""The blinded comparison and arbitration walked in Chromium (seed 000 §2.4 Stage 2,
App. D.2): three annotators judge a pair (one asks for partial revisions, one uses the
keyboard), it escalates, the arbitrator edits a candidate with the diff previewed in
place and the reference appears with its provenance and edit rate; a unanimous pair is
adopted without arbitration; a flagged pair is discarded."""

import pytest
from playwright.sync_api import expect

from adjudication.arbitration.models import ArbitrationDecision, ReferenceResponse
from adjudication.arbitration.selectors import arbiter_order
from adjudication.arbitration.services import REFERENCE_TEXT_FIELDS, candidate_response_text
from agreement import word_edit_rate
from annotation.comparison.models import ComparisonPair, PairAssignment
from tests.browser.actions import submit
from tests.comparison.helpers import assign, judge, letter_for, make_pair, people

from .test_login import log_in

pytestmark = pytest.mark.browser


@pytest.fixture
def world(transactional_db):
    who = people()
    return who


def record_decision(page):
    """Press "Record decision" and confirm it in the dialog (a final action asks first)."""
    page.locator("#arbitration-form").get_by_role("button", name="Record decision").click()
    submit(page, page.get_by_test_id("confirm-yes"))


def switch_to(page, live_server, username):
    if page.get_by_role("button", name="Log out").count():
        page.get_by_role("button", name="Log out").click()
        page.wait_for_url("**/accounts/login/")
    log_in(page, live_server, username)


def open_pair(page, live_server, pair):
    page.goto(f"{live_server.url}/compare/")
    page.get_by_role("link", name=f"Compare {pair.title}").click()
    page.wait_for_url("**/compare/*/")


def judge_in_browser(
    page,
    live_server,
    annotator,
    pair,
    family,
    *,
    rating="Acceptable as-is",
    guidance="",
    flag_reason="",
    keyboard=False,
):
    switch_to(page, live_server, annotator.username)
    open_pair(page, live_server, pair)
    letter = letter_for(PairAssignment.objects.get(pair=pair, annotator=annotator), family)
    form = page.locator("#judgment-form")
    if flag_reason:
        form.get_by_label("Flag for arbitration", exact=True).check()
        form.get_by_label("Reason for the flag").fill(flag_reason)
    else:
        form.get_by_label("Suitable", exact=True).check()
    form.get_by_label("Persona consistency (note, optional)").fill("Consistent with pattern 3.")
    if keyboard:
        # The shortcuts act while the focus is in the form (or on the candidates).
        form.get_by_label("Suitable", exact=True).focus()
        page.keyboard.press(letter.lower())
        page.keyboard.press("1" if rating == "Acceptable as-is" else "2")
        assert form.get_by_label(f"Candidate {letter}", exact=True).is_checked()
        assert form.get_by_label(rating, exact=True).is_checked()
    else:
        form.get_by_label(f"Candidate {letter}", exact=True).check()
        form.get_by_label(rating, exact=True).check()
    form.get_by_label("Selection rationale").fill("Best grounded in the memories.")
    if guidance:
        form.get_by_label("Revision guidance").fill(guidance)
    # The draft autosaves (htmx) before anything is submitted.
    page.get_by_test_id("autosave-status").filter(has_text="Draft saved at ").wait_for()
    submit(page, form.get_by_role("button", name="Submit judgment"))
    saved = page.locator(".alert-success").inner_text()
    assert f"Submitted your judgment of {pair.title}." in saved


def test_escalation_then_the_arbitrator_edits_a_candidate(page, live_server, world):
    pair = make_pair(memories=5)
    annotators = world["annotators"]
    assign(pair, annotators, world["admin"])

    # The first annotator is told what the guideline requires, in its terms.
    switch_to(page, live_server, annotators[0].username)
    open_pair(page, live_server, pair)
    page.locator("#judgment-form").get_by_label("Suitable", exact=True).check()
    submit(page, page.locator("#judgment-form").get_by_role("button", name="Submit judgment"))
    assert "select the strongest candidate (A, B, or C)" in page.content()
    # Memories: collapsed, expandable (by keyboard too), searchable; a memory's text
    # loads when its panel opens.
    card = page.locator("[data-letter='A']")
    card.locator("details[data-memories] > summary").click()
    third = card.locator("li[data-memory]").nth(2)
    third.locator("summary").focus()
    page.keyboard.press("Enter")
    third.get_by_text("I remember the rain on the window. (3)").wait_for()
    card.get_by_role("searchbox").fill("(3)")
    assert card.locator("li[data-memory]:visible").count() == 1
    # The note of a panel not yet loaded is not searched.
    card.get_by_role("searchbox").fill("loading")
    assert card.locator("li[data-memory]:visible").count() == 0
    card.get_by_role("searchbox").fill("")

    judge_in_browser(page, live_server, annotators[0], pair, "claude", keyboard=True)
    judge_in_browser(
        page,
        live_server,
        annotators[1],
        pair,
        "claude",
        rating="Acceptable with partial revisions",
        guidance="Name the teacher, Ms. Lee.",
    )
    judge_in_browser(page, live_server, annotators[2], pair, "gpt")
    pair.refresh_from_db()
    assert pair.status == "escalated"

    switch_to(page, live_server, world["arbitrator"].username)
    page.goto(f"{live_server.url}/arbitration/")
    page.get_by_role("link", name=f"Arbitrate {pair.title}").click()
    assert "Name the teacher, Ms. Lee." in page.get_by_test_id("judgments").inner_text()
    number = [c.family for c in arbiter_order(pair, pair.candidates.all())].index("claude") + 1
    source = pair.candidates.get(family="claude")
    # "Edit candidate N" chooses the edit in place and fills in the candidate's text,
    # with the annotators' guidance at hand in the form.
    page.get_by_role("link", name=f"Edit candidate {number}").click()
    form = page.locator("#arbitration-form")
    assert form.get_by_label("Edit a candidate (using the annotators' guidance)").is_checked()
    assert form.get_by_label("Final decision").input_value() == source.final_decision
    guidance = f"{annotators[1].username}: Name the teacher, Ms. Lee."
    expect(form.get_by_label(guidance)).to_be_visible()  # "Guidance this edit follows"
    edited = "I stay behind and water Ms. Lee's plants before I leave with Mom."
    form.get_by_label("Final decision").fill(edited)
    form.get_by_role("button", name="Preview diff").click()  # in place: no navigation
    page.get_by_test_id("diff").wait_for()
    assert page.get_by_test_id("diff").locator("ins").count() >= 1
    record_decision(page)
    reference = page.get_by_test_id("reference")
    assert f"Edited by {world['arbitrator'].username}" in reference.inner_text()

    ref = ReferenceResponse.objects.get(character=pair.character, superseded_at__isnull=True)
    assert ref.decision_type == "edited" and ref.final_decision == edited
    assert ref.source_candidate == source and ref.source_family == "claude"
    assert ref.arbitrator == world["arbitrator"]
    expected = word_edit_rate(
        candidate_response_text(source),
        "\n".join(getattr(ref, f) for f in REFERENCE_TEXT_FIELDS),
    ).rate
    assert ref.word_edit_rate == pytest.approx(expected) and expected > 0
    assert page.get_by_test_id("edit-rate").inner_text() == f"{expected:.3f}"


def test_a_unanimous_pair_is_adopted_without_arbitration(page, live_server, world):
    pair = make_pair()
    assign(pair, world["annotators"], world["admin"])
    for annotator in world["annotators"]:
        judge_in_browser(page, live_server, annotator, pair, "gemini")
    # The last annotator has no other pair waiting: their queue, which says the pair closed.
    assert "No other pair awaits your judgment." in page.locator(".alert-success").inner_text()
    state = page.get_by_test_id("queue-state").inner_text()
    assert state == "Submitted — closed: all annotators have judged it"
    page.get_by_role("link", name=f"View {pair.title}").click()
    expect(page.get_by_test_id("pair-routed")).to_be_visible()
    pair.refresh_from_db()
    assert pair.status == ComparisonPair.Status.ADOPTED
    ref = ReferenceResponse.objects.get(character=pair.character, superseded_at__isnull=True)
    assert ref.decision_type == "unanimous" and ref.source_family == "gemini"
    assert ref.word_edit_rate == 0.0 and not ArbitrationDecision.objects.exists()
    switch_to(page, live_server, world["arbitrator"].username)
    assert "0 escalated" in page.locator('[data-role="arbitrator"]').inner_text() or (
        "No escalated cases yet" in page.locator('[data-role="arbitrator"]').inner_text()
    )


def test_a_flagged_pair_is_discarded(page, live_server, world):
    pair = make_pair()
    a = assign(pair, world["annotators"], world["admin"])
    judge_in_browser(
        page,
        live_server,
        world["annotators"][0],
        pair,
        "gpt",
        flag_reason="The scenario's age contradicts the character's timeline.",
    )
    judge(a[world["annotators"][1].pk], family="gpt")
    judge(a[world["annotators"][2].pk], family="gpt")
    switch_to(page, live_server, world["arbitrator"].username)
    page.goto(f"{live_server.url}/arbitration/pairs/{pair.pk}/")
    expect(page.get_by_test_id("suitability-flag")).to_be_visible()
    form = page.locator("#arbitration-form")
    form.get_by_label("Discard the pair (fundamentally unfit)").check()
    record_decision(page)
    assert "Give the reason" in page.content()
    form = page.locator("#arbitration-form")
    form.get_by_label("Discard the pair (fundamentally unfit)").check()
    form.get_by_label("Reason / note").fill("Irreconcilable ages.")
    record_decision(page)
    assert page.get_by_test_id("pair-status").inner_text() == "Discarded by the arbitrator"
    pair.refresh_from_db()
    assert pair.status == "discarded"
    assert ArbitrationDecision.objects.get().kind == "discarded"
