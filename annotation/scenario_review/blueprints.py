"""Scenario blueprints (seed 000 §2.3 Stages 1-2, App. L.4): an expert drafts a short,
character-agnostic summary; an LLM expands it into a draft scenario (version 1) that
enters scenario review's pass 1 (``services``). ``blueprint_expand`` runs on a Celery
worker (``celery_tasks``) and is idempotent.
"""

import json
import os

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotation.profile_review.models import ReviewError
from annotation.profile_review.services import record_event, require_role
from annotation.scenario_review.expansion_prompt import (
    EXPANSION_PROMPT_VERSION,
    EXPANSION_SYSTEM_PROMPT,
    EXPANSION_USER_TEMPLATE,
    expansion_schema_for_ages,
)
from annotation.scenario_review.models import (
    BLUEPRINT_TITLE_MAX,
    DIAMONDS_DIMENSION_CHOICES,
    ScenarioBlueprint,
    ScenarioVersion,
)
from annotation.scenario_review.services import clean_content, create_scenario
from core.life_stages import BY_KEY as LIFE_STAGES
from core.providers import at_temperature, temperature_refused
from core.roles import Role
from core.text_rules import NOTE, text_problem
from llm import ProviderConfig, make_client


@transaction.atomic
def blueprint_create(
    *, user, title: str, summary: str, stage: str, diamonds_dimension: str
) -> ScenarioBlueprint:
    """Store an expert blueprint; the caller queues its expansion on commit."""
    require_role(user, Role.SCENARIO_REVIEWER, "draft scenario blueprints")
    problems = [
        p
        for p in (
            text_problem(title, label="Title", limit=BLUEPRINT_TITLE_MAX),
            text_problem(summary, label="Summary", limit=NOTE),
        )
        if p
    ]
    if not title.strip():
        problems.append("Give the blueprint a title.")
    if len(summary.split()) < 10:
        problems.append("Write a summary of at least ten words that establishes the core tension.")
    if stage not in LIFE_STAGES:
        problems.append("Choose one of the eight life-stage bins.")
    if diamonds_dimension not in dict(DIAMONDS_DIMENSION_CHOICES):
        problems.append("Choose the blueprint's DIAMONDS dimension.")
    if problems:
        raise ReviewError(problems)
    blueprint = ScenarioBlueprint.objects.create(
        title=title.strip(),
        summary=summary.strip(),
        stage=stage,
        diamonds_dimension=diamonds_dimension,
        created_by=user,
    )
    record_event(actor=user, action="blueprint_create", blueprint=blueprint.pk)
    return blueprint


@transaction.atomic
def blueprint_retry(*, blueprint_id: int, user) -> ScenarioBlueprint:
    require_role(user, Role.SCENARIO_REVIEWER, "retry a blueprint's expansion")
    blueprint = ScenarioBlueprint.objects.select_for_update().get(pk=blueprint_id)
    if blueprint.status != ScenarioBlueprint.Status.FAILED:
        raise ReviewError("Only a failed expansion can be retried.")
    blueprint.status, blueprint.error = ScenarioBlueprint.Status.PENDING, ""
    blueprint.save(update_fields=["status", "error"])
    return blueprint


@transaction.atomic
def blueprint_requeue(*, blueprint_id: int, user) -> ScenarioBlueprint:
    """Ready a blueprint's expansion to be queued again (the page's "Queue the expansion
    again" and "Retry the expansion"): a failed one is reset to pending, a pending one
    stays; an expanded one is refused, since its draft scenario exists already."""
    blueprint = ScenarioBlueprint.objects.select_for_update().get(pk=blueprint_id)
    if blueprint.status == ScenarioBlueprint.Status.FAILED:
        return blueprint_retry(blueprint_id=blueprint_id, user=user)
    if blueprint.status == ScenarioBlueprint.Status.EXPANDED:
        raise ReviewError(
            f"Blueprint {blueprint_id} is expanded already: its draft scenario exists, so "
            "there is nothing to queue."
        )
    return blueprint


# App. L.4: temperature 0 where the endpoint supports it, and up to two retries (three
# structured-output rounds, each invalid answer sent back naming what is wrong).
EXPANSION_TEMPERATURE = 0.0
EXPANSION_ROUNDS = 3


def expansion_schema(stage_key: str) -> dict:
    """The expansion's output schema, its age bounded to the life-stage bin."""
    stage = LIFE_STAGES[stage_key]
    return expansion_schema_for_ages(stage.first_age, stage.last_age)


def expansion_provider_config():
    """The expansion's provider: ``settings.HEARTBENCH_SCENARIO_EXPANSION_PROVIDER`` (a
    ``ProviderConfig``) or the ``HEARTBENCH_SCENARIO_EXPANSION_*`` environment."""
    configured = getattr(settings, "HEARTBENCH_SCENARIO_EXPANSION_PROVIDER", None)
    if configured is not None:
        return configured
    prefix = "HEARTBENCH_SCENARIO_EXPANSION"
    if not any(os.environ.get(f"{prefix}_{n}") for n in ("KIND", "API_KEY", "BASE_URL")):
        return None
    return ProviderConfig.from_env(prefix, os.environ)


def _expansion_call(config, *, user: str, schema: dict):
    """One structured expansion call at temperature 0, asked again at the endpoint's
    default temperature if the endpoint refuses the parameter."""
    configs = [at_temperature(config, EXPANSION_TEMPERATURE)]
    if configs[0].temperature != config.temperature:
        configs.append(config)
    for attempt in configs:
        client = make_client(attempt)
        try:
            result = client.complete_json(
                system=EXPANSION_SYSTEM_PROMPT,
                user=user,
                schema=schema,
                max_attempts=EXPANSION_ROUNDS,
            )
        finally:
            client.close()
        if not temperature_refused(result):
            break
    return result


def blueprint_expand(*, blueprint_id: int, config=None) -> ScenarioBlueprint:
    """Expand a pending blueprint through the LLM into a draft scenario (version 1).

    Idempotent: a blueprint that is not pending is returned unchanged, so a redelivered
    task expands nothing twice. The model call runs outside any transaction.
    """
    blueprint = ScenarioBlueprint.objects.get(pk=blueprint_id)
    if blueprint.status != ScenarioBlueprint.Status.PENDING:
        return blueprint
    config = config or expansion_provider_config()
    if config is None:
        return _blueprint_fail(
            blueprint_id=blueprint_id,
            error="No LLM provider is configured for scenario expansion: set "
            "HEARTBENCH_SCENARIO_EXPANSION_KIND (and its key/model), or enter the scenario "
            "by hand.",
        )
    stage = LIFE_STAGES[blueprint.stage]
    user = EXPANSION_USER_TEMPLATE.format(
        stage_label=stage.label,
        age_range=stage.release_age_range,
        first_age=stage.first_age,
        last_age=stage.last_age,
        dimension=blueprint.diamonds_dimension,
        title=blueprint.title,
        summary=blueprint.summary,
    )
    result = _expansion_call(config, user=user, schema=expansion_schema(blueprint.stage))
    record = {**result.as_dict(), "prompt_version": EXPANSION_PROMPT_VERSION}
    if not result.ok:
        if result.error_kind in ("schema_invalid", "invalid_json", "output_truncated"):
            error = (
                f"The model's answer was still invalid after {result.rounds} attempts "
                f"({result.error_kind}): {result.error_message}"
            )
        else:
            error = f"The model call failed ({result.error_kind}): {result.error_message}"
        return _blueprint_fail(blueprint_id=blueprint_id, error=error, record=record)
    return _blueprint_finish(blueprint_id=blueprint_id, parsed=result.parsed, record=record)


@transaction.atomic
def _blueprint_fail(*, blueprint_id: int, error: str, record=None) -> ScenarioBlueprint:
    blueprint = ScenarioBlueprint.objects.select_for_update().get(pk=blueprint_id)
    if blueprint.status != ScenarioBlueprint.Status.PENDING:
        return blueprint
    blueprint.status = ScenarioBlueprint.Status.FAILED
    blueprint.error = error
    blueprint.call_record = _json_safe(record or {})
    blueprint.finished_at = timezone.now()
    blueprint.save()
    return blueprint


def _json_safe(value):
    return json.loads(json.dumps(value, default=str))


@transaction.atomic
def _blueprint_finish(*, blueprint_id: int, parsed: dict, record: dict) -> ScenarioBlueprint:
    blueprint = ScenarioBlueprint.objects.select_for_update().get(pk=blueprint_id)
    if blueprint.status != ScenarioBlueprint.Status.PENDING:
        return blueprint
    stage = LIFE_STAGES[blueprint.stage]
    content = {
        "stage": blueprint.stage,
        "age_range": stage.release_age_range,
        "age": parsed["age"],
        "diamonds_dimension": blueprint.diamonds_dimension,
        "name": parsed["name"],
        "category": parsed["category"],
        "intensity": parsed["intensity"],
        "description_for_agent": parsed["description_for_agent"],
        "setting_location": parsed["setting"]["location"],
        "setting_time": parsed["setting"]["time"],
        "setting_atmosphere": parsed["setting"]["atmosphere"],
        "context_text": parsed["context_text"],
        "trigger_sender": parsed["trigger_event"]["sender"],
        "trigger_message": parsed["trigger_event"]["message_content"],
        "action_required": parsed["trigger_event"]["action_required"],
    }
    try:
        clean = clean_content(content)
    except ReviewError as error:
        blueprint.status = ScenarioBlueprint.Status.FAILED
        blueprint.error = "The expansion is unusable: " + " ".join(error.messages)
    else:
        blueprint.scenario = create_scenario(
            content=clean,
            origin=ScenarioVersion.Origin.BLUEPRINT,
            user=blueprint.created_by,
            note=f"LLM expansion of blueprint {blueprint.pk} ({record.get('model') or 'model'})",
            source=f"blueprint {blueprint.pk}",
        )
        blueprint.status = ScenarioBlueprint.Status.EXPANDED
    blueprint.call_record = _json_safe(record)
    blueprint.finished_at = timezone.now()
    blueprint.save()
    record_event(
        actor=None,
        action="blueprint_expand",
        scenario=blueprint.scenario,
        blueprint=blueprint.pk,
        status=blueprint.status,
    )
    return blueprint
