"""MCQ item review walked in Chromium: an arbitrator opens a flagged item from the queue,
reads the judge's checks, revises a distractor and sees the new version screened again
(the fake provider server as the judge, Celery eager inside the live server); then removes
another item, which needs a note."""

import pytest
from django.contrib.auth.models import Group

from adjudication.mcq.models import McqItem
from adjudication.mcq.services import item_assembly
from core.roles import Role
from tests.browser.actions import submit
from tests.browser.confirming import submit_and_confirm
from tests.factories import UserFactory
from tests.mcq.conftest import flag, judge_config, scenario_with_references
from tests.mcq.test_worker import honest_judge

from .test_login import log_in

pytestmark = pytest.mark.browser


@pytest.fixture
def flagged(transactional_db, settings, fake_server):
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    UserFactory(username="item-reviewer", roles=[Role.ARBITRATOR])
    items = [
        flag(
            item_assembly.mcq_item_assemble(
                reference_id=scenario_with_references(n).pk, selector=False
            )
        )
        for n in (1, 2)
    ]
    fake_server.responder = honest_judge
    settings.HEARTBENCH_MCQ_SCREENER_PROVIDER = judge_config(fake_server)
    return items


@pytest.fixture
def fake_server():
    from llm.testing.fake_server import FakeProviderServer

    with FakeProviderServer() as server:
        yield server


@pytest.fixture
def eager():
    from heartbench_site.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


def open_item(page, item):
    """The queue names an item by its character and scenario title: open it by its link."""
    page.get_by_test_id("queue-row").locator(f'a[href$="/items/{item.pk}/"]').click()


def open_action(page, name):
    """The review actions are disclosures, one open at a time: open the one named."""
    page.get_by_test_id("review-actions").locator("summary", has_text=name).click()


def test_revise_a_distractor_then_remove_another_item(
    page, live_server, flagged, fake_server, eager
):
    revised, removed = flagged
    log_in(page, live_server, "item-reviewer")
    page.goto(f"{live_server.url}/items/")
    assert page.get_by_test_id("queue-row").count() == 2

    open_item(page, revised)
    assert page.get_by_test_id("item-status").inner_text() == "Flagged for item review"
    assert "concern under R2" in page.get_by_test_id("issue").first.inner_text()
    label = next(o.label for o in revised.options.order_by("label") if not o.is_correct)
    form = page.get_by_test_id("form-revise")
    form.get_by_label("Distractor").select_option(label)
    form.get_by_label("Revised text").fill(
        "I water the plants at dawn and then meet Mom at the park gate."
    )
    form.get_by_label("Note").fill("R2: two distractors said the same thing.")
    submit(page, form.get_by_role("button", name="Revise and re-screen"))

    # Re-screened in full as version 2: the judge passed it, so it is final.
    assert page.get_by_test_id("item-version").inner_text() == "2"
    assert page.get_by_test_id("item-status").inner_text() == "In the final set"
    assert "at dawn" in page.get_by_test_id(f"option-text-{label}").inner_text()
    assert "Passed on version 2" in page.get_by_test_id("screening-outcome").inner_text()
    assert len(fake_server.requests) == 1
    assert "at dawn" in fake_server.requests[0].turns()[-1][1]

    page.goto(f"{live_server.url}/items/")
    assert page.get_by_test_id("queue-row").count() == 1
    open_item(page, removed)
    open_action(page, "Other decisions")
    decide = page.get_by_test_id("form-decide")
    decide.get_by_label("Decision").select_option("remove")
    submit_and_confirm(page, decide.get_by_role("button", name="Record decision"))
    assert "Give a note" in page.get_by_test_id("form-errors").inner_text()
    decide = page.get_by_test_id("form-decide")
    decide.get_by_label("Decision").select_option("remove")
    decide.get_by_label("Note (required: say why)").fill("The scenario cannot separate these.")
    submit_and_confirm(page, decide.get_by_role("button", name="Record decision"))
    assert page.get_by_test_id("item-status").inner_text() == "Removed"
    assert McqItem.objects.get(pk=removed.pk).status == McqItem.Status.REMOVED

    page.goto(f"{live_server.url}/items/")
    assert page.get_by_test_id("queue-row").count() == 0
    assert "No item awaits review" in page.get_by_test_id("item-queue").inner_text()
