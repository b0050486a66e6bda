"""Release hygiene's part of `make demo` (issue #37): an e-mail address and a phone
number are planted in one stand-in memory (kept as a labelled memory version, "Demo:
planted personal data"), then a screen runs over the demo corpus in-process (the demo needs no
worker) and finishes; the planted spans wait, open, for the memory reviewers.
Idempotent: a second call finds the demo screen and returns it."""

from django.db import transaction

from annotation.corpus.models import Character, Memory
from audit.hygiene import services
from audit.hygiene.models import HygieneRun
from audit.memory_quality.corpus import audited_memories
from audit.memory_quality.models import MemoryVersion
from audit.memory_quality.services import records
from core.roles import Role

DEMO_NOTE = "Demo screen of the stand-in corpus (an e-mail address and a phone number planted)"
PLANTED = "Write to me at robin.demo@example.org or ring 020 7946 0958 (planted demo defect)."


def demo_release_hygiene(*, users: dict) -> HygieneRun | None:
    existing = HygieneRun.objects.filter(note=DEMO_NOTE).first()
    if existing is not None:
        return existing
    character = Character.objects.filter(memories__is_demo_standin=True).order_by("key").first()
    if character is None:
        return None
    memory = audited_memories(character.pk, key=character.key).last()
    if memory is None:
        return None
    _plant(memory.pk)
    run = services.hygiene_run_start(created_by=users[Role.ADMIN.value], note=DEMO_NOTE)
    for unit_id in services.FLOW.units(run.pk).order_by("pk").values_list("pk", flat=True):
        services.hygiene_unit_screen(unit_id=unit_id)
    run.refresh_from_db()
    return run


@transaction.atomic
def _plant(memory_pk: int) -> None:
    memory = Memory.objects.select_for_update().get(pk=memory_pk)
    if not memory.is_demo_standin or PLANTED in memory.content_full:
        return
    records.memory_change(
        memory=memory,
        changes={"content_full": f"{memory.content_full} {PLANTED}"},
        origin=MemoryVersion.Origin.DEMO_PERSONAL_DATA,
        note="Demo: planted personal data (release hygiene)",
    )
