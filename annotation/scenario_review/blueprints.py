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

from annotation.corpus.life_stages import BY_KEY as LIFE_STAGES
from annotation.profile_review.models import ReviewError
from annotation.profile_review.services import record_event, require_role
from annotation.scenario_review.models import (
    DIAMONDS_DIMENSION_CHOICES,
    SCENARIO_INTENSITIES,
    ScenarioBlueprint,
    ScenarioVersion,
)
from annotation.scenario_review.services import clean_content, create_scenario
from heartbench_site.base.roles import Role
from llm import ProviderConfig, make_client


@transaction.atomic
def blueprint_create(
    *, user, title: str, summary: str, stage: str, diamonds_dimension: str
) -> ScenarioBlueprint:
    """Store an expert blueprint; the caller queues its expansion on commit."""
    require_role(user, Role.SCENARIO_REVIEWER, "draft scenario blueprints")
    problems = []
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


# App. L.4, abridged: the scenario-facing fields and the character-agnostic principles.
EXPANSION_SYSTEM_PROMPT = """You are a psychological-scenario design expert. Your task is to \
expand a short scenario sketch into a complete, high-quality scenario JSON object.
Fields: name (English scenario name); category (two short labels separated by " / "); \
intensity (Low / Medium / High / Very High / Extreme); age (the age of the person facing the \
scenario, inside the life-stage bin); description_for_agent (one sentence summarizing the \
scenario without revealing concrete details); setting (location, time, and 2-3 atmosphere \
adjectives); context_text (150-300 word background narrative in the second person "you"); \
trigger_event (sender: a concrete role; message_content: 100-200 words of dialogue with \
parenthetical action descriptions, colloquial and emotionally charged; action_required: 1-2 \
sentences specifying the decision the character must make right now).
Key principles: 1. Character-neutral: the scenario must not presuppose any personality. \
2. No identity anchors for "you": never write "you are X years old", "you have worked as Y \
for Z years", "you are a W", "you have an N-year-old child"; the scenario provides only the \
objective situation and pressure. 3. Concrete, not abstract: specific places, times, named \
secondary characters, sensory detail. 4. context_text uses second person "you". 5. The \
trigger event must create urgency. 6. Tightly aligned with the DIAMONDS dimension. \
7. Age-appropriate for the developmental stage."""

EXPANSION_USER_TEMPLATE = """\
Life-stage bin: {stage_label} ({age_range}; ages {first_age}-{last_age})
Dominant DIAMONDS dimension: {dimension}
Summary title: {title}
Summary: {summary}

Expand this summary into the full JSON object."""


def expansion_schema(stage_key: str) -> dict:
    stage = LIFE_STAGES[stage_key]
    text = {"type": "string", "minLength": 1}
    return {
        "type": "object",
        "required": [
            "name",
            "category",
            "intensity",
            "age",
            "description_for_agent",
            "setting",
            "context_text",
            "trigger_event",
        ],
        "properties": {
            "name": text,
            "category": text,
            "intensity": {"type": "string", "enum": list(SCENARIO_INTENSITIES)},
            "age": {"type": "integer", "minimum": stage.first_age, "maximum": stage.last_age},
            "description_for_agent": text,
            "setting": {
                "type": "object",
                "required": ["location", "time", "atmosphere"],
                "properties": {"location": text, "time": text, "atmosphere": text},
            },
            "context_text": text,
            "trigger_event": {
                "type": "object",
                "required": ["sender", "message_content", "action_required"],
                "properties": {
                    "sender": text,
                    "message_content": text,
                    "action_required": text,
                },
            },
        },
    }


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
    # App. L.4: up to two retries on failure.
    client = make_client(config)
    try:
        result = client.complete_json(
            system=EXPANSION_SYSTEM_PROMPT,
            user=user,
            schema=expansion_schema(blueprint.stage),
            max_attempts=3,
        )
    finally:
        client.close()
    record = result.as_dict()
    if not result.ok:
        return _blueprint_fail(
            blueprint_id=blueprint_id,
            error=f"The model call failed ({result.error_kind}): {result.error_message}",
            record=record,
        )
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
