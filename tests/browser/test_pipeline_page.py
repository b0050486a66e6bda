"""An admin opens the pipeline page from the navbar, reads a stage's count and blocker,
and follows the stage's link to its queue."""

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from core.roles import Role
from tests.factories import UserFactory
from tests.site.pipeline_data import build_benchmark

pytestmark = pytest.mark.browser

# The demo's admin account (heartbench_site/management/commands/demo_setup.py).
DEMO_ADMIN, DEMO_ADMIN_PASSWORD = "admin", "admin-demo-pass"


@pytest.fixture
def demo_admin(transactional_db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    build_benchmark()
    UserFactory(
        username=DEMO_ADMIN,
        password=DEMO_ADMIN_PASSWORD,
        roles=[Role.ADMIN],
        is_staff=True,
        is_superuser=True,
    )
    return DEMO_ADMIN


def test_admin_follows_a_stage_of_the_pipeline_to_its_queue(page, live_server, demo_admin):
    page.goto(f"{live_server.url}/")
    page.get_by_label("Username").fill(demo_admin)
    page.get_by_label("Password").fill(DEMO_ADMIN_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_test_id("nav-pipeline").click()
    page.wait_for_url(f"{live_server.url}/pipeline/")

    stage = page.locator('[data-stage="adjudication"]')
    assert stage.get_attribute("data-state") == "waiting"
    assert stage.locator('[data-tally="adopted unanimously"]').inner_text() == "1"
    assert "1 escalated pair waits for the arbitrator" in stage.inner_text()
    # Figure 2 reads top to bottom: the characters first, the export last.
    stages = page.locator("[data-stage]")
    assert stages.first.get_attribute("data-stage") == "characters"
    assert stages.last.get_attribute("data-stage") == "export"

    stage.get_by_role("link", name="Arbitration queue").click()
    page.wait_for_url(f"{live_server.url}/arbitration/")
    expect(page.get_by_role("heading", name="Comparisons awaiting arbitration")).to_be_visible()
