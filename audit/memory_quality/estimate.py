"""The cost estimate of a memory audit run's LLM calls before launch (issue #36; the
arithmetic is ``core.llm_runs.estimate``).

The pattern checks (criteria 1-6) cost nothing; what costs is the repair loop that takes
up every flagged memory once the checks are done, and, with a classifier configured,
each repair's re-check. Which memories are flagged is what the checks find, so the
estimate runs the stage's own checks (``criteria.audit_memories``, as the worker does)
over the characters' memories (all, or an even sample of ``SAMPLE_CHARACTERS`` scaled up
by their memory count) and builds each flagged memory's repair prompt (of at most
``SAMPLE_FLAGGED`` of them, spread evenly and scaled up) with the loop's own builders
(``repair.repair_prompt``). It assumes:

* one attempt per defect (one criterion on one field), each passing its re-check: a
  failed attempt is asked again, up to the settings' attempts, and costs more;
* a defect after a memory's first is asked about the memory's text as the audit found
  it (a later attempt sees the text the earlier ones rewrote);
* with a classifier, one re-check call per criterion in use after each attempt;
* with the fact check on (``services.fact_check``), one extraction of the memory's facts
  and one check per attempt at a defect it covers, the facts about one a sentence.

A classifier pass an admin queues later on a finished run is one call per memory and
criterion, and counts towards the same budget; it is not part of this estimate.
"""

import re
from decimal import Decimal

from annotation.corpus.models import Character, Memory
from audit.memory_quality import criteria, fact_prompts, repair, selectors
from audit.memory_quality.models import AuditCall, AuditSettings
from audit.memory_quality.services import checks, fact_check
from audit.memory_quality.services.configuration import (
    audit_settings_defaults,
    classifier_provider,
    repair_provider,
)
from audit.memory_quality.services.prices import call_prices
from core.llm_runs.estimate import PlannedCall, average_output_tokens, estimate_run, even_sample

__all__ = ["ASSUMED_OUTPUT_TOKENS", "SAMPLE_CHARACTERS", "audit_cost_estimate"]

#: Characters whose memories are checked; more are scaled up from an even sample.
SAMPLE_CHARACTERS = 3
#: Flagged memories whose prompts are built; more are scaled up from an even sample.
SAMPLE_FLAGGED = 40
Kind = AuditCall.Kind
#: Output tokens assumed per answer before any call of the kind was recorded: a repair
#: rewrites a field of up to a few thousand characters (content_full is guided to
#: 2,000-4,500, App. B.6), a classifier answers a boolean, a quote and a reason.
ASSUMED_OUTPUT_TOKENS = {
    Kind.REPAIR: 900,
    Kind.CLASSIFIER: 120,
    # A few dozen one-sentence facts; a verdict and a short note for each.
    Kind.FACT_EXTRACT: 700,
    Kind.FACT_CHECK: 900,
}


def finding_dict(finding: criteria.Finding) -> dict:
    """A finding as the repair loop reads it back from its stored flag."""
    return {
        "criterion": finding.criterion,
        "field": finding.field,
        "detail": finding.detail[:500],
        "spans": [
            {"field": s.field, "start": s.start, "end": s.end, "text": s.text}
            for s in finding.spans
        ],
        "source": finding.source,
    }


def memory_calls(
    memory: Memory, found: list, enabled, facts_checked: bool = False
) -> list[tuple[str, str, str, dict]]:
    """(kind, system, user, schema) of every call the repair loop is assumed to make for
    one flagged ``memory`` whose checks found ``found`` (the criteria ``enabled`` are the
    re-check's; empty: no classifier; ``facts_checked``: the fact check is on)."""
    findings = [finding_dict(f) for f in sorted(found, key=lambda f: f.criterion)]
    data = checks.memory_dict(memory)
    profile = selectors.repair_profile(character_id=memory.character_id)
    constraints = checks.generation_constraints(memory)
    generation = selectors.generation_prompt(memory_pk=memory.pk)
    calls = []
    for criterion, field in sorted({(f["criterion"], f["field"]) for f in findings}):
        target = next(f for f in findings if (f["criterion"], f["field"]) == (criterion, field))
        fields = repair.defect_fields(criterion, field)
        system, user = repair.repair_prompt(
            memory=data,
            target=target,
            findings=findings,
            fields=fields,
            profile=profile,
            constraints=constraints,
            generation=generation,
        )
        calls.append((Kind.REPAIR, system, user, repair.repair_schema(fields)))
        for number in sorted(enabled):
            system, user = repair.classifier_prompt(memory=data, criterion=number)
            calls.append((Kind.CLASSIFIER, system, user, repair.CLASSIFIER_SCHEMA))
        if facts_checked and criterion not in fact_check.EXEMPT_CRITERIA:
            first = all(call[0] != Kind.FACT_EXTRACT for call in calls)
            calls += _fact_check_calls(data, findings, first=first)
    return calls


def _fact_check_calls(data: dict, findings: list[dict], *, first: bool) -> list:
    """The fact check of one attempt: the extraction (once per memory), then the check,
    with the memory's sentences standing in for its facts and for the rewrite."""
    original = {f: data[f] for f in fact_prompts.FIELDS}
    calls = []
    if first:
        excluded = [s["text"] for f in findings for s in f["spans"]]
        system, user = fact_prompts.extract_prompt(original=original, excluded=excluded)
        calls.append((Kind.FACT_EXTRACT, system, user, fact_prompts.EXTRACT_SCHEMA))
    facts = [s for f in fact_prompts.FIELDS for s in re.split(r"(?<=[.!?])\s+", data[f]) if s]
    system, user = fact_prompts.check_prompt(facts=facts, original=original, repaired=original)
    calls.append((Kind.FACT_CHECK, system, user, fact_prompts.CHECK_SCHEMA))
    return calls


def audit_cost_estimate(*, character_keys=()):
    """The estimate of a run over ``character_keys`` (empty: every character) with the
    current settings version; None when no repair model is configured (the loop makes
    no call then) or there is no memory."""
    repairer = repair_provider()
    if repairer is None:
        return None
    # The version a run launched now would use (not written here: a page only reads).
    version = selectors.audit_settings_latest() or AuditSettings(**audit_settings_defaults())
    if version.max_repair_attempts == 0:
        return None
    classifier = classifier_provider()
    characters = Character.objects.order_by("key")
    if character_keys:
        characters = characters.filter(key__in=list(character_keys))
    characters = list(characters)
    chosen = even_sample(characters, SAMPLE_CHARACTERS)
    total = Memory.objects.filter(character__in=characters).count()
    sampled = Memory.objects.filter(character__in=chosen).count()
    if not total or not sampled:
        return None
    config = version.as_config()
    compiled = criteria.CompiledConfig.of(config)
    enabled = config.enabled_criteria if classifier is not None else ()
    facts_checked = fact_check.enabled()
    labels = {
        Kind.REPAIR: f"Repair model ({repairer.kind.value})",
        Kind.FACT_EXTRACT: f"Repair model ({repairer.kind.value})",
        Kind.FACT_CHECK: f"Repair model ({repairer.kind.value})",
        Kind.CLASSIFIER: f"Classifier ({classifier.kind.value})" if classifier else "",
    }
    flagged = {}
    for character in chosen:
        texts = selectors.memory_texts(Memory.objects.filter(character=character))
        result = criteria.audit_memories(texts, config, compiled=compiled)
        flagged.update((key, found) for key, found in result.findings.items() if found)
    # The prompts are built for at most SAMPLE_FLAGGED of them, spread evenly.
    built = even_sample(sorted(flagged), SAMPLE_FLAGGED)
    planned = []
    for memory in Memory.objects.filter(memory_id__in=built).order_by("pk"):
        found = flagged[memory.memory_id]
        for kind, system, user, schema in memory_calls(memory, found, enabled, facts_checked):
            planned.append(
                PlannedCall(
                    provider=labels[kind],
                    stage=kind,
                    system=system,
                    user=user,
                    schema=schema,
                    prices=call_prices(Kind.CLASSIFIER if kind == Kind.CLASSIFIER else Kind.REPAIR),
                )
            )
    scale = Decimal(total) / Decimal(sampled)
    if built:
        scale *= Decimal(len(flagged)) / Decimal(len(built))
    assumed = {Kind.REPAIR: ASSUMED_OUTPUT_TOKENS[Kind.REPAIR]}
    if classifier is not None:
        assumed[Kind.CLASSIFIER] = ASSUMED_OUTPUT_TOKENS[Kind.CLASSIFIER]
    if facts_checked:
        for kind in (Kind.FACT_EXTRACT, Kind.FACT_CHECK):
            assumed[kind] = ASSUMED_OUTPUT_TOKENS[kind]
    output_tokens, basis = average_output_tokens(
        AuditCall.objects.all(), stage_field="kind", assumed=assumed
    )
    return estimate_run(
        planned,
        output_tokens=output_tokens,
        scale=scale,
        units=len(characters),
        units_sampled=len(chosen),
        output_basis={Kind(kind).label: text for kind, text in basis.items()},
    )
