"""Distinctness before memory generation, in Chromium: the admin follows the pipeline
page's link to the distinctness table, sees the planted near-duplicate flagged, opens the
launch page for its plan, is refused, ticks the box with the keyboard and launches."""

import re

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from annotation.memory_generation.models import MemoryRun
from core.roles import Role
from tests.browser.actions import submit
from tests.distinctness.profiles import computed_table, profile, table4_profiles
from tests.distinctness.table4 import PLANTED
from tests.factories import DEFAULT_PASSWORD, UserFactory
from tests.memory_generation.fixtures_runs import plan_for

pytestmark = pytest.mark.browser


@pytest.fixture
def lab(transactional_db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    admin = UserFactory(roles=[Role.ADMIN])
    table4_profiles()
    plan = plan_for(profile("CHAR_12", PLANTED), {14: 2})
    computed_table()  # the stored table the page reads, as the worker would store it
    return admin, plan


def test_a_flagged_pair_is_seen_and_confirmed_before_the_launch(
    page, live_server, lab, memory_provider
):
    admin, plan = lab
    page.goto(f"{live_server.url}/")
    page.get_by_label("Username").fill(admin.username)
    page.get_by_label("Password").fill(DEFAULT_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_test_id("nav-pipeline").click()
    page.wait_for_url(f"{live_server.url}/pipeline/")

    page.get_by_role("link", name="Distinctness between characters").click()
    page.wait_for_url(f"{live_server.url}/corpus/distinctness/")
    first = page.get_by_test_id("distinctness-table").locator("tbody tr").first
    expect(first).to_contain_text("Character 5")
    expect(first).to_contain_text("Character 12")
    expect(first.get_by_test_id("near-duplicate")).to_be_visible()
    expect(page.get_by_test_id("near-duplicate-count")).to_have_text("1")

    page.goto(f"{live_server.url}/memory-generation/runs/new/?plans={plan.pk}")
    expect(page.get_by_test_id("near-duplicates")).to_contain_text("Character 5 and Character 12")
    submit(page, page.locator("#run-review"))
    expect(page.get_by_test_id("accept-near-duplicates")).to_contain_text(
        "Near-duplicate characters: Character 5 and Character 12 (L1 0.15"
    )
    expect(page.locator("#run-confirm")).to_have_count(0)
    assert MemoryRun.objects.count() == 0

    box = page.get_by_label("Launch anyway: I have looked at the near-duplicate characters")
    box.focus()
    page.keyboard.press("Space")
    expect(box).to_be_checked()
    submit(page, page.locator("#run-review"))
    expect(page.get_by_test_id("near-duplicates-accepted")).to_contain_text("Character 12")
    submit(page, page.locator("#run-confirm"))
    page.wait_for_url(re.compile(r".*/memory-generation/runs/\d+/$"))
    assert list(MemoryRun.objects.get().plans.all()) == [plan]
