"""The classifier-versus-reviewers report's part of `make demo`: records for the report.

The stand-in memories of a character are written from one template, so their TF-IDF
cosines sit around 0.35-0.55 (criterion 4 is off in the demo's own audit for that
reason). A second demo audit run uses exactly that: one stand-in character, criterion 4
only, at a duplication threshold of 0.40, which flags many of its memories (a settings
version of its own; the settings in force before are restored as the next version, so
the lab's current settings do not change). Its cases go
to the memory reviewers without automated rewriting, a scripted offline classifier gives
its verdict on criterion 4 for each (a duplicate on every third case: the offline demo
model flags too few memories for a report), and the demo's memory reviewers decide them:
they uphold the classifier's flags but one in five and find a duplicate in one in five
of the others; the reviewing team overrides the rest as false positives. The decisions
are scripted; the report computed from them is real. Idempotent: a second call finds
the run and returns it.
"""

from django.contrib.auth import get_user_model
from django.db import transaction

from annotation.corpus.models import Memory
from audit.memory_quality.criteria import SEMANTIC_DUPLICATION
from audit.memory_quality.models import AuditRun, MemoryCase
from audit.memory_quality.services import classifier, configuration, repair_loop, review, runs
from core.roles import Role
from llm import CallResult, ProviderConfig

DEMO_NOTE = "Demo: the LLM classifier against the memory reviewers (duplication only)"
SETTINGS_NOTE = (
    "Demo: duplication only, at a cosine above 0.40 (the stand-ins' own similarity), for "
    "the classifier-against-reviewers report"
)
#: The demo run's duplication threshold: within the stand-ins' own range of cosines.
DEMO_THRESHOLD = 0.40
OFFLINE_DEMO = ProviderConfig(kind="offline_demo", model="offline-demo")


def classifier_flags(i: int) -> bool:
    """The scripted classifier's verdict on the i-th case of the run: a duplicate."""
    return i % 3 == 0


def reviewers_confirm(i: int) -> bool:
    """The scripted reviewers' decision on the i-th case: they uphold the classifier's
    flags but one in five, and find a duplicate in one in five of the others."""
    return (i % 5 != 4) if classifier_flags(i) else (i % 5 == 1)


def _scripted_verdict(defect: bool) -> CallResult:
    return CallResult(
        provider="offline_demo",
        model="offline-demo",
        prompt_hash="",
        ok=True,
        parsed={
            "defect": defect,
            "evidence": "",
            "rationale": "[offline demo classifier] scripted verdict: "
            + ("the memory repeats another one." if defect else "the episodes differ."),
        },
        demo=True,
    )


def _character_key() -> str | None:
    """The first stand-in character (in key order) with a dozen memories or more and no
    audit case yet (the demo's own audit run planted its defects in the first ones)."""
    with_cases = set(MemoryCase.objects.values_list("character__key", flat=True))
    counts: dict[str, int] = {}
    for key in (
        Memory.objects.filter(is_demo_standin=True)
        .values_list("character__key", flat=True)
        .order_by("character__key")
    ):
        counts[key] = counts.get(key, 0) + 1
    return next((k for k, n in counts.items() if n >= 12 and k not in with_cases), None)


def demo_classifier_agreement(*, users: dict) -> AuditRun | None:
    """The demo's duplication run with the classifier's verdicts and the reviewers'
    decisions (see the module docstring)."""
    existing = AuditRun.objects.filter(note=DEMO_NOTE).first()
    if existing is not None:
        return existing
    admin = users.get(Role.ADMIN.value)
    team = configuration.override_team_size()
    reviewers = list(
        get_user_model()
        .objects.filter(groups__name=Role.MEMORY_REVIEWER.value)
        .order_by("username")[:team]
    )
    key = _character_key()
    if admin is None or key is None or len(reviewers) < team:
        return None
    before = configuration.audit_settings_current()
    version = configuration.audit_settings_create(
        created_by=admin,
        note=SETTINGS_NOTE,
        enabled_criteria=[SEMANTIC_DUPLICATION],
        duplicate_threshold=DEMO_THRESHOLD,
    )
    run = runs.audit_run_start(
        created_by=admin, character_keys=[key], note=DEMO_NOTE, settings_version=version
    )
    configuration.audit_settings_create(
        created_by=admin,
        note=before.note,
        enabled_criteria=list(before.enabled_criteria),
        duplicate_threshold=before.duplicate_threshold,
    )
    runs.audit_run_execute(run_id=run.pk, dispatch_repairs=False, provider=OFFLINE_DEMO)
    cases = list(MemoryCase.objects.filter(run=run).order_by("pk"))
    for case in cases:
        with transaction.atomic():
            locked = MemoryCase.objects.select_for_update().get(pk=case.pk)
            if locked.status == MemoryCase.Status.REPAIRING:
                repair_loop._escalate(
                    locked, note="Demo: sent to the memory reviewers without automated rewriting."
                )
    for i, case in enumerate(cases):
        classifier._classifier_record(
            run_id=run.pk,
            memory=Memory.objects.get(pk=case.memory_id),
            criterion=SEMANTIC_DUPLICATION,
            result=_scripted_verdict(classifier_flags(i)),
        )
    for i, case in enumerate(cases):
        if MemoryCase.objects.get(pk=case.pk).status != MemoryCase.Status.REVIEW:
            continue
        if reviewers_confirm(i):
            review.case_review_decide(
                case_id=case.pk,
                reviewer=reviewers[0],
                decision=MemoryCase.Decision.CONFIRMED,
                reason="Demo: the memory repeats another one of the character's.",
            )
            continue
        for reviewer in reviewers:
            review.case_review_decide(
                case_id=case.pk,
                reviewer=reviewer,
                decision=MemoryCase.Decision.FALSE_POSITIVE,
                reason="Demo: the stand-ins share a template; the episodes differ.",
            )
    run.refresh_from_db()
    return run
