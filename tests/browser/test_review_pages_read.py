"""Hours in the chair (issue 32): the expert review pages read on the demo's real material
(the HEART-Bench release's scenarios and responses), in Chromium at 1280 × 800.

One demo build serves every page (a build costs about a minute). The MCQ item review puts
the flag's reason above the options, stacked at the full width of the reading column with
the review actions beside it and no box scrolling inside the page. Scenario review asks
for the three pass-1 checks before the Approve/Flag choice, names and defines the eight
DIAMONDS dimensions in visible text, and takes the joint re-assessment's agreed values on
the same 1–7 scales as the ratings. The memory audit case names its fields in words; the
admin's generation launch page does not scroll sideways. Every assertion is geometry or
text, never pixels; a screenshot of each page is kept under test-output/screenshots/.
"""

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client
from playwright.sync_api import expect

from core.roles import Role
from tests.browser.actions import keep_screenshot, submit
from tests.demo_data import load_demo

pytestmark = pytest.mark.browser

#: Elements inside <main> that scroll their own content (form controls excepted: a
#: textarea or a list box scrolls by nature).
INNER_SCROLLERS = """() => [...document.querySelectorAll('main *')].filter(el => {
  if (['TEXTAREA', 'SELECT'].includes(el.tagName)) return false;
  const s = getComputedStyle(el);
  const y = ['auto', 'scroll'].includes(s.overflowY) && el.scrollHeight > el.clientHeight + 1;
  const x = ['auto', 'scroll'].includes(s.overflowX) && el.scrollWidth > el.clientWidth + 1;
  return x || y;
}).map(el => el.tagName + (el.dataset.testid ? `[${el.dataset.testid}]` : '')
  + (el.className ? `.${String(el.className).split(' ').join('.')}` : ''))"""

#: The width <main> gives its content (its box less its padding).
MAIN_CONTENT_WIDTH = """() => {
  const main = document.querySelector('main');
  const s = getComputedStyle(main);
  return main.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
}"""

SIDEWAYS = "() => document.scrollingElement.scrollWidth - window.innerWidth"

#: Whether ``other`` comes after the element in document order (focus and reading order).
FOLLOWED_BY = "(el, other) => !!(el.compareDocumentPosition(other) & 4)"

#: What a page people work in must not show: ids, slugs and citations.
RAW = re.compile(
    r"CHAR_\d+|SCN_[A-Z_]+\d*|MEM_\w+|seed 000|App\. [A-Z]|§\s?\d|Table \d+|pOsitivity"
    r"|\b(?:content_full|content_summary|school_age|age_30_transition)\b"
)


@pytest.fixture
def demo(transactional_db, release_dir, demo_providers):
    # A transactional test before this one may have flushed the migration-made groups.
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    load_demo(release_dir)
    return get_user_model().objects


def signed_in(browser, live_server, user):
    """A 1280 × 800 page holding ``user``'s session (no login form: logging in four
    times in a row would trip the lockout the login tests cover)."""
    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    cookie = client.cookies["sessionid"]
    context.add_cookies([{"name": "sessionid", "value": cookie.value, "url": live_server.url}])
    page = context.new_page()
    page.set_default_timeout(15_000)
    return context, page


def box(locator) -> dict:
    locator.scroll_into_view_if_needed()
    found = locator.bounding_box()
    assert found is not None, f"{locator} is not rendered"
    return found


def bottom(found: dict) -> float:
    return found["y"] + found["height"]


def page_top(page, locator) -> float:
    """The element's top in page coordinates (independent of the scroll position)."""
    return locator.evaluate("el => el.getBoundingClientRect().top + window.scrollY")


def page_bottom(page, locator) -> float:
    return locator.evaluate("el => el.getBoundingClientRect().bottom + window.scrollY")


def plain_words(page, name):
    text = page.locator("main").inner_text()
    found = sorted(set(RAW.findall(text)))
    assert not found, f"{name} shows ids, slugs or citations: {found}"


def read_the_flagged_item(page, base):
    page.goto(f"{base}/items/?status=flagged")
    rows = page.get_by_test_id("queue-row")
    assert rows.count() >= 1, "the demo has flagged items"
    plain_words(page, "the item queue")
    rows.first.get_by_role("link").click()
    page.wait_for_url(re.compile(r".*/items/\d+/$"))
    keep_screenshot(page, "review-pages-item-review")

    reason = page.get_by_test_id("flag-reason")
    assert "flagged" in reason.inner_text()
    assert reason.get_by_test_id("issue").count() >= 1  # what the judge found, in words
    options = page.get_by_test_id("options").locator("article")
    assert options.count() == 4
    # The reason comes before the material: above the first option, not after the last.
    assert page_bottom(page, reason) <= page_top(page, options.first)

    # Stacked at full width: each option the width of the reading column (which holds
    # most of the page; the review actions stay beside it), one under the other.
    column = box(page.get_by_test_id("item-material"))["width"]
    assert column >= 0.6 * page.evaluate(MAIN_CONTENT_WIDTH)
    boxes = [box(options.nth(i)) for i in range(options.count())]
    for i, found in enumerate(boxes):
        assert found["width"] >= 0.8 * column, (i, found["width"], column)
    tops = [page_top(page, options.nth(i)) for i in range(options.count())]
    assert tops == sorted(tops) and len(set(tops)) == len(tops)

    # The actions beside the options, and no box scrolling inside the page.
    actions = page.get_by_test_id("review-actions")
    assert box(actions)["x"] >= boxes[0]["x"] + boxes[0]["width"]
    assert page.evaluate(INNER_SCROLLERS) == []
    assert page.evaluate(SIDEWAYS) <= 0
    plain_words(page, "the item review")


def screen_a_scenario(page, base):
    page.goto(f"{base}/review/scenarios/")
    plain_words(page, "the scenario queue")
    page.get_by_test_id("scenario-queue").locator(
        "tr", has_text="Pass 1: screen it"
    ).first.get_by_role("link").click()
    page.wait_for_url(re.compile(r".*/review/scenarios/\w+/$"))
    keep_screenshot(page, "review-pages-scenario-pass-1")
    form = page.locator("#screening-form")
    checks = [
        form.get_by_label("Logically consistent"),
        form.get_by_label("Psychologically plausible"),
        form.get_by_label("Character-agnostic", exact=False),
    ]
    choices = [form.get_by_label("Approve"), form.get_by_label("Flag for revision")]
    first_choice = min(page_top(page, c) for c in choices)
    for check in checks:
        assert page_bottom(page, check) <= first_choice
        # …and before it for a keyboard or screen-reader user too (document order).
        assert check.evaluate(FOLLOWED_BY, choices[0].element_handle())
    assert page.evaluate(SIDEWAYS) <= 0
    plain_words(page, "pass 1")


def dimension_groups(form):
    return [
        form.get_by_role("group", name=name)
        for name in (
            "Duty",
            "Intellect",
            "Adversity",
            "Mating",
            "Positivity",
            "Negativity",
            "Deception",
            "Sociality",
        )
    ]


def rate_a_scenario(page, base):
    page.goto(f"{base}/review/scenarios/")
    page.get_by_test_id("scenario-queue").locator(
        "tr", has_text="Pass 2: rate it"
    ).first.get_by_role("link").click()
    page.wait_for_url(re.compile(r".*/review/scenarios/\w+/$"))
    form = page.locator("#rating-form")
    for group in dimension_groups(form):
        definition = group.get_by_test_id("diamonds-definition")
        expect(definition).to_be_visible()
        assert len(definition.inner_text()) > 20
        assert group.get_by_role("radio").count() == 7
    plain_words(page, "pass 2")


def reassess_a_scenario(page, base):
    page.goto(f"{base}/review/scenarios/")
    row = page.get_by_test_id("scenario-queue").locator(
        "tr", has_text="Re-assessment: propose or confirm"
    )
    row.first.get_by_role("link").click()
    page.wait_for_url(re.compile(r".*/review/scenarios/\w+/$"))
    keep_screenshot(page, "review-pages-scenario-reassessment")

    # Every dimension in the comparison named properly and defined in visible text.
    table = page.get_by_test_id("ratings-table")
    rows = table.locator("tbody tr")
    assert rows.count() == 8
    names = [rows.nth(i).locator("th").inner_text() for i in range(8)]
    assert [n.splitlines()[0] for n in names][4] == "Positivity"
    for i in range(8):
        expect(rows.nth(i).get_by_test_id("diamonds-definition")).to_be_visible()

    # The agreed values: the same 1–7 scales as the ratings, no free number box.
    form = page.locator("#reassessment-form")
    assert form.locator('input[type="number"]').count() == 0
    split = form.locator("fieldset[data-scale]")
    assert split.count() >= 1
    for i in range(split.count()):
        group = split.nth(i)
        radios = group.get_by_role("radio")
        assert [radios.nth(j).get_attribute("value") for j in range(radios.count())] == [
            str(n) for n in range(1, 8)
        ]
        expect(group.get_by_test_id("diamonds-definition")).to_be_visible()
    adversity = form.get_by_role("group", name="Agreed Adversity")
    assert "Rated 6 and 3" in adversity.inner_text()  # the demo's split ratings

    # By keyboard, as the individual ratings: focus a scale, a digit picks the point.
    for i in range(split.count()):
        split.nth(i).get_by_role("radio").first.focus()
        page.keyboard.press("4")
    adversity.get_by_role("radio").first.focus()
    page.keyboard.press("5")
    assert adversity.get_by_role("radio", name="5", exact=True).is_checked()
    submit(page, form.get_by_role("button", name="Propose these final ratings"))
    assert "Adversity 5" in page.get_by_test_id("reassessment-state").inner_text()
    assert page.evaluate(SIDEWAYS) <= 0
    plain_words(page, "the joint re-assessment")


def read_a_memory_case(page, base):
    page.goto(f"{base}/audit/?status=review")
    plain_words(page, "the memory audit queue")
    page.get_by_test_id("case-queue").get_by_role("link").first.click()
    page.wait_for_url(re.compile(r".*/audit/cases/\d+/$"))
    keep_screenshot(page, "review-pages-memory-case")
    headings = page.locator("[data-field] h3").all_inner_texts()
    assert [h.split()[0] for h in headings][:3] == ["Situation", "Summary", "Full"]
    assert page.evaluate(SIDEWAYS) <= 0
    plain_words(page, "the memory audit case")


def launch_page_fits(page, base):
    page.goto(f"{base}/corpus/generation/new/")
    page.get_by_test_id("unit-count").wait_for()
    blocked = page.get_by_test_id("blocked-pairs")
    expect(blocked).to_be_visible()  # the demo's corpus has pairs not ready yet
    keep_screenshot(page, "review-pages-generation-launch")
    assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")
    assert page.evaluate(INNER_SCROLLERS) == []


def test_the_review_pages_read_at_1280_on_the_demo(browser, live_server, demo):
    walks = (
        ("arbitrator", (read_the_flagged_item,)),
        ("scenario", (screen_a_scenario, rate_a_scenario, reassess_a_scenario)),
        ("memory", (read_a_memory_case,)),
        ("admin", (launch_page_fits,)),
    )
    for username, steps in walks:
        context, page = signed_in(browser, live_server, demo.get(username=username))
        try:
            for step in steps:
                step(page, live_server.url)
        finally:
            context.close()
