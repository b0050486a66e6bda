"""The arbitrator's "Ask for regeneration" walked in Chromium (issue #22): the decision
asks for confirmation saying what cannot be undone (Escape sends nothing), refuses to go
without guidance, and then sends the pair back; the run it starts (the offline demo
provider, Celery eager) writes three new candidates with the guidance in their prompt."""

import pytest
from playwright.sync_api import expect

from adjudication.arbitration.models import ArbitrationDecision
from annotation.comparison.models import ComparisonPair
from annotation.corpus.models import ProfileVersion
from annotation.generation.models import Candidate, GenerationRun
from tests.browser.actions import keep_screenshot, submit
from tests.comparison.helpers import TEXTS, assign, judge, people
from tests.conftest import offline_demo_providers
from tests.generation.helpers import frozen_character, scenario

from .test_comparison_flow import switch_to

pytestmark = pytest.mark.browser

GUIDANCE = "All three forget the promise to the teacher: keep it, and say so to Mom."


@pytest.fixture
def escalated(transactional_db):
    who = people()
    character = frozen_character("CHAR_41", ages=[6, 7, 8])
    row = scenario("SCN_SCHOOL_AGE_1", age=10)
    profile = ProfileVersion.objects.get(character=character)
    candidates = [
        Candidate.objects.create(
            character=character,
            scenario=row,
            family=family,
            model_name=f"imported-{family}",
            profile_version=profile,
            summary=summary,
            final_decision=decision,
            origin=Candidate.Origin.IMPORTED,
        )
        for family, (summary, decision) in TEXTS.items()
    ]
    pair = ComparisonPair.objects.create(character=character, scenario=row, profile_version=profile)
    pair.candidates.set(candidates)
    a = list(assign(pair, who["annotators"], who["admin"]).values())
    for assignment, family in zip(a, ("claude", "gpt", "gemini"), strict=True):
        judge(assignment, family=family, rating="partial", guidance="Keep the promise.")
    pair.refresh_from_db()
    assert pair.status == "escalated"
    with offline_demo_providers():
        yield {**who, "pair": pair}


def press_record(page):
    page.locator("#arbitration-form").get_by_role("button", name="Record decision").click()
    message = page.get_by_test_id("confirm-message")
    message.wait_for()
    return message.inner_text()


def test_the_arbitrator_asks_for_regeneration_after_confirming(page, live_server, escalated):
    pair = escalated["pair"]
    switch_to(page, live_server, escalated["arbitrator"].username)
    page.goto(f"{live_server.url}/arbitration/pairs/{pair.pk}/")
    form = page.locator("#arbitration-form")
    form.get_by_label("Ask for regeneration (all three unusable, the pair suitable)").check()
    form.get_by_label("Guidance for regeneration").fill(GUIDANCE)

    message = press_record(page)
    assert "back for regeneration" in message and "This cannot be undone" in message
    assert page.get_by_test_id("confirm-yes").inner_text() == "Ask for regeneration"
    page.keyboard.press("Escape")  # cancelled: nothing is sent
    assert not ArbitrationDecision.objects.exists()

    form.get_by_label("Guidance for regeneration").fill("")
    press_record(page)
    submit(page, page.get_by_test_id("confirm-yes"))
    expect(page.get_by_text("Give the guidance").first).to_be_visible()
    assert not GenerationRun.objects.exists()

    form = page.locator("#arbitration-form")
    form.get_by_label("Ask for regeneration (all three unusable, the pair suitable)").check()
    form.get_by_label("Guidance for regeneration").fill(GUIDANCE)
    press_record(page)
    submit(page, page.get_by_test_id("confirm-yes"))
    keep_screenshot(page, "regeneration-asked")
    assert page.get_by_test_id("pair-status").inner_text() == "Sent back for regeneration"
    expect(page.get_by_test_id("regenerating")).to_be_visible()
    assert page.locator("#arbitration-form").count() == 0

    pair.refresh_from_db()
    decision = ArbitrationDecision.objects.get()
    assert (decision.kind, decision.reason) == ("regenerate", GUIDANCE)
    assert pair.status == "regenerating" and pair.regeneration_run.guidance == GUIDANCE
    assert Candidate.objects.filter(run=pair.regeneration_run).count() == 3
