"""A small generation run for the one-command demo (SQLite, Celery eager, offline demo
provider: settings/local.py sets HEARTBENCH_<FAMILY>_KIND=offline_demo)."""

from django.db import transaction
from django.utils import timezone

from annotation.corpus.models import Character, Memory, ProfileVersion, Scenario
from annotation.generation.models import GenerationRun, ModelFamily
from annotation.generation.services.calls import generation_family_configs
from annotation.generation.services.runs import (
    GenerationError,
    generation_run_create,
    generation_run_start,
)

DEMO_RUN_NOTE = "Demo run (offline demo provider): 2 characters × 2 scenarios × 3 families."
DEMO_OVERRIDE_REASON = (
    "The one-command demo generates candidates before scenario review and the memory "
    "audit, so every later stage has something to show (a demo shortcut)."
)
DEMO_CHARACTERS = 2
DEMO_SCENARIOS = 2


def demo_generation(*, user) -> GenerationRun | None:
    """Freeze the demo stand-in profiles if needed, then create and run one small
    generation run, overriding the scenario-review and memory-audit gates (recorded as
    protocol deviations). Idempotent: when a demo run exists, nothing happens and it is
    returned. Refuses to run against anything but the offline demo provider."""
    existing = GenerationRun.objects.filter(note=DEMO_RUN_NOTE).first()
    if existing is not None:
        return existing
    configs = generation_family_configs()
    families = [f for f in ModelFamily.values if f in configs]
    if not families or any(not configs[f]["response"].is_demo for f in families):
        raise GenerationError(
            "The demo generation run uses the offline demo provider only; set "
            "HEARTBENCH_<FAMILY>_KIND=offline_demo (settings/local.py does)."
        )
    with_memories = Memory.objects.values_list("character_id", flat=True).distinct()
    characters = list(
        Character.objects.filter(pk__in=with_memories, versions__is_demo_standin=True)
        .distinct()
        .order_by("key")[:DEMO_CHARACTERS]
    )
    scenarios = list(Scenario.objects.order_by("-age", "scenario_id")[:DEMO_SCENARIOS])
    if not characters or not scenarios:
        return None
    with transaction.atomic():
        for character in characters:
            latest = character.versions.order_by("-number").first()
            if not latest.is_frozen:
                # ProfileVersion.save refuses to touch a frozen row, not to freeze one.
                ProfileVersion.objects.filter(pk=latest.pk).update(
                    frozen_at=timezone.now(), frozen_by=user
                )
        run = generation_run_create(
            user=user,
            families=families,
            characters=[c.key for c in characters],
            scenarios=[s.scenario_id for s in scenarios],
            note=DEMO_RUN_NOTE,
            # The demo's scenarios and memories have not been through review and audit
            # yet: the override is recorded, so the demo's manifest lists it honestly.
            override_gates=True,
            override_reason=DEMO_OVERRIDE_REASON,
        )
        generation_run_start(run_id=run.pk)
    # Celery is eager in the demo: the units ran when the transaction committed.
    run.refresh_from_db()
    return run
