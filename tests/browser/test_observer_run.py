"""An admin loads an observer inventory (a bad file first: refused, naming the problem,
nothing saved), launches an observer run on a faithful character and on one whose
memories were written for another vector, confirms, and watches a real Celery worker
finish it against the fake provider on loopback; the report then flags the planted
character's anchor and not the faithful one's. Checked at a phone's width and a laptop's."""

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from audit.observers.models import ObserverInventory, ObserverRun
from core.providers import clear_client_cache
from core.roles import Role
from llm.testing.fake_server import FakeProviderServer
from llm.testing.observer_replies import ObserverResponder
from tests.browser.actions import keep_screenshot
from tests.browser.confirming import open_confirmation
from tests.browser.role_pages import BLOCKING, axe_violations
from tests.factories import DEFAULT_PASSWORD, UserFactory
from tests.generation.helpers import family_settings, worker_env
from tests.observers.helpers import character_written_for, vector

pytestmark = [pytest.mark.browser, pytest.mark.worker]

SHORT_FORM = Path(__file__).resolve().parents[2] / "audit" / "observers" / "short_form.json"
DESIGN = vector(N=0.95)


@pytest.fixture
def observer_server(settings):
    """The fake provider on loopback answering as observers, for every family: in the
    live server (settings) and in the worker (its environment)."""
    with FakeProviderServer(responder=ObserverResponder()) as server:
        settings.HEARTBENCH_GENERATION_FAMILIES = family_settings(server, timeout=5.0)
        yield server
    clear_client_cache()


def log_in(page, url, user):
    page.goto(url)
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill(DEFAULT_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(url)


def test_load_an_inventory_launch_an_observer_run_and_read_the_flag(
    page, live_server, transactional_db, celery_worker_factory, observer_server
):
    celery_worker_factory(extra_env=worker_env(observer_server))
    admin = UserFactory(username="lab-admin", roles=[Role.ADMIN])
    character_written_for("CHAR_01", DESIGN)
    character_written_for("CHAR_02", DESIGN, memories_for=vector(N=0.10))
    ObserverInventory.objects.all().delete()  # the shipped one is loaded through the page

    log_in(page, f"{live_server.url}/audit/observers/inventories/", admin)
    data = json.loads(SHORT_FORM.read_text(encoding="utf-8"))
    data["items"][4]["keying"] = "x"
    page.get_by_label("Inventory file (JSON)").set_input_files(
        files=[
            {
                "name": "broken.json",
                "mimeType": "application/json",
                "buffer": json.dumps(data).encode(),
            }
        ]
    )
    page.get_by_role("button", name="Load inventory").click()
    problems = page.get_by_test_id("inventory-problems")
    expect(problems).to_contain_text("nothing was saved")
    expect(problems).to_contain_text(f"item 5 of the list, id {data['items'][4]['id']}")
    assert ObserverInventory.objects.count() == 0

    page.get_by_label("Inventory file (JSON)").set_input_files(str(SHORT_FORM))
    page.get_by_role("button", name="Load inventory").click()
    expect(page.get_by_test_id("inventories")).to_contain_text("HEART-Bench observer short form")
    assert ObserverInventory.objects.count() == 1

    page.goto(f"{live_server.url}/audit/observers/new/")
    page.get_by_label("Characters").select_option(label=["Character 1", "Character 2"])
    families = page.locator('input[name="families"]')
    for index in range(families.count()):
        families.nth(index).check()
    page.get_by_label("Passages per character").fill("6")
    open_confirmation(page, page.get_by_role("button", name="Launch observer run"))
    with page.expect_navigation():
        page.get_by_test_id("confirm-yes").click()
    run = ObserverRun.objects.get()
    page.wait_for_url(f"{live_server.url}/audit/observers/{run.pk}/")

    # No reload: the progress section is swapped until the worker has finished.
    expect(page.locator("#run-progress")).to_have_attribute(
        "data-polling", "false", timeout=120_000
    )
    units = run.units.count()
    assert units == 2 * 3  # two characters, three families
    assert run.units.filter(status="succeeded").count() == units
    expect(page.get_by_test_id("run-progress-text")).to_contain_text(
        f"{units} of {units} units done: {units} succeeded"
    )
    keep_screenshot(page, "observer-run-finished")
    page.get_by_test_id("report-link").click()
    page.wait_for_url(f"{live_server.url}/audit/observers/{run.pk}/report/")
    planted = page.locator('tr[data-character="Character 2"] td[data-trait="N"]')
    faithful = page.locator('tr[data-character="Character 1"] td[data-trait="N"]')
    # The report is computed on the worker; the page polls until it is there.
    expect(planted).to_have_attribute("data-flag", "observed mean at or below 0.5", timeout=60_000)
    assert faithful.get_attribute("data-flag") is None
    expect(page.get_by_test_id("report-flagged")).to_contain_text("1 anchor trait not recovered")
    serious = [v for v in axe_violations(page, live_server.url) if v["impact"] in BLOCKING]
    assert not serious, serious
    keep_screenshot(page, "observer-report-1280")

    # At a phone's width the page does not scroll sideways; wide tables scroll in their box.
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    expect(planted).to_be_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the report is {width} px wide at 390 px"
    keep_screenshot(page, "observer-report-390")
