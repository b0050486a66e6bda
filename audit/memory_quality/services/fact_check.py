"""Fact preservation in the repair loop (issue #37, after seed 003 App. A.1-A.4): a
rewrite that clears its defect is checked against the memory it repaired before it is
kept. Two calls to the repair model, each recorded at the repair model's prices
(``HEARTBENCH_AUDIT_REPAIR_PRICE_*``) and each held at the run's spending limits like a
repair attempt: the first extracts the original's atomic facts (the passages the audit
flagged left out: the repair removes them), the second gives each fact a verdict against
the rewrite (present / missing / contradicted) and lists the facts the rewrite invented.

The check fails (``thresholds``) when more than ``max_omitted_rate`` of the facts are
missing, more than ``max_contradicted`` facts are contradicted, or more than
``max_invented`` facts are invented. A failed check is a further defect of the same
loop: the attempt is not kept, counts against its defect's attempts, and the next
attempt's prompt names the lost facts (``feedback_block``); after the last attempt the
memory goes to a memory reviewer with the lost facts named. A check that cannot be made
(a failed call, an unusable answer) does not let the rewrite through either.

"The original" is the memory as its case found it: before the case's first kept repair.
Its facts are extracted once per case and flagged passages; later attempts reuse them.
Criterion 4 (semantic duplication) is not checked: its repair writes a distinct episode
by design. The check is part of the loop by default; ``HEARTBENCH_AUDIT_FACT_CHECK=0``
turns it off.

The guide: docs/lab-admin/validity-fact-preservation.md.
"""

import hashlib
import json
import os
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from audit.memory_quality import criteria, fact_prompts
from audit.memory_quality.models import (
    MEMORY_TEXT_FIELDS,
    AuditCall,
    FactCheck,
    MemoryCase,
    MemoryFlag,
    MemoryVersion,
    RepairAttempt,
)
from audit.memory_quality.services.configuration import REPAIR_ROUNDS
from audit.memory_quality.services.records import audit_call_record
from core.plurals import counted
from llm import ProviderConfig, make_client

__all__ = [
    "ENABLE_SETTING",
    "EXEMPT_CRITERIA",
    "THRESHOLD_DEFAULTS",
    "applies",
    "enabled",
    "failure_note",
    "was_checked",
    "feedback_block",
    "open_check",
    "pending_step",
    "record_step",
    "run_step_call",
    "thresholds",
]

ENABLE_SETTING = "HEARTBENCH_AUDIT_FACT_CHECK"
#: Criterion 4's repair rewrites the episode as a distinct one: its facts change by design.
EXEMPT_CRITERIA = frozenset({criteria.SEMANTIC_DUPLICATION})
#: The limits of a passing rewrite, each overridable by its setting (``SETTINGS``).
THRESHOLD_DEFAULTS = {"max_omitted_rate": 0.10, "max_contradicted": 0, "max_invented": 2}
SETTINGS = {
    "max_omitted_rate": "HEARTBENCH_AUDIT_FACT_CHECK_MAX_OMITTED_RATE",
    "max_contradicted": "HEARTBENCH_AUDIT_FACT_CHECK_MAX_CONTRADICTED",
    "max_invented": "HEARTBENCH_AUDIT_FACT_CHECK_MAX_INVENTED",
}
_TRUE, _FALSE = {"1", "true", "yes", "on", ""}, {"0", "false", "no", "off"}


def _setting(name: str):
    """From the settings when set there, else from the environment (a worker is
    configured through its own), as the audit's prices are."""
    value = getattr(settings, name, None)
    return os.environ.get(name) if value is None else value


def enabled() -> bool:
    """``HEARTBENCH_AUDIT_FACT_CHECK``: on (the default; unset, empty, 1/true/yes/on) or
    off (0/false/no/off)."""
    value = _setting(ENABLE_SETTING)
    if isinstance(value, bool):
        return value
    text = str(value if value is not None else "").strip().lower()
    if text in _TRUE | _FALSE:
        return text in _TRUE
    raise ImproperlyConfigured(f"{ENABLE_SETTING} is on or off (1 or 0), not {value!r}.")


def thresholds() -> dict:
    """The limits in force: the omitted share a rate in [0, 1], the counts whole numbers
    of at least 0."""
    limits = {}
    for key, default in THRESHOLD_DEFAULTS.items():
        name = SETTINGS[key]
        value = _setting(name)
        if value is None or str(value).strip() == "":
            limits[key] = default
            continue
        try:
            number = float(value) if key == "max_omitted_rate" else int(str(value).strip())
        except ValueError:
            number = -1
        if number < 0 or (key == "max_omitted_rate" and number > 1):
            kind = "a count of 0 or more"
            if key == "max_omitted_rate":
                kind = "a share between 0 and 1"
            raise ImproperlyConfigured(f"{name} is {kind}, not {value!r}.")
        limits[key] = number
    return limits


def applies(criterion: int) -> bool:
    """Whether a rewrite of a defect on ``criterion`` is fact-checked before it is kept."""
    return criterion not in EXEMPT_CRITERIA and enabled()


# --- Opening a check (under the case's lock, in the attempt's transaction) -------------


def _case_original(case: MemoryCase, memory) -> dict:
    """The narrative fields before the case's first kept repair (the memory as the case
    found it); with none kept yet, the memory as it is now."""
    first = (
        MemoryVersion.objects.filter(case=case, origin=MemoryVersion.Origin.REPAIR)
        .order_by("number")
        .values_list("number", flat=True)
        .first()
    )
    if first is not None:
        before = (
            MemoryVersion.objects.filter(memory_id=memory.pk, number=first - 1)
            .values_list("fields", flat=True)
            .first()
        )
        if before:
            return {f: before.get(f, "") for f in MEMORY_TEXT_FIELDS}
    return {f: getattr(memory, f) for f in MEMORY_TEXT_FIELDS}


def _flagged_passages(case: MemoryCase, original: dict) -> list[str]:
    """The evidence the case's flags quoted that the original still contains."""
    text = "\n".join(original.values())
    passages = []
    flags = MemoryFlag.objects.filter(case=case).order_by("pk")
    for spans in flags.values_list("spans", flat=True):
        for span in spans or ():
            quote = (span.get("text") or "").strip()
            if quote and quote in text and quote not in passages:
                passages.append(quote)
    return passages


def open_check(*, case: MemoryCase, attempt: RepairAttempt, memory, changes: dict) -> FactCheck:
    """The fact check of a rewrite that cleared its defect. ``memory`` is the locked
    Memory row (not yet changed); the original's facts are reused from an earlier check
    of the case on the same text and flagged passages."""
    original = _case_original(case, memory)
    repaired = {f: changes.get(f, getattr(memory, f)) for f in MEMORY_TEXT_FIELDS}
    excluded = _flagged_passages(case, original)
    digest = hashlib.sha256(
        json.dumps([original, excluded], sort_keys=True, ensure_ascii=False).encode()
    ).hexdigest()
    earlier = (
        FactCheck.objects.filter(attempt__case=case, source_digest=digest)
        .exclude(facts=[])
        .order_by("-pk")
        .values_list("facts", flat=True)
        .first()
    )
    return FactCheck.objects.create(
        attempt=attempt,
        status=FactCheck.Status.CHECKING if earlier else FactCheck.Status.EXTRACTING,
        original=original,
        repaired=repaired,
        excluded=excluded,
        source_digest=digest,
        facts=earlier or [],
        facts_reused=bool(earlier),
        thresholds=thresholds(),
    )


# --- One step: a call made outside any transaction, then recorded ----------------------


@dataclass(frozen=True)
class Step:
    """What the next call of a case's pending fact check sends."""

    check_id: int
    status: str
    system: str
    user: str
    schema: dict


def pending_step(*, case_id: int) -> Step | None:
    """The next call of the case's fact check that awaits one, or None."""
    check = (
        FactCheck.objects.filter(
            attempt__case_id=case_id,
            attempt__case__status=MemoryCase.Status.REPAIRING,
            status__in=FactCheck.PENDING,
        )
        .order_by("-attempt__number")
        .first()
    )
    if check is None:
        return None
    if check.status == FactCheck.Status.EXTRACTING:
        system, user = fact_prompts.extract_prompt(original=check.original, excluded=check.excluded)
        schema = fact_prompts.EXTRACT_SCHEMA
    else:
        system, user = fact_prompts.check_prompt(
            facts=check.facts, original=check.original, repaired=check.repaired
        )
        schema = fact_prompts.CHECK_SCHEMA
    return Step(check.pk, check.status, system, user, schema)


def run_step_call(step: Step, *, provider: ProviderConfig):
    """The step's call (the llm ``CallResult``), never inside a transaction."""
    client = make_client(provider)
    try:
        return client.complete_json(
            system=step.system, user=step.user, schema=step.schema, max_attempts=REPAIR_ROUNDS
        )
    finally:
        client.close()


def record_step(*, case: MemoryCase, step: Step, result) -> FactCheck | None:
    """Store the step's call and what it answered; the caller holds the case's lock.
    None when this step was recorded already (a redelivered task)."""
    check = FactCheck.objects.select_for_update().get(pk=step.check_id)
    if check.status != step.status:
        return None
    extracting = check.status == FactCheck.Status.EXTRACTING
    kind = AuditCall.Kind.FACT_EXTRACT if extracting else AuditCall.Kind.FACT_CHECK
    call = audit_call_record(
        run_id=case.run_id,
        character_id=case.character_id,
        kind=kind,
        result=result,
        prices_of=AuditCall.Kind.REPAIR,
    )
    if extracting:
        check.extract_call = call
    else:
        check.check_call = call
    if not result.ok:
        check.status = FactCheck.Status.ERROR
        check.error = f"The {kind.label.lower()} call failed: {result.error_kind}: "
        check.error = (check.error + str(result.error_message))[:2000]
    else:
        try:
            if extracting:
                check.facts = fact_prompts.read_facts(result.parsed)
                check.status = FactCheck.Status.CHECKING
            else:
                verdicts, invented = fact_prompts.read_verdicts(result.parsed, check.facts)
                _decide(check, verdicts, invented)
        except fact_prompts.AnswerError as error:
            check.status = FactCheck.Status.ERROR
            check.error = str(error)[:2000]
    check.save()
    return check


def _decide(check: FactCheck, verdicts: list[dict], invented: list[str]) -> None:
    limits = check.thresholds or thresholds()
    check.verdicts, check.invented = verdicts, invented
    total = len(verdicts)
    check.missing_count = sum(v["verdict"] == fact_prompts.MISSING for v in verdicts)
    check.contradicted_count = sum(v["verdict"] == fact_prompts.CONTRADICTED for v in verdicts)
    check.invented_count = len(invented)
    check.omitted_rate = check.missing_count / total if total else 0.0
    reasons = []
    if check.omitted_rate > limits["max_omitted_rate"]:
        reasons.append(
            f"{check.missing_count} of {counted(total, 'fact')} missing "
            f"({100 * check.omitted_rate:.1f} %, limit {100 * limits['max_omitted_rate']:.1f} %)"
        )
    if check.contradicted_count > limits["max_contradicted"]:
        reasons.append(
            f"{counted(check.contradicted_count, 'fact')} contradicted "
            f"(limit {limits['max_contradicted']})"
        )
    if check.invented_count > limits["max_invented"]:
        reasons.append(
            f"{counted(check.invented_count, 'fact')} invented (limit {limits['max_invented']})"
        )
    check.reasons = reasons
    check.status = FactCheck.Status.FAILED if reasons else FactCheck.Status.PASSED


# --- What the loop says about a failed check -------------------------------------------


def _check_of(attempt: RepairAttempt | None) -> FactCheck | None:
    if attempt is None:
        return None
    try:
        return attempt.fact_check
    except FactCheck.DoesNotExist:
        return None


def was_checked(attempt: RepairAttempt | None) -> bool:
    """Whether ``attempt``'s rewrite went to the fact check (it had cleared its defect)."""
    return _check_of(attempt) is not None


def feedback_block(attempt: RepairAttempt | None) -> str:
    """The paragraph the next repair prompt carries after ``attempt`` failed its fact
    check (empty otherwise): the missing, contradicted and invented facts, named."""
    check = _check_of(attempt)
    if check is None or check.status != FactCheck.Status.FAILED:
        return ""
    return fact_prompts.lost_facts_block(
        missing=check.missing, contradicted=check.contradicted, invented=check.invented
    )


def failure_note(check: FactCheck) -> str:
    """One line for the case's repair note: why the last rewrite was not kept."""
    if check.status == FactCheck.Status.ERROR:
        return "the fact check of the last rewrite could not be made"
    named = " ".join(f"“{fact}”" for fact in (check.missing + check.contradicted)[:3])
    note = "the last rewrite lost facts of the original (fact check): " + "; ".join(check.reasons)
    return note + (f"; lost: {named}" if named else "")
