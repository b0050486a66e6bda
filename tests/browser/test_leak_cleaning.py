"""The admin cleans a leak flag in Chromium (issue 22, "Blinding integrity"): the pair
waits on the assignment page; the flag list highlights the match; the flag's page has
the clean form; saving asks for confirmation first (Escape cancels, nothing changes);
confirmed, the edit is recorded and the pair is assigned to the three annotators."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.candidate_screening.models import CandidateCleaning, LeakFlag
from annotation.candidate_screening.services import screen_pair_candidates
from annotation.comparison.models import PairAssignment
from annotation.generation.models import Candidate
from tests.browser.actions import keep_screenshot, submit
from tests.browser.confirming import open_confirmation, submit_and_confirm
from tests.comparison.helpers import make_pair, people

from .test_login import log_in

pytestmark = pytest.mark.browser

LEAK = "As an AI model by OpenAI, I stay behind and water the plants."
CLEAN = "I stay behind and water the plants."


@pytest.fixture
def world(transactional_db):
    who = people()
    pair = make_pair()
    leaky = pair.candidates.get(family="gpt")
    Candidate.objects.filter(pk=leaky.pk).update(final_decision=LEAK)
    (flag,) = screen_pair_candidates(pair)
    return {**who, "pair": pair, "leaky": leaky, "flag": flag}


def test_the_admin_cleans_a_flag_and_the_pair_is_assignable(page, live_server, world):
    flag = world["flag"]
    log_in(page, live_server, world["admin"].username)
    page.goto(f"{live_server.url}{reverse('comparison:assign')}")
    expect(page.get_by_test_id("pair-waits")).to_be_visible()

    page.goto(f"{live_server.url}{reverse('screening:flags')}")
    matches = page.get_by_test_id("leak-flags").get_by_test_id("leak-match")
    assert matches.all_inner_texts() == ["As an AI", "OpenAI"]
    page.get_by_role("link", name=f"Leak flag {flag.pk}").click()
    page.wait_for_url(f"**/screening/flags/{flag.pk}/")

    form = page.locator(f"form[action='{reverse('screening:clean', args=[flag.pk])}']")
    form.get_by_label("Final decision").fill(CLEAN)
    form.get_by_label("Why the text was edited").fill("Removed the self-reference.")
    save = form.get_by_role("button", name="Save the cleaned text")
    message = open_confirmation(page, save)
    assert f"Replace the text of candidate {world['leaky'].pk}" in message
    assert "This cannot be undone." in message
    page.keyboard.press("Escape")  # cancelled: nothing sent
    assert not CandidateCleaning.objects.exists()
    keep_screenshot(page, "leak-cleaning-form")
    submit_and_confirm(page, save)

    assert (
        f"Candidate {world['leaky'].pk} cleaned; flag closed."
        in page.locator(".alert-success").inner_text()
    )
    flag.refresh_from_db()
    assert flag.status == LeakFlag.Status.CLEANED
    cleaning = CandidateCleaning.objects.get()
    assert cleaning.before["final_decision"] == LEAK and cleaning.after["final_decision"] == CLEAN

    page.goto(f"{live_server.url}{reverse('comparison:assign')}")
    assert page.get_by_test_id("pair-waits").count() == 0
    form = page.locator("#assign-form")
    for annotator in world["annotators"]:
        form.get_by_label(annotator.username, exact=True).check()
    submit(page, form.get_by_role("button", name="Assign pairs"))
    assert "3 new assignments" in page.locator(".alert-success").inner_text()
    assert PairAssignment.objects.filter(pair=world["pair"]).count() == 3
