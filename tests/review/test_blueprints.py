"""Blueprints expanded by an LLM on Celery (seed 000 §2.3 Stage 2, App. L.4), over real
HTTP to the fake provider server; the result is a draft scenario awaiting pass 1."""

import pytest
from django.urls import reverse

from annotation.corpus.models import Scenario
from annotation.scenario_review.blueprints import blueprint_create, blueprint_expand
from annotation.scenario_review.models import ScenarioBlueprint, ScenarioReview
from llm import ProviderConfig, reset_limiters
from llm.testing.fake_server import FakeProviderServer
from llm.testing.replies import http_error, json_reply, server_error

from .conftest import login

EXPANSION = {
    "name": "The Borrowed Notes",
    "category": "Fairness / Loyalty",
    "intensity": "High",
    "age": 20,
    "description_for_agent": "A classmate wants your notes the night before a curved exam.",
    "setting": {"location": "Dormitory corridor", "time": "11:40 PM", "atmosphere": "Tense"},
    "context_text": "It is the night before the statistics final, graded on a curve.",
    "trigger_event": {
        "sender": "Classmate Jonah",
        "message_content": "(out of breath) Please, just let me photograph your notes...",
        "action_required": "Decide now whether to hand over your notes.",
    },
    "assessed_dimensions": {
        "trait_pressures": {"agreeableness_pressure": "helping a peer vs fairness to the class"}
    },
    "annotation_reference": {
        "trait_archetypes": {"High_Agreeableness": "Hands the notes over with a sigh."}
    },
}


@pytest.fixture
def fake_provider(settings):
    reset_limiters()
    with FakeProviderServer() as server:
        settings.HEARTBENCH_SCENARIO_EXPANSION_PROVIDER = ProviderConfig(
            kind="openai_compatible",
            model="test-expander",
            base_url=server.base_url("openai_compatible"),
            max_retries=0,
            backoff_base=0.0,
        )
        yield server
    reset_limiters()


@pytest.fixture
def eager_celery():
    from heartbench_site.celery import app

    app.conf.task_always_eager = True
    yield app
    app.conf.task_always_eager = False


def new_blueprint(user, **kw):
    return blueprint_create(
        user=user,
        title=kw.get("title", "The borrowed notes"),
        summary="A classmate who skipped every group meeting asks to copy your notes the "
        "night before an exam graded on a curve.",
        stage=kw.get("stage", "early_adult_transition"),
        diamonds_dimension="Duty",
    )


def test_the_expansion_becomes_a_draft_scenario_version(fake_provider, scenario_reviewers):
    fake_provider.enqueue(json_reply(EXPANSION))
    blueprint = blueprint_expand(blueprint_id=new_blueprint(scenario_reviewers[0]).pk)
    assert blueprint.status == "expanded", blueprint.error
    scenario = blueprint.scenario
    assert scenario.scenario_id == "SCN_EARLY_ADULT_TRANSITION_1"
    assert (scenario.stage, scenario.age, scenario.diamonds_dimension) == (
        "early_adult_transition",
        20,
        "Duty",
    )
    review = ScenarioReview.objects.get(scenario=scenario)
    assert review.stage == "screening"
    assert (review.version.number, review.version.origin) == (1, "blueprint")
    assert review.version.trigger_sender == "Classmate Jonah"
    request = fake_provider.requests[0]
    assert "Dominant DIAMONDS dimension: Duty" in request.turns()[-1][1]
    assert "No identity anchors" in request.system
    # Idempotent: a redelivered task changes nothing.
    again = blueprint_expand(blueprint_id=blueprint.pk)
    assert again.scenario == scenario and Scenario.objects.count() == 1
    assert len(fake_provider.requests) == 1


def test_the_expansion_request_carries_every_element_of_l4_at_temperature_0(
    fake_provider, scenario_reviewers
):
    fake_provider.enqueue(json_reply(EXPANSION))
    blueprint = blueprint_expand(blueprint_id=new_blueprint(scenario_reviewers[0]).pk)
    assert blueprint.status == "expanded", blueprint.error
    request = fake_provider.requests[0]
    system = request.system
    # A complete worked example of our own, every scenario-facing field in it.
    assert '"name": "The Answer Key in the Group Chat"' in system
    for field in ("description_for_agent", "context_text", "action_required", "setting"):
        assert f'"{field}"' in system
    # The assessed trait pressures and the annotation reference, one to one.
    assert "trait_pressures" in system and '"conscientiousness_pressure"' in system
    assert "annotation_reference" in system and "trait_archetypes" in system
    assert "one to one" in system
    # The Big Five vocabulary: the five labels, the _pressure keys and the High_/Low_ poles.
    for label in ("Openness", "Conscientiousness", "Extraversion", "Agreeableness", "Neuroticism"):
        assert label in system and f"{label.lower()}_pressure" in system
    assert "High_Agreeableness" in system and "Low_Neuroticism" in system
    # The id and stage conventions, and the character-agnostic rules.
    assert "SCN_<STAGE>_<N>" in system and "EARLY_ADULT_TRANSITION" in system
    assert "No identity anchors" in system and "150 to 300 words" in system
    # App. L.4: temperature 0 where the endpoint supports it.
    assert request.body["temperature"] == 0
    assert blueprint.call_record["prompt_version"] == 2
    # The trait pressures are kept with the expansion's record.
    assert (
        blueprint.call_record["parsed"]["assessed_dimensions"] == EXPANSION["assessed_dimensions"]
    )


def test_an_endpoint_that_refuses_temperature_gets_its_default(fake_provider, scenario_reviewers):
    fake_provider.enqueue(
        http_error(400, body='{"error": {"message": "Unsupported parameter: temperature"}}'),
        json_reply(EXPANSION),
    )
    blueprint = blueprint_expand(blueprint_id=new_blueprint(scenario_reviewers[0]).pk)
    assert blueprint.status == "expanded", blueprint.error
    first, second = fake_provider.requests
    assert first.body["temperature"] == 0 and "temperature" not in second.body


def test_two_invalid_answers_then_a_valid_one_expand(fake_provider, scenario_reviewers):
    no_pressures = {k: v for k, v in EXPANSION.items() if k != "assessed_dimensions"}
    unmatched = dict(
        EXPANSION,
        annotation_reference={"trait_archetypes": {"Low_Neuroticism": "Stays calm."}},
    )
    fake_provider.enqueue(json_reply(no_pressures), json_reply(unmatched), json_reply(EXPANSION))
    blueprint = blueprint_expand(blueprint_id=new_blueprint(scenario_reviewers[0]).pk)
    assert blueprint.status == "expanded", blueprint.error
    assert len(fake_provider.requests) == 3
    # Each retry tells the model what was wrong.
    assert "assessed_dimensions" in fake_provider.requests[1].turns()[-1][1]
    assert "trait_archetypes" in fake_provider.requests[2].turns()[-1][1]


def test_three_invalid_answers_fail_with_a_clear_message(fake_provider, scenario_reviewers):
    no_pressures = {k: v for k, v in EXPANSION.items() if k != "assessed_dimensions"}
    fake_provider.enqueue(*[json_reply(no_pressures)] * 3)
    blueprint = blueprint_expand(blueprint_id=new_blueprint(scenario_reviewers[0]).pk)
    assert blueprint.status == "failed"
    assert len(fake_provider.requests) == 3
    assert "still invalid after 3 attempts" in blueprint.error
    assert "assessed_dimensions" in blueprint.error
    assert not Scenario.objects.exists()


def test_an_age_outside_the_bin_is_rejected_by_the_schema(fake_provider, scenario_reviewers):
    # The schema bounds the age to the bin; three invalid rounds fail the expansion.
    fake_provider.enqueue(*[json_reply(dict(EXPANSION, age=40))] * 3)
    blueprint = blueprint_expand(blueprint_id=new_blueprint(scenario_reviewers[0]).pk)
    assert blueprint.status == "failed" and "schema_invalid" in blueprint.error
    assert not Scenario.objects.exists()


def test_a_provider_failure_is_recorded_and_can_be_retried(
    fake_provider, scenario_reviewers, eager_celery, django_capture_on_commit_callbacks
):
    fake_provider.enqueue(server_error(503))
    blueprint = blueprint_expand(blueprint_id=new_blueprint(scenario_reviewers[0]).pk)
    assert blueprint.status == "failed" and "server_error" in blueprint.error
    client = login(scenario_reviewers[0])
    fake_provider.enqueue(json_reply(EXPANSION))
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("review:blueprint-queue", args=[blueprint.pk]))
    assert response.status_code == 302
    blueprint.refresh_from_db()
    assert blueprint.status == "expanded"


def test_no_provider_configured_fails_with_a_clear_message(
    settings, scenario_reviewers, monkeypatch
):
    settings.HEARTBENCH_SCENARIO_EXPANSION_PROVIDER = None
    monkeypatch.delenv("HEARTBENCH_SCENARIO_EXPANSION_KIND", raising=False)
    blueprint = blueprint_expand(blueprint_id=new_blueprint(scenario_reviewers[0]).pk)
    assert blueprint.status == "failed" and "No LLM provider is configured" in blueprint.error


def test_the_offline_demo_provider_expands_deterministically(scenario_reviewers):
    config = ProviderConfig(kind="offline_demo", model="offline-demo")
    first = blueprint_expand(blueprint_id=new_blueprint(scenario_reviewers[0]).pk, config=config)
    assert first.status == "expanded", first.error
    assert first.scenario.name.startswith("[offline demo provider]")
    assert first.call_record["demo"] is True


@pytest.mark.django_db(transaction=True)
def test_the_page_queues_the_celery_task_on_commit(fake_provider, scenario_reviewers, eager_celery):
    fake_provider.enqueue(json_reply(EXPANSION))
    client = login(scenario_reviewers[0])
    bad = client.post(reverse("review:blueprint-list"), {"title": "", "summary": "short"})
    assert bad.status_code == 200 and not ScenarioBlueprint.objects.exists()
    response = client.post(
        reverse("review:blueprint-list"),
        {
            "title": "The borrowed notes",
            "summary": "A classmate who skipped every meeting asks to copy your notes "
            "the night before the exam.",
            "stage": "early_adult_transition",
            "diamonds_dimension": "Duty",
        },
    )
    blueprint = ScenarioBlueprint.objects.get()
    assert response.url == reverse("review:blueprint-detail", args=[blueprint.pk])
    assert blueprint.status == "expanded"
    page = client.get(response.url).content.decode()
    assert "SCN_EARLY_ADULT_TRANSITION_1" in page
