"""An admin launches a generation run for one family and a subset of the pairs; a real
Celery worker runs it with the offline demo provider (no network) while the run page
polls with htmx until it shows the run finished."""

import pytest
from django.contrib.auth.models import Group

from annotation.generation.models import Candidate, GenerationRun
from core.roles import Role
from tests.factories import DEFAULT_PASSWORD, ScenarioFactory, UserFactory
from tests.pipeline_ready import scenario_reviewed
from tests.web.conftest import frozen_character

pytestmark = [pytest.mark.browser, pytest.mark.worker]

FAMILIES = ("CLAUDE", "GPT", "GEMINI")


@pytest.fixture
def offline_worker(request, monkeypatch, settings):
    """Every family on the offline demo provider, in this process (the live server) and
    in the worker process, which reads the same variables at startup."""
    from heartbench_site.settings.base import _generation_families

    for family in FAMILIES:
        monkeypatch.setenv(f"HEARTBENCH_{family}_KIND", "offline_demo")
    settings.HEARTBENCH_GENERATION_FAMILIES = _generation_families(
        {f"HEARTBENCH_{family}_KIND": "offline_demo" for family in FAMILIES}
    )
    return request.getfixturevalue("celery_worker_process")


@pytest.fixture
def corpus(transactional_db):
    from importlib import import_module

    from django.apps import apps

    for role in Role:
        Group.objects.get_or_create(name=role.value)
    import_module("annotation.migrations.0003_default_prompts").create_defaults(apps, None)
    import_module("annotation.migrations.0011_default_prompts_v2").create_v2(apps, None)
    return {
        "admin": UserFactory(username="admin-generation", roles=[Role.ADMIN]).username,
        "characters": [frozen_character(), frozen_character(), frozen_character()],
        "scenarios": list(scenario_reviewed(ScenarioFactory(), ScenarioFactory())),
    }


def test_launch_a_subset_and_watch_it_finish(page, live_server, corpus, offline_worker):
    page.goto(f"{live_server.url}/corpus/generation/new/")
    page.get_by_label("Username").fill(corpus["admin"])
    page.get_by_label("Password").fill(DEFAULT_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/corpus/generation/new/")

    count = page.get_by_test_id("unit-count")
    assert count.inner_text() == "18 units"  # 3 characters × 2 scenarios × 3 families
    page.get_by_label("Claude").uncheck()
    page.get_by_label("Gemini").uncheck()
    character = corpus["characters"][1].key
    page.get_by_label("Characters").select_option([character])
    # htmx re-counts after every change, without a reload.
    page.get_by_test_id("unit-count").filter(has_text="2 units").wait_for()
    page.get_by_label("Note").fill("browser pilot")
    page.get_by_role("button", name="Launch run").click()
    page.wait_for_url(f"{live_server.url}/corpus/generation/*/")

    # No reload: the progress fragment is swapped until the worker has finished.
    page.locator('#run-progress [data-status="finished"]').wait_for(timeout=60_000)
    progress = page.get_by_test_id("run-progress-text").inner_text()
    assert "2 of 2 units done: 2 succeeded, 0 failed" in progress
    assert page.locator("#run-progress").get_attribute("data-polling") == "false"
    assert page.get_by_role("button", name="Cancel run").count() == 0
    run = GenerationRun.objects.get()
    assert run.families == ["gpt"] and run.note == "browser pilot"
    assert run.pair_filter == {"characters": [character]}
    assert Candidate.objects.filter(run=run).count() == 2

    page.get_by_role("link", name="Generation runs").first.click()
    row = page.locator(f'tr[data-run="{run.pk}"]')
    assert "100%" in row.inner_text() and "Finished" in row.inner_text()
