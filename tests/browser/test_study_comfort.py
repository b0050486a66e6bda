"""Hours in the chair (issue 32): the study as an undergraduate meets it, on the demo built
from the release's real texts, in Chromium at 1280 × 800, 1920 × 1080 and on a 390 × 844
phone.

On the study's longest item (by words read), a desktop shows the message that starts the
situation, the question and all four options in the first view, with the memories in a
column of their own; a phone reads scenario, memories, options, then the save buttons, with
nothing scrolling inside the page, and "Saved" appears beside the option tapped. Practice
feedback arrives in place and in view, and the study can only be started once every
practice item has an answer. No participant page scrolls sideways or shows an id, a slug,
a paper citation or what the study is for. A participant who stops comes back to the first
item without an answer. The page's own save waits for an autosave still on its way.

The demo is built once for the module and served by a live server of the module's own
(building it takes about a minute); the database is put back as it was afterwards, as a
serialized-rollback transactional test would. Screenshots of every participant page at
the three sizes are kept under test-output/screenshots/study-*.png.
"""

import re
import threading

import pytest
from django.contrib.auth.models import Group
from django.db import connections
from django.test import Client
from playwright.sync_api import expect

from core.roles import Role
from humanbaseline import services
from humanbaseline.demo import DEMO_STUDY_NAME
from humanbaseline.models import BaselineStudy, ItemResponse, StudyItem
from tests.conftest import offline_demo_providers
from tests.demo_data import load_demo

from . import committed
from .actions import keep_screenshot
from .test_accessibility import BLOCKING, axe_violations
from .test_login import log_in

pytestmark = pytest.mark.browser

SIZES = {"1280": (1280, 800), "1920": (1920, 1080), "phone": (390, 844)}
DESKTOPS = ("1280", "1920")
PASSWORD = "a-long-study-password-42"

# Words that tell a participant what the study is for or how it was built, or that mark
# the page as a demo or a defect; and the lazy plurals.
CONSTRUCTION_WORDS = re.compile(
    r"\b(benchmark|construction|matched[- ]information|demo|defect|persona|naive-rag|"
    r"stand-in)\b|\((s|ies)\)",
    re.I,
)
# What a participant must not read: record ids (CHAR_08, SCN_…, MEM_…), slugs
# (age_30_transition), paper citations (App. J, §3.2).
IDS_AND_SLUGS = re.compile(r"\b[A-Z]{2,}_[A-Z0-9_]+\b|\b[a-z0-9]+(?:_[a-z0-9]+)+\b")
CITATIONS = re.compile(r"\bApp\. [A-Z]|§|\bseed 000\b")
# The page without the item's own texts (scenario, memories, options: the release's words,
# which may use any word), for the words about the study's purpose.
PAGE_CHROME = """() => {
  const page = document.body.cloneNode(true);
  page.querySelectorAll('[data-testid=scenario], [data-testid=memories], [data-option]')
    .forEach(e => e.remove());
  return page.textContent;
}"""

# Every element (but the page itself) whose content scrolls inside it.
INNER_SCROLLERS = """() => [...document.querySelectorAll('body *')].filter(e => {
  const s = getComputedStyle(e);
  const scrolls = v => v === 'auto' || v === 'scroll';
  return (scrolls(s.overflowY) && e.scrollHeight > e.clientHeight + 1)
    || (scrolls(s.overflowX) && e.scrollWidth > e.clientWidth + 1);
}).map(e => e.tagName.toLowerCase() + '.' + [...e.classList].join('.'))"""
SIDEWAYS = "document.scrollingElement.scrollWidth > window.innerWidth"


def on_a_thread_of_its_own(work):
    """Run ``work`` on a new thread that closes its database connections at the end.

    Playwright's event loop runs on this thread for the whole package, so Django keeps
    connections opened here per asyncio context, where closing them later cannot reach
    them: one left open by the module's flush held the test database until the end."""
    failed = []

    def run():
        try:
            work()
        except BaseException as error:  # noqa: BLE001 (raised again below, on this thread)
            failed.append(error)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]


@pytest.fixture(scope="module")
def demo_server(django_db_setup, django_db_blocker, release_dir):
    """The demo, built once and committed, served by a live server of this module's own;
    the database is put back as it was at the end (``committed``)."""
    from pytest_django.live_server_helper import LiveServer

    seeded = []

    def build():
        seeded.append(committed.snapshot())
        for role in Role:
            Group.objects.get_or_create(name=role.value)
        with offline_demo_providers():
            load_demo(release_dir)

    with django_db_blocker.unblock():
        try:
            on_a_thread_of_its_own(build)
            server = LiveServer("localhost")
            server._live_server_modified_settings.enable()
            try:
                yield server
            finally:
                server._live_server_modified_settings.disable()
                server.stop()
        finally:
            if seeded:
                on_a_thread_of_its_own(lambda: committed.restore(seeded[0]))


@pytest.fixture
def db(django_db_blocker):
    """The test reads and writes the committed database its live server reads. Named
    ``db`` so that pytest-django creates the test database for these tests (it does for a
    test that asks for ``db``, ``transactional_db`` or ``live_server``); unlike its own
    ``db``, this one opens no transaction, and unlike the other two it flushes nothing
    after each test."""
    with django_db_blocker.unblock():
        yield
        # As a transactional test does after each test: the test's connections closed
        # (else one outlives the module and holds the test database open).
        for connection in connections.all(initialized_only=True):
            connection.close()


@pytest.fixture
def study(demo_server, db):
    return BaselineStudy.objects.get(name=DEMO_STUDY_NAME)


def participant(study, name, *, stage):
    """A participant made by the admin: ``invited``, ``practice`` (consented and briefed),
    or ``started`` (the practice answered too)."""
    p = services.participant_account_create(study=study, username=name, password=PASSWORD)
    if stage == "invited":
        return p
    p = services.consent_decide(participation=p, agree=True, version=study.consent_version)
    p = services.briefing_complete(participation=p)
    if stage == "started":
        for si in study.items.filter(is_practice=True):
            services.practice_answer(participation=p, position=si.position, choice="A")
        p = services.baseline_session_start(participation=p)
    return p


def signed_in(browser, server, user, size):
    """A browser context of ``size`` holding ``user``'s session."""
    client = Client()
    client.force_login(user)
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height})
    cookie = client.cookies["sessionid"]
    context.add_cookies([{"name": "sessionid", "value": cookie.value, "url": server.url}])
    page = context.new_page()
    page.set_default_timeout(20_000)
    return context, page


def leave(context, page, server):
    """Close the browser after leaving any item page for one without a timer, and give
    the item's time-on-task beacon a moment to land, so no request of this test reaches
    the server after it."""
    page.goto(f"{server.url}/baseline/")
    page.wait_for_timeout(300)
    context.close()


def longest_position(p) -> int:
    """The participant's position of the study's longest item (by words read)."""
    items = StudyItem.objects.filter(study=p.study, is_practice=False)
    longest = max(items, key=lambda si: si.scenario_words + si.option_words + si.memory_words)
    return ItemResponse.objects.get(participation=p, study_item=longest).position


def box(locator) -> dict:
    found = locator.bounding_box()
    assert found is not None, locator
    return found


def fully_inside(inner: dict, outer: dict) -> bool:
    return (
        inner["x"] >= outer["x"] - 1
        and inner["y"] >= outer["y"] - 1
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 1
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 1
    )


def settles(page, condition, seconds: float = 3) -> bool:
    """``condition`` holds within ``seconds`` (a page scrolls smoothly into place)."""
    for _ in range(int(seconds * 10)):
        if condition():
            return True
        page.wait_for_timeout(100)
    return condition()


def viewport(page) -> dict:
    size = page.viewport_size
    return {"x": 0, "y": 0, "width": size["width"], "height": size["height"]}


def what_a_participant_must_not_read(page) -> list[str]:
    text = page.locator("body").inner_text()
    found = [m.group(0) for m in CONSTRUCTION_WORDS.finditer(page.evaluate(PAGE_CHROME))]
    found += [m.group(0) for m in IDS_AND_SLUGS.finditer(text)]
    found += [m.group(0) for m in CITATIONS.finditer(text)]
    return found


def check_page(page, name, size, problems):
    """Keep a screenshot; note sideways scrolling, an inner scroller on a phone, any id,
    slug, citation or word about the study's purpose, and (at 1280) any serious or
    critical axe-core violation."""
    page.wait_for_load_state("load")
    keep_screenshot(page, f"study-{name}-{size}")
    if size == "1280":
        origin = re.match(r"https?://[^/]+", page.url).group(0)
        for violation in axe_violations(page, origin):
            if violation["impact"] in BLOCKING:
                problems.append(f"{name}: {violation['id']} {violation['targets']}")
    if page.evaluate(SIDEWAYS):
        problems.append(f"{name} at {size} scrolls sideways")
    if size == "phone" and page.evaluate(INNER_SCROLLERS):
        problems.append(f"{name} on the phone scrolls inside: {page.evaluate(INNER_SCROLLERS)}")
    unwanted = what_a_participant_must_not_read(page)
    if unwanted:
        problems.append(f"{name} at {size} shows {sorted(set(unwanted))[:8]}")


@pytest.mark.parametrize("size", DESKTOPS)
def test_on_a_desktop_the_longest_item_is_one_decision_surface(browser, demo_server, study, size):
    p = participant(study, f"reader-{size}", stage="started")
    position = longest_position(p)
    context, page = signed_in(browser, demo_server, p.user, size)
    page.goto(f"{demo_server.url}/baseline/s/{study.pk}/items/{position}/")
    page.get_by_test_id("options").wait_for()
    keep_screenshot(page, f"study-item-longest-{size}")
    view = viewport(page)

    # The message that starts the situation, the question and all four options, whole,
    # in the first view: in the window and inside their panes, nothing scrolled.
    scenario, decision = box(page.get_by_test_id("scenario")), box(page.get_by_test_id("decision"))
    trigger = page.get_by_test_id("trigger")
    assert fully_inside(box(trigger.get_by_role("heading")), view)
    assert fully_inside(box(trigger.get_by_role("heading")), scenario)
    assert box(trigger)["y"] < box(page.get_by_test_id("background"))["y"]  # message first
    assert fully_inside(box(page.locator("#options-h")), view)
    options = page.locator("[data-option]")
    assert options.count() == 4
    for n in range(4):
        option = box(options.nth(n))
        assert fully_inside(option, view) and fully_inside(option, decision), f"option {n}"
    # The keys are named, and the radios are drawn dark enough to see before a choice.
    assert "Keys A–D choose an option" in page.get_by_test_id("keys-hint").inner_text()
    border = page.locator("#choice-A").evaluate("e => getComputedStyle(e).borderTopColor")
    assert sum(int(c) for c in re.findall(r"\d+", border)[:3]) < 3 * 128, border

    # The memories: a column of their own beside the options, that scrolls by itself.
    memories = page.get_by_test_id("memories")
    assert box(memories)["x"] + box(memories)["width"] <= decision["x"]
    assert box(memories)["y"] < view["height"]
    assert memories.evaluate("e => getComputedStyle(e).overflowY") == "auto"
    # The page uses the width: no wide empty margins around a narrow column.
    assert box(page.locator("main"))["width"] >= view["width"] - 40
    assert not page.evaluate(SIDEWAYS)

    # Each memory once, its time of life in words as its heading, collapsible by keyboard.
    first = page.locator("[data-memory] summary").first
    assert re.fullmatch(r"Memory 1 · [A-Z][^_]+", first.inner_text())
    details = page.locator("[data-memory] details").first
    assert details.get_attribute("open") is not None
    first.focus()
    page.keyboard.press("Enter")
    assert details.get_attribute("open") is None
    page.keyboard.press(" ")
    assert details.get_attribute("open") is not None

    # Progress in words and as a bar a screen reader can read; a key press answers.
    assert page.get_by_role("heading", level=1).inner_text() == f"Item {position} of 150"
    bar = page.get_by_role("progressbar", name="Items answered")
    assert bar.get_attribute("aria-valuetext") == "0 of 150 answered"
    page.keyboard.press("b")
    page.get_by_test_id("save-status").filter(has_text="Saved B").wait_for()
    expect(page.locator('[data-option="B"] [data-testid="saved-mark"]')).to_be_visible()
    assert bar.get_attribute("aria-valuenow") == "1"
    leave(context, page, demo_server)


def test_on_a_phone_the_memories_come_before_the_options_and_nothing_scrolls_inside(
    browser, demo_server, study
):
    p = participant(study, "reader-phone", stage="started")
    position = longest_position(p)
    context, page = signed_in(browser, demo_server, p.user, "phone")
    page.goto(f"{demo_server.url}/baseline/s/{study.pk}/items/{position}/")
    page.get_by_test_id("options").wait_for()
    keep_screenshot(page, "study-item-longest-phone")

    top = {
        name: box(page.get_by_test_id(name))["y"] for name in ("scenario", "memories", "options")
    }
    save = box(page.get_by_role("button", name="Save and go to the next item"))["y"]
    assert top["scenario"] < top["memories"] < top["options"] < save
    assert page.evaluate(INNER_SCROLLERS) == []
    assert not page.evaluate(SIDEWAYS)
    # The memories are folded with their number in the heading; one opens with a tap,
    # still with nothing scrolling inside the page.
    assert page.get_by_test_id("memory-total").inner_text() == str(
        page.locator("[data-memory]").count()
    )
    assert page.locator("[data-memory] details[open]").count() == 0
    page.locator("[data-memory] summary").first.click()
    page.get_by_role("button", name="Expand all").click()
    assert page.evaluate(INNER_SCROLLERS) == []

    # "Saved" appears beside the option tapped, on the screen where the thumb is.
    page.locator('label[for="choice-C"]').click()
    mark = page.locator('[data-option="C"] [data-testid="saved-mark"]')
    mark.wait_for()
    assert fully_inside(box(mark), viewport(page))
    assert ItemResponse.objects.get(participation=p, position=position).choice == "C"
    leave(context, page, demo_server)


@pytest.mark.parametrize("size", list(SIZES))
def test_every_participant_page_and_practice_feedback_in_view(browser, demo_server, study, size):
    """Join, home, consent, briefing, both practice items (feedback in place and in view;
    no "Start the study" until both are answered), an item, finalize."""
    problems = []
    width, height = SIZES[size]
    anonymous = browser.new_context(viewport={"width": width, "height": height})
    page = anonymous.new_page()
    page.goto(f"{demo_server.url}/baseline/join/{study.invitation_token}/")
    check_page(page, "join", size, problems)
    anonymous.close()

    p = participant(study, f"walker-{size}", stage="invited")
    context, page = signed_in(browser, demo_server, p.user, size)
    base = f"{demo_server.url}/baseline/s/{study.pk}"
    page.goto(f"{demo_server.url}/baseline/")
    check_page(page, "home", size, problems)
    page.goto(f"{base}/consent/")
    check_page(page, "consent", size, problems)
    facts = page.get_by_test_id("study-facts").inner_text()
    assert re.search(r"Reading everything takes about [\d½]+ hours in all: 152 items", facts)
    assert "words a minute" in facts and "£12" in facts
    assert "come back to the first item you have not answered" in facts
    page.get_by_role("button", name="I have read the text and agree").click()
    page.wait_for_url("**/briefing/")
    check_page(page, "briefing", size, problems)
    assert "the keys A B C D choose a response" in page.locator("main").inner_text()
    page.get_by_role("button", name="Continue to the practice items").click()
    page.wait_for_url("**/practice/1/")
    check_page(page, "practice", size, problems)
    start = page.get_by_role("button", name="Start the study")

    for position in (1, 2):
        assert start.count() == 0, f"the study can start before practice item {position}"
        page.evaluate("window.stillTheSamePage = true")
        page.locator('#practice-form label[for="choice-B"]').click()
        page.get_by_role("button", name="Check my answer").click()
        feedback = page.get_by_test_id("practice-feedback")
        feedback.wait_for()
        # In place (no reload), in view, with the expected answer and why.
        assert page.evaluate("window.stillTheSamePage") is True
        assert settles(page, lambda f=feedback: fully_inside(box(f), viewport(page))), (
            f"feedback {position} out of view: {box(feedback)}"
        )
        text = feedback.inner_text()
        assert re.search(r"You chose B\. The expected answer is [ABCD]\.", text)
        assert "Why " in text and page.get_by_test_id("practice-reason").inner_text()
        check_page(page, f"practice-feedback-{position}", size, problems)
        if position == 1:
            assert start.count() == 0
            page.get_by_role("link", name="Next practice item").click()
            page.wait_for_url("**/practice/2/")
    assert start.count() == 1
    start.click()
    page.wait_for_url("**/items/1/")
    check_page(page, "item", size, problems)
    page.goto(f"{base}/finalize/")
    check_page(page, "finalize", size, problems)
    leave(context, page, demo_server)
    assert problems == []


def test_a_participant_who_stops_comes_back_to_the_first_unanswered_item(
    browser, demo_server, study
):
    p = participant(study, "returner", stage="started")
    context, page = signed_in(browser, demo_server, p.user, "1280")
    base = f"{demo_server.url}/baseline/s/{study.pk}"
    page.goto(f"{base}/items/1/")
    for position, key in ((1, "a"), (2, "d")):
        page.keyboard.press(key)
        page.get_by_test_id("save-status").filter(has_text=f"Saved {key.upper()}").wait_for()
        page.get_by_role("button", name="Save and go to the next item").click()
        page.wait_for_url(f"**/items/{position + 1}/")
    leave(context, page, demo_server)

    # Another day, another browser: signing in and continuing lands on item 3.
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    log_in(page, demo_server, "returner", PASSWORD)
    page.goto(f"{demo_server.url}/baseline/")
    assert "2 of 150 items answered" in page.get_by_test_id("participation-status").inner_text()
    page.get_by_role("link", name="Continue").click()
    page.wait_for_url(f"**/baseline/s/{study.pk}/items/3/")
    assert page.get_by_test_id("progress-text").inner_text() == "2 of 150 answered"
    assert [r.choice for r in ItemResponse.objects.filter(participation=p, position__lte=3)] == [
        "A",
        "D",
        "",
    ]
    leave(context, page, demo_server)


def test_the_pages_save_waits_for_an_autosave_on_its_way(browser, demo_server, study):
    """A key press saves at once (htmx); "Save and go to the next item" pressed while that
    save is still on its way is held until it is answered, then sent: the two never reach
    the server together, and neither fails."""
    p = participant(study, "hurried", stage="started")
    context, page = signed_in(browser, demo_server, p.user, "1280")
    item_url = f"{demo_server.url}/baseline/s/{study.pk}/items/1/"
    page.goto(item_url)
    held, sent, statuses = [], [], []

    def hold_autosaves(route):
        if route.request.method == "POST" and route.request.headers.get("hx-request"):
            held.append(route)  # answered below, when the test lets it go
        else:
            route.continue_()

    page.route(item_url, hold_autosaves)
    page.on(
        "request",
        lambda r: (
            sent.append(("htmx" if r.headers.get("hx-request") else "page", r.method))
            if r.method == "POST" and r.url == item_url
            else None
        ),
    )
    page.on("response", lambda r: statuses.append(r.status))

    # The page's scripts are in place (the form is there and htmx has bound it) before the
    # key is pressed; on a loaded machine the autosave may take seconds to leave.
    page.wait_for_function("() => document.getElementById('answer-form')?.['htmx-internal-data']")
    page.keyboard.press("c")
    for _ in range(400):
        if held:
            break
        page.wait_for_timeout(50)
    assert len(held) == 1, (page.url, sent)
    page.get_by_role("button", name="Save and go to the next item").click(no_wait_after=True)
    page.wait_for_timeout(700)
    # Held while the autosave is on its way: no second request, the buttons wait.
    assert sent == [("htmx", "POST")]
    assert page.get_by_role("button", name="Save and go to the next item").is_disabled()
    held[0].continue_()
    page.wait_for_url("**/items/2/")
    assert sent == [("htmx", "POST"), ("page", "POST")]
    assert all(status < 500 for status in statuses), statuses
    response = ItemResponse.objects.get(participation=p, position=1)
    assert (response.choice, response.revisions) == ("C", 0)
    leave(context, page, demo_server)
