"""The blinded comparison and arbitration pages at a 1280 × 800 laptop screen (issue 21):
the candidates stay in view beside the form while a person judges, the tabs of the
material panel work by keyboard, the autosave label says something true from the start
and the draft survives a reload; recording an arbitration decision asks first, Escape
cancels, confirming records it."""

import pytest
from playwright.sync_api import expect

from adjudication.arbitration.models import ArbitrationDecision, ReferenceResponse
from adjudication.arbitration.selectors import arbiter_order
from annotation.comparison.models import ComparisonDraft, ComparisonPair
from tests.browser.actions import in_viewport, keep_screenshot, submit
from tests.comparison.helpers import assign, judge, make_pair, people

from .test_login import log_in

pytestmark = pytest.mark.browser


@pytest.fixture
def world(transactional_db):
    return people()


def test_the_candidates_stay_beside_the_form_while_judging(page, live_server, world):
    pair = make_pair(memories=5)
    assign(pair, world["annotators"], world["admin"])
    log_in(page, live_server, world["annotators"][0].username)
    page.goto(f"{live_server.url}/compare/")
    page.get_by_role("link", name=f"Compare {pair.title}").click()
    page.wait_for_url("**/compare/*/")

    status = page.get_by_test_id("autosave-status")
    assert status.inner_text().strip() == "Not saved yet. Changes save automatically as a draft."

    tab_a = page.get_by_role("tab", name="Candidate A")
    tab_a.wait_for()
    assert tab_a.get_attribute("aria-selected") == "true"
    panel_a = page.get_by_role("tabpanel", name="Candidate A")
    expect(panel_a).to_be_visible()
    assert not page.get_by_role("tabpanel", name="Candidate B").count()

    # Step 2: the person writes a note far down the form; candidate A's text is in view.
    form = page.locator("#judgment-form")
    note = form.get_by_label("Situational fit (note, optional)")
    note.scroll_into_view_if_needed()
    note.fill("The decision ignores the promise to the teacher.")
    assert in_viewport(page, note)
    assert in_viewport(page, page.get_by_test_id("decision-A"))
    assert in_viewport(page, page.get_by_test_id("text-A"))
    keep_screenshot(page, "comparison")

    # Step 3: the letter to select and the candidates are in view together.
    radio = form.get_by_label("Candidate B", exact=True)
    radio.scroll_into_view_if_needed()
    assert in_viewport(page, radio) and in_viewport(page, page.get_by_test_id("decision-A"))

    # Tabs by keyboard: arrows, Home and End move the selection and the focus.
    tab_a.focus()
    page.keyboard.press("ArrowRight")
    tab_b = page.get_by_role("tab", name="Candidate B")
    assert tab_b.get_attribute("aria-selected") == "true"
    assert tab_b.evaluate("el => el === document.activeElement")
    assert tab_a.get_attribute("aria-selected") == "false" and not panel_a.is_visible()
    assert in_viewport(page, page.get_by_test_id("decision-B"))
    page.keyboard.press("End")
    assert page.get_by_role("tab", name="Scenario").get_attribute("aria-selected") == "true"
    expect(page.get_by_test_id("scenario")).to_be_visible()
    page.keyboard.press("ArrowRight")  # wraps round
    assert tab_a.get_attribute("aria-selected") == "true"
    page.keyboard.press("ArrowLeft")
    assert page.get_by_role("tab", name="Scenario").get_attribute("aria-selected") == "true"
    page.keyboard.press("Home")
    assert tab_a.get_attribute("aria-selected") == "true"

    # The shortcut that selects a letter shows that candidate too.
    page.locator("h2#judgment-h").click()
    page.keyboard.press("c")
    assert form.get_by_label("Candidate C", exact=True).is_checked()
    assert page.get_by_role("tab", name="Candidate C").get_attribute("aria-selected") == "true"
    assert in_viewport(page, page.get_by_test_id("decision-C"))

    # The draft autosaves and survives a reload, and the label says when it was saved.
    status.filter(has_text="Draft saved at ").wait_for()
    for _ in range(50):  # the choice's own autosave may still be on its way
        if ComparisonDraft.objects.filter(data__selected_letter="C").exists():
            break
        page.wait_for_timeout(200)
    page.reload()
    assert page.get_by_test_id("autosave-status").inner_text().startswith("Draft saved at ")
    form = page.locator("#judgment-form")
    assert form.get_by_label("Situational fit (note, optional)").input_value() == (
        "The decision ignores the promise to the teacher."
    )
    assert form.get_by_label("Candidate C", exact=True).is_checked()


def escalate(world):
    pair = make_pair(memories=4)
    a = list(assign(pair, world["annotators"], world["admin"]).values())
    judge(a[0], family="claude")
    judge(a[1], family="claude", rating="partial", guidance="Name the teacher.")
    judge(a[2], family="gpt")
    pair.refresh_from_db()
    assert pair.status == "escalated"
    return pair


def test_adopting_asks_for_confirmation_and_escape_cancels(page, live_server, world):
    pair = escalate(world)
    log_in(page, live_server, world["arbitrator"].username)
    page.goto(f"{live_server.url}/arbitration/pairs/{pair.pk}/")
    assert page.get_by_text("Reference response").count() == 0  # none before a decision

    form = page.locator("#arbitration-form")
    number = [c.family for c in arbiter_order(pair, pair.candidates.all())].index("gpt") + 1
    adopt = form.get_by_label("Adopt a candidate as-is")
    adopt.scroll_into_view_if_needed()
    adopt.check()
    form.get_by_label("Candidate", exact=True).select_option(str(number))
    # The decision controls and the candidates decided on are in view together.
    assert in_viewport(page, adopt)
    first = page.locator("[data-candidate-number='1']")
    assert in_viewport(page, first.get_by_test_id("arb-text-1"))
    keep_screenshot(page, "arbitration")

    button = form.get_by_role("button", name="Record decision")
    button.scroll_into_view_if_needed()
    assert in_viewport(page, button) and in_viewport(page, first)
    button.click()
    dialog = page.locator("dialog#hb-confirm")
    dialog.wait_for(state="visible")
    message = page.get_by_test_id("confirm-message").inner_text()
    assert f"Adopt Candidate {number} as-is as the reference response of {pair.title}" in message
    assert "cannot be undone" in message
    yes = page.get_by_test_id("confirm-yes")
    assert yes.inner_text() == "Adopt"
    assert yes.evaluate("el => el === document.activeElement")

    page.keyboard.press("Escape")
    dialog.wait_for(state="hidden")
    assert not ArbitrationDecision.objects.exists()
    pair.refresh_from_db()
    assert pair.status == ComparisonPair.Status.ESCALATED

    button.click()
    dialog.wait_for(state="visible")
    submit(page, yes)
    decision = ArbitrationDecision.objects.get()
    assert decision.kind == "adopted" and decision.arbitrator == world["arbitrator"]
    ref = ReferenceResponse.objects.get(superseded_at__isnull=True)
    assert ref.source_family == "gpt"
    header = page.get_by_test_id("reference").inner_text()
    assert f"Reference response · Adopted by {world['arbitrator'].username}" in header
