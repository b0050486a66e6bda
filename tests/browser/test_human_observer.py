"""A human observer in Chromium (issue 37): the admin asks a person to rate a finished
observer run's character (confirming first); the person, at a phone's width, rates on
the keyboard, saves a draft, reloads and finds the answers kept, then submits after
confirming; the task is read-only; a real Celery worker computes the report again, and
the admin's report counts the person, with the character's observed figures equal to a
recomputation from the stored ratings."""

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from audit.observers.models import ObserverUnit
from core.display import character_name
from core.roles import Role
from tests.browser.role_pages import PHONE, sign_in
from tests.factories import UserFactory
from tests.observers.human_helpers import finished_run
from tests.observers.test_human import recomputed

pytestmark = [pytest.mark.browser, pytest.mark.worker]


@pytest.fixture
def world(transactional_db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    run = finished_run()
    admin = UserFactory(username="lab-admin", roles=[Role.ADMIN])
    person = UserFactory(username="obs-dana", roles=[Role.OBSERVER])
    return run, admin, person


def chosen_value(position: int, keying: str) -> int:
    """What the person picks for statement ``position``: agreeing with the reverse-keyed
    ones, so the figures differ from the model observer's all-4s."""
    return 5 if keying == "-" else 1 + position % 3


def test_an_observer_rates_on_the_keyboard_and_the_report_counts_them(
    browser, live_server, world, celery_worker_factory
):
    run, admin, person = world
    celery_worker_factory()
    base = live_server.url

    # The admin asks the person to rate the first character (and confirms).
    context, page = sign_in(browser, live_server, admin)
    page.goto(f"{base}/audit/observers/{run.pk}/")
    page.get_by_test_id("people-link").click()
    page.get_by_label("obs-dana").check()
    first = run.units.order_by("character__key").first().character
    page.get_by_label(character_name(first)).check()
    page.get_by_role("button", name="Ask them to rate").click()
    expect(page.get_by_test_id("confirm-message")).to_contain_text("Ask these people to rate?")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{base}/audit/observers/{run.pk}/")
    unit = ObserverUnit.objects.get(run=run, observer_kind="human")
    assert unit.observer == "obs-dana" and unit.character == first
    context.close()

    # The person, on a phone.
    context, page = sign_in(browser, live_server, person, viewport=PHONE)
    page.goto(f"{base}/")
    page.get_by_test_id("queue-observer_tasks").click()
    page.get_by_role("link", name="Person 1").click()
    page.wait_for_url(f"{base}/audit/observers/tasks/{unit.pk}/")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    expect(page.get_by_test_id("passage")).to_have_count(len(unit.material))

    items = run.inventory.items
    values = [chosen_value(i, item["keying"]) for i, item in enumerate(items, start=1)]
    page.locator("#s1-1").focus()
    for position, value in enumerate(values[:-1], start=1):
        page.keyboard.press("Space")  # the scale's first point
        for _ in range(value - 1):
            page.keyboard.press("ArrowRight")
        expect(page.locator(f"#s{position}-{value}")).to_be_checked()
        page.keyboard.press("Tab")  # on to the next statement's scale
    # Save the draft from the keyboard, then reload: every answer is back.
    page.get_by_test_id("save-draft").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_text("Draft saved: your answers are kept")).to_be_visible()
    page.reload()
    for position, value in enumerate(values[:-1], start=1):
        expect(page.locator(f"#s{position}-{value}")).to_be_checked()
    last = len(values)
    page.locator(f"#s{last}-1").focus()
    page.keyboard.press("Space")
    for _ in range(values[-1] - 1):
        page.keyboard.press("ArrowRight")
    page.get_by_test_id("submit-ratings").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("confirm-message")).to_contain_text("Once submitted")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("task-submitted")).to_be_visible()
    expect(page.get_by_test_id("submit-ratings")).to_have_count(0)
    expect(page.locator("fieldset[disabled]")).to_have_count(len(items))
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    stored = dict(unit.ratings.values_list("item_id", "value"))
    assert stored == {item["id"]: v for item, v in zip(items, values, strict=True)}
    context.close()

    # The admin's report, computed again on the worker, counts the person.
    context, page = sign_in(browser, live_server, admin)
    page.goto(f"{base}/audit/observers/{run.pk}/report/")
    name = character_name(first)
    row = page.locator(f'tr[data-character="{name}"]')
    expect(row.get_by_test_id("observer-count")).to_contain_text(
        "1 model, 1 person", timeout=120_000
    )
    for trait, (mean, low, high) in recomputed(run, first.key).items():
        cell = row.locator(f'td[data-trait="{trait}"]').inner_text()
        assert f"→ {mean:.2f}" in cell, (trait, cell)
        assert f"[{low:.2f}, {high:.2f}]" in cell, (trait, cell)
    context.close()
