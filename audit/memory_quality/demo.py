"""The memory audit's part of `make demo` (seed 000 §2.2 Stage 3, App. B.6).

The demo's stand-in memories are clean, so three of them get a planted defect, each
kept as a labelled memory version ("Demo: planted defect") and marked in the text.
The automated audit then runs, with the offline demo provider as the repair model:

- the field-length inversion (context) is rewritten under the character's profile and
  passes: "passed after automated rewriting", its one defect showing 1 of 3 attempts;
- the two narrative defects are sent to the manual queue without automated rewriting
  (the offline provider's rewrite would pass, and the demo wants the reviewers' steps to
  try); the demo memory reviewer confirms one, which then awaits the senior expert's
  edit, and leaves the other for the reviewer to try (a false positive there takes effect
  once the reviewing team, three reviewers by default, has agreed).

Under the demo's settings (settings/local.py) the offline demo provider is the LLM
classifier too, so the repair's re-check and a senior expert's edit pass the LLM re-check
of App. B.6 as well as the patterns.

The stand-ins share one template per character, so TF-IDF would call them all
duplicates of each other; the demo's settings version turns criterion 4 off and says so.
Idempotent: a second call finds the demo run and returns it.

``demo_fact_check_case`` adds a second, small run (issue #37's fact check, on by
default): a fourth stand-in memory (the shortest) gets a planted hindsight marker and
planted facts (a fifth of its facts, at least three) that the offline rewrite leaves
out (``llm.demo.audit.DROPPED_FACT``). Each rewrite clears the marker but loses those
facts, so the fact check sends it back three times and the memory reviewer finds the
case with the missing facts named.
"""

from django.db import transaction
from django.db.models.functions import Length

from annotation.corpus.models import Memory
from annotation.profile_review.demo import demo_accounts
from audit.memory_quality.models import MEMORY_TEXT_FIELDS, AuditRun, MemoryCase
from audit.memory_quality.services import configuration, records, repair_loop, review, runs
from core.roles import Role
from llm import ProviderConfig
from llm.demo.audit import DROPPED_FACT
from llm.testing.fact_check import sentences

DEMO_NOTE = "Demo audit of the stand-in memories (three planted defects)"
DEMO_SETTINGS_NOTE = "Demo: criterion 4 off; the stand-in memories share one template per character"
PLANTED = "(planted demo defect)"
OFFLINE_DEMO = ProviderConfig(kind="offline_demo", model="offline-demo")


def _plant(memories) -> dict[str, str]:
    """memory id → the criterion planted, on three distinct stand-in memories."""
    child = next((m for m in memories if m.event_age <= 12), memories[0])
    rest = [m for m in memories if m.pk != child.pk]
    context_memory, drift_memory = rest[0], rest[1]
    records.demo_defect_plant(
        memory_id=context_memory.memory_id,
        field="context",
        text=(
            "The kettle clicked off, someone called my name from the hallway twice, I "
            "answered that I was coming, and I finished drying the cups first "
            f"{PLANTED}."
        ),
        note="Demo: planted field-length inversion (criterion 3)",
    )
    records.demo_defect_plant(
        memory_id=drift_memory.memory_id,
        field="content_full",
        text=f"Years later I understood what that call had really meant {PLANTED}.",
        note="Demo: planted omniscient-narrator marker (criterion 1)",
    )
    records.demo_defect_plant(
        memory_id=child.memory_id,
        field="content_full",
        text=f"Looking back, I now understand that I was afraid {PLANTED}.",
        note="Demo: planted adult evaluation (criterion 2)",
    )
    return {
        context_memory.memory_id: "3",
        drift_memory.memory_id: "1",
        child.memory_id: "2",
    }


def demo_memory_audit(*, users: dict) -> AuditRun | None:
    existing = AuditRun.objects.filter(note=DEMO_NOTE).first()
    if existing is not None:
        return existing
    memories = list(
        Memory.objects.filter(is_demo_standin=True).order_by("character__key", "sequence")[:40]
    )
    if len(memories) < 3:
        return None
    admin = users[Role.ADMIN.value]
    planted = _plant(memories)
    configuration.audit_settings_current()
    version = configuration.audit_settings_create(
        created_by=admin, note=DEMO_SETTINGS_NOTE, enabled_criteria=[1, 2, 3, 5, 6]
    )
    run = runs.audit_run_start(created_by=admin, note=DEMO_NOTE, settings_version=version)
    # The demo runs in-process: `make demo` needs no worker.
    runs.audit_run_execute(run_id=run.pk, dispatch_repairs=False, provider=OFFLINE_DEMO)
    narrative = [k for k, c in planted.items() if c != "3"]
    for case in MemoryCase.objects.filter(run=run, status=MemoryCase.Status.REPAIRING):
        if case.memory.memory_id in narrative:
            with transaction.atomic():
                locked = MemoryCase.objects.select_for_update().get(pk=case.pk)
                repair_loop._escalate(
                    locked, note="Demo: sent to manual review without automated rewriting."
                )
            continue
        # Each call runs one repair attempt and says whether another one is due.
        again = True
        while again:
            again = repair_loop.repair_attempt_run(
                case_id=case.pk, provider=OFFLINE_DEMO, dispatch=False
            )
    child_case = MemoryCase.objects.filter(
        run=run,
        status=MemoryCase.Status.REVIEW,
        memory__memory_id__in=[k for k, c in planted.items() if c == "2"],
    ).first()
    if child_case is not None:
        review.case_review_decide(
            case_id=child_case.pk,
            reviewer=users[Role.MEMORY_REVIEWER.value],
            decision=MemoryCase.Decision.CONFIRMED,
            reason="Adult retrospective appraisal in a child-age memory (demo).",
        )
    run.refresh_from_db()
    return run


FACT_CHECK_NOTE = "Demo audit: a rewrite that lost facts of its memory (fact check)"
#: Facts the demo's rewrite drops: enough of them (``_lost_facts``) to put the omitted
#: share over the default 10 % limit whatever the stand-in memory's length.
LOST_FACTS = tuple(
    f"{fact} {DROPPED_FACT}."
    for fact in (
        "I wrote the bus number on the back of my left hand",
        "My brother held the door open with his foot",
        "The kitchen radio read out the weather report twice",
        "A blue bicycle leaned against the fence by the gate",
        "Someone had left a half-eaten apple on the windowsill",
        "The clock above the stove was ten minutes fast",
        "I folded the letter into four and put it in my shoe",
        "Our neighbour's dog barked at every car that passed",
        "The tap in the bathroom dripped all afternoon",
        "I had a plaster on my right knee from the day before",
        "The curtains in the front room were drawn halfway",
        "My sister hummed the same tune over and over",
    )
)
HINDSIGHT = f"Years later I understood why the room had gone so quiet {PLANTED}."


def _lost_facts(memory) -> tuple[str, ...]:
    """The planted facts for ``memory``: a fifth of the facts it will hold, at least 3."""
    held = len(sentences(" ".join(getattr(memory, f) for f in MEMORY_TEXT_FIELDS)))
    return LOST_FACTS[: min(len(LOST_FACTS), max(3, held // 4 + 1))]


def _repair_in_process(run: AuditRun) -> None:
    for case in MemoryCase.objects.filter(run=run, status=MemoryCase.Status.REPAIRING):
        again = True  # each call runs one step and says whether another one is due
        while again:
            again = repair_loop.repair_attempt_run(
                case_id=case.pk, provider=OFFLINE_DEMO, dispatch=False
            )


def demo_fact_check_case(*, users: dict) -> AuditRun | None:
    """A finished run whose one case awaits the memory reviewer after its rewrites lost
    planted facts; None when the demo has no memory for it (or no earlier demo run)."""
    existing = AuditRun.objects.filter(note=FACT_CHECK_NOTE).first()
    if existing is not None:
        return existing
    first = AuditRun.objects.filter(note=DEMO_NOTE).first()
    if first is None:
        return None
    planted = set(first.cases.values_list("character_id", flat=True))
    memory = (  # the shortest: its facts and the planted ones stay within one extraction
        Memory.objects.filter(is_demo_standin=True)
        .exclude(character_id__in=planted)
        .order_by(Length("content_full"), "character__key", "sequence")
        .first()
    )
    if memory is None:
        return None
    records.demo_defect_plant(
        memory_id=memory.memory_id,
        field="content_full",
        text=" ".join(_lost_facts(memory)) + " " + HINDSIGHT,
        note="Demo: planted hindsight marker and facts its rewrite drops (criterion 1)",
    )
    run = runs.audit_run_start(
        created_by=users[Role.ADMIN.value],
        note=FACT_CHECK_NOTE,
        character_keys=[memory.character.key],
        settings_version=first.settings_version,
    )
    runs.audit_run_execute(run_id=run.pk, dispatch_repairs=False, provider=OFFLINE_DEMO)
    _repair_in_process(run)
    run.refresh_from_db()
    return run


def demo_memory_reviewers() -> list[tuple[str, Role, str]]:
    """The two other memory reviewers of the demo: a false-positive override takes effect
    only when the reviewing team agrees (App. B.6; three by default), so a new user can
    complete one by logging in as ``memory``, ``memory2`` and ``memory3`` in turn."""
    return demo_accounts((("memory2", Role.MEMORY_REVIEWER), ("memory3", Role.MEMORY_REVIEWER)))
