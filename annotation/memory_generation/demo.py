"""Memory generation's part of `make demo`: a generated stand-in character at the audit
stage (seed 000 §2.2 Stage 2, App. B.4, B.5).

``demo_memory_generation`` writes one stand-in character (labelled ``is_demo_standin``)
with a frozen stand-in profile (a demo shortcut past drafting and profile review), then
goes through the real stages: an initial plan with a small target, a run on the offline
demo provider (settings/local.py sets ``HEARTBENCH_MEMORY_KIND=offline_demo``) whose
batches Celery runs eagerly when the transaction commits. Its memories then wait in the
corpus for the memory audit like any others. Idempotent: a second call finds the demo
run and returns it.
"""

from django.db import transaction
from django.utils import timezone

from annotation.corpus.models import Character, ProfileVersion
from annotation.memory_generation.models import MemoryRun
from annotation.memory_generation.services import plans as plan_services
from annotation.memory_generation.services import runs as run_services

DEMO_NOTE = "Demo: a generated stand-in character (offline demo provider, small quota)"
DEMO_CHARACTER = "CHAR_14"
DEMO_QUOTA = 40
STANDIN = "[Demo stand-in, generated on the platform]"


def _standin_profile(character: Character, user) -> ProfileVersion:
    return ProfileVersion.objects.create(
        character=character,
        number=1,
        construction_label=f"High-Openness set designer {STANDIN}",
        occupation="theatre set designer",
        openness=0.95,
        conscientiousness=0.45,
        extraversion=0.55,
        agreeableness=0.6,
        neuroticism=0.4,
        description=f"{STANDIN} Restless and curious; builds worlds out of cardboard and light.",
        self_value_logic=f"{STANDIN} I matter when I make something nobody has seen before.",
        core_patterns=[
            f"{STANDIN} {pattern}"
            for pattern in (
                "Rearranges any room they spend an hour in.",
                "Asks how a thing works before being told what it is for.",
                "Loses track of time when making something.",
                "Gets bored by repeated routines and invents variations.",
                "Collects odd objects for later projects.",
                "Says yes to unfamiliar invitations.",
                "Argues for the unusual option in group decisions.",
                "Sketches while listening.",
            )
        ],
        is_demo_standin=True,
        source="demo: memory generation stand-in",
        frozen_at=timezone.now(),
        frozen_by=user,
    )


def demo_memory_generation(*, user, character_key: str = DEMO_CHARACTER) -> MemoryRun:
    """The demo run, created and run once; refuses anything but the offline demo provider."""
    existing = MemoryRun.objects.filter(note=DEMO_NOTE).first()
    if existing is not None:
        return existing
    config = run_services.memory_provider_config()
    if config is None or not config.is_demo:
        raise run_services.MemoryGenerationError(
            "The demo memory generation run uses the offline demo provider only; set "
            "HEARTBENCH_MEMORY_KIND=offline_demo (settings/local.py does)."
        )
    with transaction.atomic():
        character, _ = Character.objects.get_or_create(key=character_key)
        if not character.versions.exists():
            _standin_profile(character, user)
        plans = plan_services.plan_create(
            user=user,
            character_keys=[character.key],
            target=DEMO_QUOTA,
            note="Demo: a small target",
        )
        run = run_services.run_create(
            user=user, plan_ids=[p.pk for p in plans], concurrency=4, note=DEMO_NOTE
        )
        run_services.run_start(run_id=run.pk, user=user)
    # Celery is eager in the demo: the batches ran when the transaction committed, and
    # the memories of the stand-in profile are flagged as stand-ins too.
    run.refresh_from_db()
    return run
