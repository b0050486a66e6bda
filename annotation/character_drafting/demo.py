"""A finished drafting job for the one-command demo: two stand-in characters drafted by
the offline demo provider (no key, no worker, a few milliseconds), each labelled as demo
text and flagged ``is_demo_standin``, waiting in profile review as version 1.

The release's characters are CHAR_01-CHAR_11 (the demo's stand-ins take those keys), so
the drafted ones take the first two free keys from CHAR_12 on."""

from django.db import transaction

from annotation.character_drafting.design import anchored
from annotation.character_drafting.models import DraftingJob
from annotation.character_drafting.services.execution import character_draft_execute
from annotation.character_drafting.services.jobs import drafting_job_create
from annotation.corpus.models import Character
from llm import ProviderConfig

DEMO_JOB_NOTE = (
    "Demo job (offline demo provider): two stand-in characters drafted from a custom design."
)
DEMO_MODEL = "offline-demo-drafting"
DEMO_ANCHORS = (("E", "high"), ("A", "low"))
FIRST_DEMO_NUMBER = 12


def _free_keys(count: int) -> list[str]:
    taken = set(Character.objects.values_list("key", flat=True))
    keys, number = [], FIRST_DEMO_NUMBER
    while len(keys) < count and number < 100:
        key = f"CHAR_{number:02d}"
        if key not in taken:
            keys.append(key)
        number += 1
    return keys


def demo_drafting(*, user) -> DraftingJob:
    """Create and run the demo drafting job. Idempotent: when a demo job exists it is
    returned unchanged."""
    existing = DraftingJob.objects.filter(is_demo=True, note=DEMO_JOB_NOTE).first()
    if existing is not None:
        return existing
    provider = ProviderConfig(kind="offline_demo", model=DEMO_MODEL)
    keys = _free_keys(len(DEMO_ANCHORS))
    plan = [
        anchored(key, trait, pole) for key, (trait, pole) in zip(keys, DEMO_ANCHORS, strict=True)
    ]
    with transaction.atomic():
        job = drafting_job_create(
            user=user,
            plan=plan,
            design=DraftingJob.Design.CUSTOM,
            design_text="\n".join(f"{p.char_key}: {p.anchor_trait} {p.pole}" for p in plan),
            note=DEMO_JOB_NOTE,
            provider=provider,
            queue=False,
            is_demo=True,
        )
    for draft_id in job.drafts.order_by("pk").values_list("pk", flat=True):
        character_draft_execute(draft_id=draft_id, provider=provider)
    job.refresh_from_db()
    return job
