"""The annotator's comparison and the arbitrator's decision on the demo's real-length
material (issue 32, "Hours in the chair"), in Chromium, by geometry (never pixels):

- the three candidates stand side by side from 1440 px (a shared top, no overlap) and
  are tabs at 1280 px; the material and the form are in view with them;
- a shortcut key acts only while the focus is on the candidates or in the form;
- a submit opens the next pair of the annotator's queue, saying what was saved, and the
  last one the queue;
- the arbitrator's decision form is in the first viewport beside the candidates at
  1280 × 800 and 1920 × 1080; choosing a decision shows only its fields; the diff preview
  comes in place (and, without JavaScript, the page comes back at the diff);
- no page scrolls sideways; screenshots at 1280 × 800, 1920 × 1080 and 390 × 844 are kept.
"""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from adjudication.arbitration.forms import FIELD_KINDS
from adjudication.arbitration.models import ArbitrationDecision
from annotation.comparison.models import ComparisonJudgment, ComparisonPair, PairAssignment
from annotation.comparison.selectors import comparison_queue
from core.roles import Role
from heartbench_site.management.commands.demo_setup import DEMO_ACCOUNTS
from tests.browser.actions import in_viewport, keep_screenshot, submit
from tests.demo_data import load_demo

from .test_login import log_in

pytestmark = pytest.mark.browser

PASSWORDS = {username: password for username, _, password in DEMO_ACCOUNTS}
SIZES = {"laptop": (1280, 800), "desktop": (1920, 1080), "phone": (390, 844)}
TEXT_FIELDS = ("summary", "emotional_tone", "core_reasoning", "final_decision")

#: The form controls a person can see (hidden parts and the CSRF token left out).
VISIBLE_FIELDS = """(selector) => Array.from(document.querySelectorAll(selector + ' [name]'))
  .filter(e => e.type !== 'hidden' && e.getClientRects().length > 0).map(e => e.name)"""


@pytest.fixture
def demo(transactional_db, release_dir, demo_providers):
    # A transactional test before this one may have flushed the migration-made groups.
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    load_demo(release_dir)


def text_length(pair) -> int:
    return sum(len(getattr(c, f) or "") for c in pair.candidates.all() for f in TEXT_FIELDS)


def box(locator) -> dict:
    found = locator.bounding_box()
    assert found is not None, locator
    return found


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")


def sign_in(page, live_server, username):
    log_in(page, live_server, username, PASSWORDS[username])


def test_the_annotator_compares_side_by_side_and_moves_on(page, live_server, demo):
    user = get_user_model().objects.get(username="annotator")
    waiting = [
        a
        for a in PairAssignment.objects.filter(annotator=user).select_related("pair")
        if a.pair.is_open and not ComparisonJudgment.objects.filter(assignment=a).exists()
    ]
    assert len(waiting) >= 2, "the demo leaves the annotator at least two pairs to judge"
    longest = max(waiting, key=lambda a: text_length(a.pair))
    following = comparison_queue(user=user).after(longest.public_id)
    assert following is not None
    url = f"{live_server.url}/compare/{longest.public_id}/"
    sign_in(page, live_server, "annotator")

    # From 1440 px: three columns sharing a top, none overlapping; the scenario and the
    # form in view with them.
    for width, height in ((1440, 900), SIZES["desktop"]):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(url)
        boxes = [box(page.get_by_test_id(f"candidate-{x}")) for x in "ABC"]
        tops = [b["y"] for b in boxes]
        assert max(tops) - min(tops) < 1, tops
        for left, right in zip(boxes, boxes[1:], strict=False):
            assert left["x"] + left["width"] <= right["x"], (left, right)
        assert all(b["y"] < height for b in boxes)
        assert page.get_by_role("tab", name="Candidate A").is_hidden()
        for part in ("decision-A", "decision-B", "decision-C", "scenario"):
            assert in_viewport(page, page.get_by_test_id(part)), part
        assert in_viewport(page, page.locator("#judgment-form"))
        assert no_sideways_scroll(page)
        if width == 1920:
            keep_screenshot(page, "comparison-1920x1080")

    # At 1280 px the candidates are tabs beside the form.
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(url)
    tab_a = page.get_by_role("tab", name="Candidate A")
    expect(tab_a).to_be_visible()
    assert tab_a.get_attribute("aria-selected") == "true"
    expect(page.get_by_test_id("candidate-A")).to_be_visible()
    assert page.get_by_test_id("candidate-B").is_hidden()
    assert in_viewport(page, page.locator("#judgment-form"))
    assert no_sideways_scroll(page)
    keep_screenshot(page, "comparison-1280x800")

    # A stray key with the focus elsewhere on the page changes nothing...
    form = page.locator("#judgment-form")
    choice = form.get_by_label("Candidate B", exact=True)
    as_is = form.get_by_label("Acceptable as-is", exact=True)
    for elsewhere in ("h1", "nav.navbar", "body"):
        page.locator(elsewhere).first.click(position={"x": 2, "y": 2})
        page.keyboard.press("b")
        page.keyboard.press("1")
        assert not choice.is_checked() and not as_is.is_checked(), elsewhere
    page.get_by_role("tab", name="Scenario").click()
    page.get_by_test_id("scenario").click()
    page.keyboard.press("b")
    assert not choice.is_checked()  # the scenario is not the candidates
    # ...the same key in the form, or on the candidates, chooses.
    form.get_by_label("Suitable", exact=True).check()
    page.keyboard.press("b")
    page.keyboard.press("1")
    assert choice.is_checked() and as_is.is_checked()
    assert page.get_by_role("tab", name="Candidate B").get_attribute("aria-selected") == "true"
    page.get_by_test_id("text-B").click()
    page.keyboard.press("c")
    assert form.get_by_label("Candidate C", exact=True).is_checked()
    page.get_by_test_id("text-C").click()  # C's tab now shows
    page.keyboard.press("b")
    assert choice.is_checked()

    form.get_by_label("Selection rationale").fill("Keeps the promise the profile builds on.")
    page.set_viewport_size({"width": SIZES["phone"][0], "height": SIZES["phone"][1]})
    assert no_sideways_scroll(page)
    keep_screenshot(page, "comparison-390x844")
    page.set_viewport_size({"width": 1280, "height": 800})

    # The submit opens the next pair of the queue and says what was saved.
    submit(page, form.get_by_role("button", name="Submit judgment"))
    assert page.url == f"{live_server.url}/compare/{following.public_id}/"
    saved = page.locator(".alert-success").inner_text()
    assert f"Submitted your judgment of {longest.pair.title}." in saved
    assert f"Next: {following.title}." in saved
    judgment = ComparisonJudgment.objects.get(assignment=longest)
    assert (judgment.selected_letter, judgment.rating) == ("B", "as_is")

    # The rest, in turn; after the last one the queue says none is left.
    for _ in range(len(waiting) - 1):
        form = page.locator("#judgment-form")
        form.get_by_label("Suitable", exact=True).check()
        page.keyboard.press("a")
        page.keyboard.press("1")
        form.get_by_label("Selection rationale").fill("The most grounded of the three.")
        submit(page, form.get_by_role("button", name="Submit judgment"))
    assert page.url == f"{live_server.url}/compare/"
    assert "No other pair awaits your judgment." in page.locator(".alert-success").inner_text()
    states = page.get_by_test_id("queue-state").all_inner_texts()
    assert states and all(s.startswith("Submitted") for s in states), states
    assert "CHAR_" not in page.locator("main").inner_text()
    assert no_sideways_scroll(page)
    keep_screenshot(page, "comparison-queue-1280x800")


def test_the_arbitrator_decides_beside_the_candidates(page, live_server, demo, browser):
    escalated = ComparisonPair.objects.filter(status=ComparisonPair.Status.ESCALATED)
    assert escalated.exists(), "the demo escalates a pair to the arbitrator"
    pair = max(escalated, key=text_length)
    path = f"/arbitration/pairs/{pair.pk}/"
    sign_in(page, live_server, "arbitrator")

    page.goto(f"{live_server.url}/arbitration/")
    assert "CHAR_" not in page.locator("main").inner_text()
    keep_screenshot(page, "arbitration-queue-1280x800")
    page.get_by_role("link", name=f"Arbitrate {pair.title}").click()
    page.wait_for_url(f"**{path}")

    # The decision form in the first viewport, beside the candidates.
    for name in ("laptop", "desktop"):
        width, height = SIZES[name]
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{live_server.url}{path}")
        form = page.locator("#arbitration-form")
        decide = form.get_by_role("button", name="Record decision")
        for part in (form.get_by_label("Adopt a candidate as-is"), decide):
            assert in_viewport(page, part)
            assert box(part)["y"] + box(part)["height"] <= height
        first = box(page.get_by_test_id("arb-candidate-1"))
        assert first["y"] < height and first["x"] + first["width"] <= box(form)["x"]
        tops = [box(page.get_by_test_id(f"arb-candidate-{n}"))["y"] for n in (1, 2, 3)]
        assert max(tops) - min(tops) < 1, tops
        assert no_sideways_scroll(page)
        keep_screenshot(page, f"arbitration-{width}x{height}")
    page.set_viewport_size({"width": SIZES["phone"][0], "height": SIZES["phone"][1]})
    assert no_sideways_scroll(page)
    keep_screenshot(page, "arbitration-390x844")
    page.set_viewport_size({"width": 1280, "height": 800})

    # Only the chosen decision's fields.
    form = page.locator("#arbitration-form")
    assert set(page.evaluate(VISIBLE_FIELDS, "#arbitration-form")) == {"kind", "decide"}
    labels = {
        "adopted": "Adopt a candidate as-is",
        "edited": "Edit a candidate (using the annotators' guidance)",
        "rewritten": "Rewrite the response from scratch",
        "discarded": "Discard the pair (fundamentally unfit)",
        "regenerate": "Ask for regeneration (all three unusable, the pair suitable)",
    }
    for kind, label in labels.items():
        form.get_by_label(label).check()
        expected = {name for name, kinds in FIELD_KINDS.items() if kind in kinds}
        expected |= {"kind", "decide"} | ({"preview"} if kind == "edited" else set())
        if kind == "edited" and not form.locator('[name="guidance_followed"]').count():
            expected.discard("guidance_followed")
        assert set(page.evaluate(VISIBLE_FIELDS, "#arbitration-form")) == expected, kind

    # The diff preview comes in place: no navigation, the page keeps its state.
    page.evaluate("window.__stayed = true")
    navigations = []
    page.on("framenavigated", lambda frame: navigations.append(frame.url))
    page.get_by_role("link", name="Edit candidate 1").click()
    assert form.get_by_label(labels["edited"]).is_checked()
    source = page.get_by_test_id("arb-text-1").inner_text()
    assert form.get_by_label("Rationale (summary)").input_value() in source
    form.get_by_label("Final decision").fill("I tell him the truth, and I stay his friend.")
    form.get_by_role("button", name="Preview diff").click()
    diff = page.get_by_test_id("diff")
    diff.wait_for()
    assert diff.locator("ins").count() >= 1 and diff.locator("del").count() >= 1
    assert navigations == [] and page.evaluate("window.__stayed === true")
    assert in_viewport(page, diff)
    assert not ArbitrationDecision.objects.exists()
    keep_screenshot(page, "arbitration-diff-1280x800")

    # Without JavaScript: every field shows, and a preview comes back at the diff.
    context = browser.new_context(
        viewport={"width": 1280, "height": 800}, java_script_enabled=False
    )
    plain = context.new_page()
    plain.goto(f"{live_server.url}/accounts/login/")
    plain.get_by_label("Username").fill("arbitrator")
    plain.get_by_label("Password").fill(PASSWORDS["arbitrator"])
    submit(plain, plain.get_by_role("button", name="Log in"))
    plain.goto(f"{live_server.url}{path}?edit=1")
    shown = set(plain.evaluate(VISIBLE_FIELDS, "#arbitration-form"))
    assert set(FIELD_KINDS) - {"guidance_followed"} <= shown
    plain.locator("#arbitration-form").get_by_label("Final decision").fill("I stay.")
    submit(plain, plain.get_by_role("button", name="Preview diff"))
    assert plain.url.endswith(f"{path}#diff-preview")
    assert plain.get_by_test_id("diff").locator("ins").count() >= 1
    context.close()
    assert not ArbitrationDecision.objects.exists()

    # The previewed edit records as it is.
    page.locator("#arbitration-form").get_by_role("button", name="Record decision").click()
    submit(page, page.get_by_test_id("confirm-yes"))
    decision = ArbitrationDecision.objects.get()
    assert decision.kind == "edited" and decision.reference.final_decision.startswith("I tell")
    assert "Decision recorded for " + pair.title in page.locator(".alert-success").inner_text()
