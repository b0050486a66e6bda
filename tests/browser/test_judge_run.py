"""An admin launches a judge run on the pairs the annotators have judged, confirms it,
and watches a real Celery worker finish it with the offline demo provider (no network)
while the run page polls with htmx; then opens it again from the run list."""

import pytest
from playwright.sync_api import expect

from adjudication.judging.models import JudgeRun, JudgeVerdict
from tests.browser.actions import keep_screenshot
from tests.browser.confirming import open_confirmation
from tests.browser.role_pages import BLOCKING, axe_violations
from tests.factories import DEFAULT_PASSWORD
from tests.judging.helpers import judged_pairs

pytestmark = [pytest.mark.browser, pytest.mark.worker]


@pytest.fixture
def offline_worker(request, monkeypatch, settings):
    """The GPT family on the offline demo provider, in this process (the live server)
    and in the worker process, which reads the same variable at startup."""
    from heartbench_site.settings.base import _generation_families

    monkeypatch.setenv("HEARTBENCH_GPT_KIND", "offline_demo")
    settings.HEARTBENCH_GENERATION_FAMILIES = _generation_families(
        {"HEARTBENCH_GPT_KIND": "offline_demo"}
    )
    return request.getfixturevalue("celery_worker_process")


def test_launch_a_judge_run_and_watch_it_finish(
    page, live_server, transactional_db, offline_worker
):
    pairs, people = judged_pairs(2)
    page.goto(f"{live_server.url}/judging/runs/new/")
    page.get_by_label("Username").fill(people["admin"].username)
    page.get_by_label("Password").fill(DEFAULT_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/judging/runs/new/")

    page.get_by_label("Name").fill("Browser judge")
    page.get_by_label("All 2 pairs with three submitted judgments").check()
    page.get_by_label("Candidate orders per pair").fill("2")
    message = open_confirmation(page, page.get_by_role("button", name="Launch judge run"))
    assert "cannot be taken back" in message
    with page.expect_navigation():
        page.get_by_test_id("confirm-yes").click()
    page.wait_for_url(f"{live_server.url}/judging/runs/*/")

    # No reload: the progress fragment is swapped until the worker has finished.
    page.locator('#run-progress [data-status="finished"]').wait_for(timeout=90_000)
    progress = page.get_by_test_id("run-progress-text").inner_text()
    assert "4 of 4 calls done: 4 succeeded, 0 failed" in progress
    assert page.locator("#run-progress").get_attribute("data-polling") == "false"
    assert page.get_by_role("button", name="Cancel run").count() == 0
    run = JudgeRun.objects.get()
    assert run.name == "Browser judge" and run.orders_per_pair == 2
    assert JudgeVerdict.objects.filter(call__run=run).count() == 4
    rows = page.get_by_test_id("judge-calls").locator("tbody tr")
    assert rows.count() == 4
    first = run.calls.order_by("pair__character__key", "order_index").first()
    a, b, c = first.permutation
    assert rows.first.get_by_test_id("permutation").inner_text() == f"A → {a} · B → {b} · C → {c}"
    keep_screenshot(page, "judge-run-finished")
    serious = [v for v in axe_violations(page, live_server.url) if v["impact"] in BLOCKING]
    assert not serious, serious

    page.get_by_role("link", name="Judge runs").first.click()
    page.get_by_role("link", name="Browser judge").click()
    page.wait_for_url(f"{live_server.url}/judging/runs/{run.pk}/")
    expect(page.get_by_role("heading", name=f"Judge run {run.pk}: Browser judge")).to_be_visible()

    # The list and the launch form pass the same accessibility check, by keyboard too.
    for path in ("/judging/runs/", "/judging/runs/new/"):
        page.goto(f"{live_server.url}{path}")
        serious = [v for v in axe_violations(page, live_server.url) if v["impact"] in BLOCKING]
        assert not serious, (path, serious)
    page.get_by_label("Name").focus()
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.value") == "Launch judge run":
            break
    else:
        raise AssertionError("the launch button is not reachable by keyboard")
    page.keyboard.press("Enter")
    message = page.get_by_test_id("confirm-message")
    message.wait_for()
    page.keyboard.press("Escape")
    message.wait_for(state="hidden")
    assert page.url == f"{live_server.url}/judging/runs/new/"
    assert JudgeRun.objects.count() == 1, "Escape cancels the launch"
