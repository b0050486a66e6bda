"""The audit's checks of one memory's text, as used after a repair and after the senior
expert's edit (App. B.6): the pattern and TF-IDF checks of criteria 1-6 and, where a
classifier model is configured, the LLM classifier on every criterion in use. A re-check
runs the same checks that screen the memories, so what a check flagged is cleared by the
same check.

The classifier calls go over the network: callers make them outside any transaction."""

from annotation.corpus.models import Memory
from audit.memory_quality import criteria, repair, selectors
from audit.memory_quality.models import MEMORY_TEXT_FIELDS
from audit.memory_quality.services.configuration import REPAIR_ROUNDS, classifier_provider
from core.life_stages import BY_KEY, life_stage_for_age
from llm import ProviderConfig, make_client

PATTERN = "pattern"
CLASSIFIER = "classifier"


def memory_dict(memory: Memory, changes: dict | None = None) -> dict:
    data = {
        name: getattr(memory, name)
        for name in (
            "memory_id",
            "timeline",
            "event_age",
            *MEMORY_TEXT_FIELDS,
            "emotion_primary",
            "emotion_secondary",
            "emotion_intensity",
        )
    }
    return data | (changes or {})


def generation_constraints(memory: Memory) -> dict:
    """The constraints the memory was generated under that the corpus keeps: its target
    age and timeline label, its life-stage bin with the bin's ages (App. B.4), and its
    provenance (for a memory generated on the platform: the run, batch, slot and prompt
    version). The batch's own 2-5-year window lives with memory generation, a layer above
    the audit; the bin is the window this layer can see."""
    stage = BY_KEY.get(memory.life_stage) or life_stage_for_age(memory.event_age)
    return {
        "event_age": memory.event_age,
        "timeline": memory.timeline,
        "life_stage": stage.label,
        "life_stage_ages": f"{stage.first_age}-{stage.last_age}",
        "source": memory.source,
    }


def pattern_findings(
    *, memory: Memory, config: criteria.AuditConfig, changes: dict
) -> list[criteria.Finding]:
    """Criteria 1-6 on the memory with ``changes`` applied, against the other memories of
    its character's age window (criterion 4)."""
    texts = selectors.window_texts(memory=memory, config=config)
    texts = [
        criteria.MemoryText(
            t.key,
            t.character,
            t.event_age,
            changes.get("context", t.context),
            changes.get("content_summary", t.content_summary),
            changes.get("content_full", t.content_full),
            t.emotion_intensity,
        )
        if t.key == memory.memory_id
        else t
        for t in texts
    ]
    result = criteria.audit_memories(texts, config, only={memory.memory_id})
    return result.findings.get(memory.memory_id, [])


def classifier_finding(*, memory: dict, criterion: int, parsed: dict) -> criteria.Finding:
    """A defect the classifier found, located where its quoted evidence is."""
    evidence = (parsed.get("evidence") or "").strip()
    rationale = parsed.get("rationale", "")
    spans, field = (), "content_full"
    for name in MEMORY_TEXT_FIELDS:
        start = memory[name].find(evidence) if evidence else -1
        if start >= 0:
            spans = (criteria.Span(name, start, start + len(evidence), evidence),)
            field = name
            break
    return criteria.Finding(
        memory=memory["memory_id"],
        criterion=criterion,
        field=field,
        detail=f"LLM classifier: {rationale}"[:500],
        spans=spans,
        source=CLASSIFIER,
    )


def classify(*, memory: dict, criterion: int, provider: ProviderConfig):
    """One classifier call on ``memory`` (a ``memory_dict``): the llm ``CallResult``."""
    system, user = repair.classifier_prompt(memory=memory, criterion=criterion)
    client = make_client(provider)
    try:
        return client.complete_json(
            system=system, user=user, schema=repair.CLASSIFIER_SCHEMA, max_attempts=REPAIR_ROUNDS
        )
    finally:
        client.close()


def classifier_findings(
    *,
    memory: dict,
    config: criteria.AuditConfig,
    provider: ProviderConfig | None = None,
    calls: list | None = None,
) -> tuple[list[criteria.Finding], list[str], bool]:
    """The classifier on every criterion in use: ``(findings, errors, used)``. ``used``
    is False when no classifier model is configured; an error names a criterion whose
    call failed (then the re-check cannot pass). Each call's ``CallResult`` is appended
    to ``calls`` when given, for the caller to record (what it cost)."""
    provider = provider or classifier_provider()
    if provider is None:
        return [], [], False
    findings, errors = [], []
    for criterion in sorted(config.enabled_criteria):
        result = classify(memory=memory, criterion=criterion, provider=provider)
        if calls is not None:
            calls.append(result)
        if not result.ok:
            errors.append(
                f"criterion {criterion}: {result.error_kind}: {result.error_message}"[:500]
            )
        elif result.parsed.get("defect"):
            findings.append(
                classifier_finding(memory=memory, criterion=criterion, parsed=result.parsed)
            )
    return findings, errors, True


def merge(pattern: list, classifier: list) -> list[criteria.Finding]:
    """Pattern findings, then the classifier's on a criterion and field the patterns did
    not flag (one defect is one criterion on one field, whichever check found it)."""
    seen = {f.defect for f in pattern}
    return [*pattern, *(f for f in classifier if f.defect not in seen)]
