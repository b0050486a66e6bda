"""The family question after annotation, walked in Chromium (issue 22, "Blinding
integrity"): an annotator submits a judgment; while the pair is open the question is
not offered and its address answers 404; once all three judgments are in and the pair is
routed, their queue offers it; they answer by clicks and the keyboard, are told it was
saved and never whether they were right; the admin reads the counts in the blinding
report."""

import pytest

from annotation.blinding.guess_rates import NO_IDEA
from annotation.blinding.models import FamilyGuess
from annotation.comparison.models import PairAssignment
from annotation.generation.models import Candidate
from tests.browser.actions import keep_screenshot, submit
from tests.comparison.helpers import assign, judge, make_pair, people

from .test_comparison_flow import judge_in_browser, switch_to

pytestmark = pytest.mark.browser


@pytest.fixture
def world(transactional_db):
    who = people()
    pair = make_pair()
    assign(pair, who["annotators"], who["admin"])
    return {**who, "pair": pair}


def family_of(assignment, letter):
    pk = assignment.permutation["ABC".index(letter)]
    return Candidate.objects.get(pk=pk).family


def test_the_family_question_opens_after_the_final_judgment(page, live_server, world):
    pair, (first, second, third) = world["pair"], world["annotators"]
    mine = PairAssignment.objects.get(pair=pair, annotator=first)
    judge_in_browser(page, live_server, first, pair, "claude")

    # Submitted, but the pair is still open: no question, and its address is not there.
    page.goto(f"{live_server.url}/compare/")
    assert page.get_by_test_id("family-question").count() == 0
    response = page.goto(f"{live_server.url}/blinding/guess/{mine.public_id}/")
    assert response.status == 404

    # The other two submit (through the service): the pair is routed.
    for other in (second, third):
        judge(PairAssignment.objects.get(pair=pair, annotator=other), family="claude")
    pair.refresh_from_db()
    assert not pair.is_open

    page.goto(f"{live_server.url}/compare/")
    link = page.get_by_test_id("family-question")
    assert link.inner_text() == "Optional: who wrote each candidate?"
    link.focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url.endswith(f"/blinding/guess/{mine.public_id}/")
    assert "you will not be told which guesses were right" in page.content()

    # A: a click. B: the keyboard (arrows move within the radio group; "No idea" is
    # preselected, the one above it is Gemini). C: left at "No idea".
    group_a = page.get_by_role("group", name="Candidate A was written by")
    group_a.get_by_label("Claude", exact=True).click()
    group_b = page.get_by_role("group", name="Candidate B was written by")
    group_b.get_by_label("No idea", exact=True).focus()
    page.keyboard.press("ArrowUp")
    assert group_b.get_by_label("Gemini", exact=True).is_checked()
    assert (
        page.get_by_role("group", name="Candidate C was written by")
        .get_by_label("No idea", exact=True)
        .is_checked()
    )
    submit(page, page.get_by_role("button", name="Save my guesses"))

    alert = page.locator(".alert-success")
    assert alert.inner_text().strip().startswith("Thank you: your guesses are saved.")
    body = page.locator("main").inner_text().lower()
    for telltale in ("correct", "wrong", "you were right", "right guess"):
        assert telltale not in body
    keep_screenshot(page, "blinding-question-saved")
    guess = FamilyGuess.objects.get(assignment=mine)
    assert guess.guesses == {"A": "claude", "B": "gemini", "C": NO_IDEA}

    # The admin's report: hand count of the two named guesses.
    right = (family_of(mine, "A") == "claude") + (family_of(mine, "B") == "gemini")
    switch_to(page, live_server, world["admin"].username)
    page.goto(f"{live_server.url}/blinding/report/")
    cells = page.get_by_test_id("blinding-overall").locator("td").all_inner_texts()
    assert cells[:3] == [str(right), "2", "1"]
    assert "1 assignment with an answer." in page.content()
    per_annotator = page.get_by_test_id("blinding-annotators").inner_text()
    assert first.username in per_annotator
    positions = page.get_by_test_id("position-table").locator("td").all_inner_texts()
    assert sum(int(n) for n in positions) == 3
