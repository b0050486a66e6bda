"""Targeted repair prompts (seed 000 App. B.6 "Repair procedure"). Pure: no Django.

Only the defective field(s) are regenerated, with an issue-specific instruction
appended to the generation prompt's constraints (App. L.3); the other fields are
supplied unchanged as context.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from audit.memory_quality import criteria

GENERATION_CONSTRAINTS = (
    "You are a psychology narrative expert revising an episodic memory of a virtual "
    "character in a Big Five personality research project (the memory generation prompt "
    "of seed 000 App. L.3).\n"
    '- content_full is a first-person ("I") narrative of about 2000-4500 characters that '
    "interweaves sensory detail, reconstructed dialogue, inner monologue, somatic response "
    "and aftermath (limited to 24 hours - 1 week after the event).\n"
    "- Present-moment perspective: the narrator's temporal position is the age at the "
    "event; nothing known later, no jump to any future time point.\n"
    '- No character name inside the memory; others address the narrator as "you".\n'
    "- context is a 15-30 word scene description; content_summary a 20-40 word event "
    "summary; narrative detail belongs in content_full only."
)

ISSUE_INSTRUCTIONS = {
    criteria.OMNISCIENT: (
        "Perspective drift (omniscient narrator): keep the given context and "
        "content_summary and rewrite content_full strictly first-person in the moment. "
        "Remove every post-hoc or future marker (for example {examples}); restrict the "
        "narration to what the narrator could observe and know at the time, and make "
        "uncertainty about other people's unobserved states explicit."
    ),
    criteria.ADULT_EVALUATION: (
        "Perspective drift (adult evaluation) in a child-age memory: rewrite content_full "
        "so appraisals stay age-appropriate. Remove retrospective adult phrases (for "
        "example {examples}); express understanding through the child's immediate "
        "thoughts, feelings, bodily sensations and actions."
    ),
    criteria.FIELD_LENGTH_INVERSION: (
        "Field-length inversion: rewrite {fields} as concise metadata (context: 15-30 "
        "words of scene description; content_summary: 20-40 words of event gist) without "
        "dialogue or narrative detail; that detail stays in content_full."
    ),
    criteria.SEMANTIC_DUPLICATION: (
        "Semantic duplication: content_full repeats another episode of the same "
        "developmental age window too closely. Rewrite content_full as a clearly distinct "
        "episode consistent with the given context and content_summary."
    ),
    criteria.LENGTH_VIOLATION: (
        "Length violation: content_full exceeds 10,000 characters. Rewrite it within "
        "2000-4500 characters, keeping the episode and its five dimensions."
    ),
    criteria.VOCABULARY_INFLATION: (
        "Schema-vocabulary inflation in a low-intensity episode: rewrite {fields} in "
        "ordinary, proportionate language. Remove high-register psychoanalytic terms (for "
        "example {examples}); keep the concrete everyday experience."
    ),
}

# JSON Schema of each regenerable field. content_full must be a first-person narrative
# within the hard length limit.
FIELD_SCHEMAS = {
    "context": {"type": "string", "minLength": 20, "maxLength": 400},
    "content_summary": {"type": "string", "minLength": 20, "maxLength": 500},
    "content_full": {
        "type": "string",
        "minLength": 200,
        "maxLength": criteria.LENGTH_MAX_CHARS,
        "pattern": r"\bI\b",
    },
}


def fields_to_regenerate(findings: Iterable[dict]) -> list[str]:
    """The defective fields: where the evidence is, and content_full for criteria that
    judge the narrative as a whole (4, 5)."""
    fields = set()
    for finding in findings:
        if finding["criterion"] in (criteria.SEMANTIC_DUPLICATION, criteria.LENGTH_VIOLATION):
            fields.add("content_full")
        else:
            fields.add(finding["field"])
    return [f for f in criteria.NARRATIVE_FIELDS if f in fields]


def repair_schema(fields: Sequence[str]) -> dict:
    return {
        "type": "object",
        "properties": {f: FIELD_SCHEMAS[f] for f in fields},
        "required": list(fields),
        "additionalProperties": False,
    }


def repair_prompt(
    *,
    memory: dict,
    findings: Sequence[dict],
    fields: Sequence[str],
    previous_findings: Sequence[dict] = (),
) -> tuple[str, str]:
    """``(system, user)`` for one attempt. ``memory`` holds the memory's fields;
    ``previous_findings`` are what the re-audit of the last failed attempt still found."""
    instructions = []
    for number in sorted({f["criterion"] for f in findings}):
        matched = sorted(
            {s["text"] for f in findings if f["criterion"] == number for s in f["spans"]}
        )
        examples = ", ".join(f"“{m}”" for m in matched[:5]) or "the flagged phrases"
        instructions.append(
            ISSUE_INSTRUCTIONS[number].format(
                examples=examples,
                fields=" and ".join(f for f in fields if any(x["field"] == f for x in findings))
                or "the flagged field",
            )
        )
    system = (
        GENERATION_CONSTRAINTS
        + "\n\n## Repair instruction\n"
        + "\n".join(f"- {line}" for line in instructions)
        + f"\n\nReturn only the regenerated field(s): {', '.join(fields)}."
    )
    shown = {
        "id": memory["memory_id"],
        "timeline": memory["timeline"],
        "event_age": memory["event_age"],
        "context": memory["context"],
        "content_summary": memory["content_summary"],
        "content_full": memory["content_full"],
        "emotion_signature": {
            "primary": memory["emotion_primary"],
            "secondary": memory["emotion_secondary"],
            "intensity": memory["emotion_intensity"],
        },
    }
    user = "## The memory\n" + json.dumps(shown, ensure_ascii=False, indent=1)
    user += "\n\n## Audit findings\n" + "\n".join(
        f"- criterion {f['criterion']} on {f['field']}: {f['detail']}" for f in findings
    )
    if previous_findings:
        user += "\n\n## Your previous rewrite still failed the audit\n" + "\n".join(
            f"- criterion {f['criterion']} on {f['field']}: {f['detail']}"
            for f in previous_findings
        )
    user += f"\n\nRewrite only: {', '.join(fields)}."
    return system, user


# --- The optional LLM classifier (App. B.6: "pattern-based checks and LLM-based
# classifiers") ------------------------------------------------------------------------

CLASSIFIER_QUESTIONS = {
    criteria.OMNISCIENT: (
        "Does the narrator use post-hoc knowledge or future markers, leaving the strict "
        "in-the-moment first-person perspective?"
    ),
    criteria.ADULT_EVALUATION: (
        "Is this a child-age memory (12 or younger) that uses adult-level cognitive "
        "appraisals or retrospective phrases?"
    ),
    criteria.FIELD_LENGTH_INVERSION: (
        "Does narrative detail spill into context or content_summary instead of content_full?"
    ),
    criteria.SEMANTIC_DUPLICATION: (
        "Does this narrative merely repeat a typical episode without distinct content?"
    ),
    criteria.LENGTH_VIOLATION: "Is content_full longer than 10,000 characters?",
    criteria.VOCABULARY_INFLATION: (
        "Is this a low-intensity episode that uses high-register psychoanalytic terms, "
        "over-psychologizing an ordinary experience?"
    ),
}
CLASSIFIER_SCHEMA = {
    "type": "object",
    "properties": {
        "defect": {"type": "boolean"},
        "evidence": {"type": "string"},
        "rationale": {"type": "string"},
    },
    "required": ["defect", "rationale"],
}


def classifier_prompt(*, memory: dict, criterion: int) -> tuple[str, str]:
    system = (
        "You audit synthetic autobiographical memories of a persona benchmark against "
        f"one defect criterion: {criteria.CRITERIA[criterion]}. "
        f"{CLASSIFIER_QUESTIONS[criterion]} Answer defect true or false; quote the "
        "shortest passage that shows the defect as evidence (empty when there is none) "
        "and give a one-sentence rationale."
    )
    user = "## The memory\n" + json.dumps(
        {k: memory[k] for k in ("memory_id", "event_age", *criteria.NARRATIVE_FIELDS)}
        | {"emotion_intensity": memory["emotion_intensity"]},
        ensure_ascii=False,
        indent=1,
    )
    return system, user
