"""An admin sees the cost estimate before launching a generation run, launches it with a
budget, watches it stop at the budget (a real Celery worker, the fake provider on
loopback), reads why on the run page, and resumes it without a budget until it finishes,
nothing run twice (issue #36)."""

import pytest
from django.contrib.auth.models import Group

from annotation.generation.models import Candidate, GenerationRun, LlmCallRecord
from core.providers import clear_client_cache
from core.roles import Role
from llm.testing.fake_server import FakeProviderServer
from tests.factories import DEFAULT_PASSWORD, ScenarioFactory, UserFactory
from tests.generation.helpers import ScriptedProvider, family_settings, worker_env
from tests.pipeline_ready import scenario_reviewed
from tests.web.conftest import frozen_character

pytestmark = [pytest.mark.browser, pytest.mark.worker]

# USD per million tokens: one unit costs more than the cent the run may spend.
PRICES = {
    "price_in": "3000",
    "price_out": "15000",
    "activation_price_in": "1000",
    "activation_price_out": "5000",
}


@pytest.fixture
def fake_server():
    with FakeProviderServer(responder=ScriptedProvider()) as server:
        yield server


@pytest.fixture
def priced_worker(settings, fake_server, celery_worker_factory):
    families = family_settings(fake_server, timeout=2.0)
    for setup in families.values():
        setup.update(PRICES)
    settings.HEARTBENCH_GENERATION_FAMILIES = families
    env = worker_env(fake_server, timeout=2.0)
    for family in ("CLAUDE", "GPT", "GEMINI"):
        env.update({f"HEARTBENCH_{family}_{name.upper()}": p for name, p in PRICES.items()})
    yield celery_worker_factory(extra_env=env)
    clear_client_cache()


@pytest.fixture
def corpus(transactional_db):
    from importlib import import_module

    from django.apps import apps

    for role in Role:
        Group.objects.get_or_create(name=role.value)
    import_module("annotation.migrations.0003_default_prompts").create_defaults(apps, None)
    import_module("annotation.migrations.0011_default_prompts_v2").create_v2(apps, None)
    return {
        "admin": UserFactory(username="admin-budget", roles=[Role.ADMIN]).username,
        "characters": [frozen_character(), frozen_character()],
        "scenarios": list(scenario_reviewed(ScenarioFactory(), ScenarioFactory())),
    }


def test_a_run_stops_at_its_budget_and_is_resumed_from_its_page(
    page, live_server, corpus, priced_worker
):
    page.goto(f"{live_server.url}/corpus/generation/new/")
    page.get_by_label("Username").fill(corpus["admin"])
    page.get_by_label("Password").fill(DEFAULT_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/corpus/generation/new/")

    page.get_by_label("Claude").uncheck()
    page.get_by_label("Gemini").uncheck()
    page.get_by_test_id("unit-count").filter(has_text="4 units").wait_for()
    # The estimate follows the choices: one provider left, two calls a unit.
    estimate = page.get_by_test_id("cost-estimate")
    assert estimate.get_by_test_id("cost-row").count() == 1
    assert "GPT (openai)" in estimate.inner_text()
    assert estimate.get_by_test_id("cost-calls").inner_text() == "8"
    assert "±30%" in page.get_by_test_id("cost-range").inner_text()

    page.get_by_label("Budget (USD)").fill("0.01")
    page.get_by_role("button", name="Launch run").click()
    page.wait_for_url(f"{live_server.url}/corpus/generation/*/")

    try:
        page.locator('#run-progress [data-status="stopped_at_budget"]').wait_for(timeout=60_000)
    except Exception:
        run = GenerationRun.objects.get()
        states = list(run.units.values_list("status", "cost_usd", "error_message"))
        raise AssertionError(f"{run.status} {run.budget_usd} {states}") from None
    reason = page.get_by_test_id("run-stop-reason").inner_text()
    assert "Stopped at its budget of $0.01" in reason
    run = GenerationRun.objects.get()
    assert run.status == GenerationRun.Status.STOPPED_AT_BUDGET
    assert run.units.filter(status="succeeded").count() == 1
    assert run.units.filter(status="pending").count() == 3

    page.get_by_label("New budget (USD)").fill("")
    page.locator("#run-resume-budget").click()
    page.locator('#run-progress [data-status="finished"]').wait_for(timeout=60_000)

    assert "4 of 4 units done: 4 succeeded" in page.get_by_test_id("run-progress-text").inner_text()
    units = list(run.units.all())
    assert Candidate.objects.filter(run=run).count() == len(units) == 4
    for unit in units:
        assert LlmCallRecord.objects.filter(unit=unit, stage="response").count() == 1
        assert unit.attempts == 1
