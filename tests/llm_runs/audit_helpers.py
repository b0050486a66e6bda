"""A small memory corpus the audit flags, and the audit's repair and classifier models on
the fake provider (real HTTP on loopback), priced (issue #36)."""

from audit.memory_quality.models import MemoryCase
from audit.memory_quality.services.repair_loop import repair_attempt_run
from audit.memory_quality.services.runs import audit_run_execute, audit_run_start
from llm import ProviderConfig
from tests.factories import CharacterFactory, MemoryFactory
from tests.memory_quality.conftest import CLEAN, CLEAN_REWRITE, CONTEXT, DRIFT, SUMMARY

#: USD per million tokens, in and out.
REPAIR_PRICES = ("3", "15")
CLASSIFIER_PRICES = ("1", "5")


def flagged_corpus(keys, *, clean=True):
    """Per character: one memory with a single defect (criterion 1, "Years later" in its
    narrative) at 20 and, unless ``clean`` is False, one that passes at 40 (another age
    window, so the two are never compared as duplicates)."""
    memories = []
    for key in keys:
        character = CharacterFactory(key=key)
        fields = dict(context=CONTEXT, content_summary=SUMMARY, emotion_intensity=0.7)
        memories.append(
            MemoryFactory(character=character, event_age=20, content_full=DRIFT, **fields)
        )
        if clean:
            MemoryFactory(character=character, event_age=40, content_full=CLEAN, **fields)
    return memories


def answer(req):
    """The fake provider: a repair rewrites the narrative cleanly; the classifier finds
    no defect."""
    properties = (req.schema() or {}).get("properties", {})
    if "defect" in properties:
        return {"defect": False, "evidence": "", "rationale": "In the moment throughout."}
    return {"content_full": CLEAN_REWRITE}


def provider(server, kind="openai", model="fake-repair"):
    return ProviderConfig(
        kind=kind,
        model=model,
        base_url=server.base_url(kind),
        timeout=5.0,
        max_retries=1,
        backoff_base=0.01,
        backoff_cap=0.05,
    )


def configure(settings, server, *, classifier=False, fact_check=False):
    """The repair (and, with ``classifier``, the classifier) model on ``server``, priced.
    The fact check is off unless ``fact_check``: these tests count and price the repair
    and classifier calls; the fact check's calls under a budget and in the estimate are
    tests/fact_preservation's (test_fact_check_budget, test_fact_check_estimate)."""
    settings.HEARTBENCH_AUDIT_FACT_CHECK = fact_check
    settings.HEARTBENCH_AUDIT_REPAIR_PROVIDER = provider(server)
    settings.HEARTBENCH_AUDIT_REPAIR_PRICE_IN, settings.HEARTBENCH_AUDIT_REPAIR_PRICE_OUT = (
        REPAIR_PRICES
    )
    if classifier:
        settings.HEARTBENCH_AUDIT_CLASSIFIER_PROVIDER = provider(
            server, kind="anthropic", model="fake-classifier"
        )
        (
            settings.HEARTBENCH_AUDIT_CLASSIFIER_PRICE_IN,
            settings.HEARTBENCH_AUDIT_CLASSIFIER_PRICE_OUT,
        ) = CLASSIFIER_PRICES
    else:
        settings.HEARTBENCH_AUDIT_CLASSIFIER_PROVIDER = None


def audit_and_repair(*, user, keys=(), budget_usd=None):
    """A run over ``keys`` (empty: all), its checks and every repair made in-process."""
    run = audit_run_start(created_by=user, character_keys=keys, budget_usd=budget_usd)
    audit_run_execute(run_id=run.pk, dispatch_repairs=False)
    for _ in range(20):
        repairing = list(run.cases.filter(status=MemoryCase.Status.REPAIRING))
        if not repairing:
            break
        for case in repairing:
            repair_attempt_run(case_id=case.pk, dispatch=False)
    run.refresh_from_db()
    return run
