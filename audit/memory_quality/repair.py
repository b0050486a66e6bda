"""Targeted repair prompts (seed 000 App. B.6 "Repair procedure"). Pure: no Django.

Only the defective field(s) are regenerated, with an issue-specific instruction
"appended to the original generation prompt": for a memory generated on the platform,
the system and user prompts its generation call sent (L.3: the forbidden expressions,
the language for the age, the slot's tier and domain) are sent again verbatim, and the
repair follows them. A memory with no stored generation prompt (an imported corpus)
gets the generation prompt's constraints restated from what the corpus keeps (the
character's profile and the memory's age-bin context). The other fields are supplied
unchanged as context.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from audit.memory_quality import criteria
from llm.structured import schema_instruction

GENERATION_CONSTRAINTS = (
    "You are a psychology narrative expert revising an episodic memory of a virtual "
    "character in a Big Five personality research project (the memory generation prompt "
    "of seed 000 App. B.5, L.3). The memory was generated under the constraints below; "
    "the rewrite keeps every one of them.\n"
    '- The character is the fixed specification given under "Character constraints": '
    "the episode's in-the-moment appraisals, choices and coping follow its Big Five "
    "vector, self-value logic and core behavioral patterns, without naming a trait or "
    "a score.\n"
    '- content_full is a first-person ("I") narrative of about 2000-4500 characters '
    "(never over 10,000) that weaves in, without section labels, five facets of the "
    "episode: sensory detail, reconstructed dialogue, inner monologue, somatic response, "
    "and aftermath (limited to 24 hours - 1 week after the event).\n"
    "- Present-moment perspective: the narrator's temporal position is the age at the "
    "event; nothing known later, no jump to any future time point.\n"
    '- No character name inside the memory; others address the narrator as "you".\n'
    "- context is a 15-30 word scene description; content_summary a 20-40 word event "
    "summary; narrative detail belongs in content_full only.\n"
    '- The episode belongs to the age window and life-stage bin given under "Age-bin '
    'context" (the life span 6-50 is cut into one-year segments; a batch covers a '
    "2-5-year window of one bin) and stays distinct from the character's other episodes "
    "of that window."
)


def character_block(profile: dict | None) -> str:
    """The character's full specification (App. B.1: label, Big Five vector,
    occupation, description, self-value logic, all eight core patterns)."""
    if profile is None:
        return "## Character constraints\n(No profile version is stored for this character.)"
    big_five = ", ".join(f"{k} {v:.2f}" for k, v in profile["big_five"].items())
    patterns = "\n".join(f"  {i}. {p}" for i, p in enumerate(profile["core_patterns"], 1))
    state = "frozen" if profile["frozen"] else "not frozen yet"
    return (
        f"## Character constraints ({profile['character']}, profile version "
        f"{profile['version']}, {state})\n"
        f"- Character label: {profile['construction_label']}\n"
        f"- Big Five vector: {big_five}\n"
        f"- Occupation: {profile['occupation']}\n"
        f"- Description: {profile['description']}\n"
        f"- Self-value logic: {profile['self_value_logic']}\n"
        f"- Core behavioral patterns:\n{patterns}"
    )


def age_block(constraints: dict) -> str:
    """The memory's own generation constraints (App. B.4, B.5 layer 2)."""
    lines = [
        "## Age-bin context",
        f"- Target age: {constraints['event_age']} ({constraints['timeline']})",
        f"- Life-stage bin: {constraints['life_stage']} (ages {constraints['life_stage_ages']})",
    ]
    if constraints.get("source"):
        lines.append(f"- Generated as: {constraints['source']}")
    return "\n".join(lines)


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


def defect_fields(criterion: int, field: str) -> list[str]:
    """The field(s) a repair of one defect regenerates: where the evidence is, and
    content_full for criteria that judge the narrative as a whole (4, 5)."""
    if criterion in (criteria.SEMANTIC_DUPLICATION, criteria.LENGTH_VIOLATION):
        return ["content_full"]
    return [field if field in criteria.NARRATIVE_FIELDS else "content_full"]


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


def _finding_line(f: dict) -> str:
    source = " (LLM classifier)" if f.get("source") == "classifier" else ""
    return f"- criterion {f['criterion']} on {f['field']}{source}: {f['detail']}"


# The first line of the paragraph the llm client appends to a system prompt when it asks
# for JSON: the generation call's schema is not the repair's, so it is left out.
_SCHEMA_INSTRUCTION = "\n\n" + schema_instruction({}).split("\n", 1)[0]


def stored_prompt(request: dict | None) -> tuple[str, str] | None:
    """``(system, user)`` of a stored call request: its system prompt (without the JSON
    schema paragraph the llm client appended) and its first user turn (later turns are a
    round's feedback), in whichever shape the request was sent
    (the offline demo's, Anthropic Messages, OpenAI Chat Completions, Gemini). None when
    the request holds no such pair."""
    if not isinstance(request, dict):
        return None
    system, user = None, None
    if request.get("offline_demo"):
        system, user = request.get("system"), request.get("user")
    elif "systemInstruction" in request:
        parts = (request.get("systemInstruction") or {}).get("parts") or [{}]
        system = "".join(str(p.get("text", "")) for p in parts if isinstance(p, dict))
        turns = [t for t in request.get("contents") or [] if t.get("role") == "user"]
        if turns:
            user = "".join(str(p.get("text", "")) for p in turns[0].get("parts") or [])
    elif "system" in request:  # Anthropic Messages
        system = request["system"]
        turns = [t for t in request.get("messages") or [] if t.get("role") == "user"]
        if turns:
            content = turns[0].get("content")
            user = (
                "".join(b.get("text", "") for b in content if isinstance(b, dict))
                if isinstance(content, list)
                else content
            )
    else:  # OpenAI Chat Completions and compatible endpoints
        messages = request.get("messages") or []
        system = next((m.get("content") for m in messages if m.get("role") == "system"), None)
        user = next((m.get("content") for m in messages if m.get("role") == "user"), None)
    if not isinstance(system, str) or not isinstance(user, str) or not (system and user):
        return None
    cut = system.rfind(_SCHEMA_INSTRUCTION)
    return (system[:cut] if cut >= 0 else system), user


def _instruction(target: dict, fields: Sequence[str]) -> str:
    matched = sorted({s["text"] for s in target["spans"]})
    examples = ", ".join(f"“{m}”" for m in matched[:5]) or "the flagged phrases"
    return ISSUE_INSTRUCTIONS[target["criterion"]].format(
        examples=examples, fields=" and ".join(fields) or "the flagged field"
    )


def _memory_block(memory: dict) -> str:
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
    return "## The memory\n" + json.dumps(shown, ensure_ascii=False, indent=1)


def _findings_blocks(target, findings, previous_findings) -> str:
    number = target["criterion"]
    text = "\n\n## The defect to repair\n" + _finding_line(target)
    others = [f for f in findings if (f["criterion"], f["field"]) != (number, target["field"])]
    if others:
        text += "\n\n## Other findings on this memory (repaired separately; add none)\n"
        text += "\n".join(_finding_line(f) for f in others)
    if previous_findings:
        text += "\n\n## Your previous rewrite still failed the re-check\n" + "\n".join(
            _finding_line(f) for f in previous_findings
        )
    return text


def repair_prompt(
    *,
    memory: dict,
    target: dict,
    findings: Sequence[dict],
    fields: Sequence[str],
    profile: dict | None,
    constraints: dict,
    previous_findings: Sequence[dict] = (),
    generation: tuple[str, str] | None = None,
) -> tuple[str, str]:
    """``(system, user)`` for one attempt at the defect ``target`` (a finding).
    ``findings`` are all the memory's current findings; ``previous_findings`` what the
    re-check of this defect's last failed attempt found.

    With ``generation`` (the memory's stored generation prompt, ``(system, user)``) the
    system prompt is the generation system prompt verbatim, and the user prompt is the
    generation user prompt verbatim followed by the memory, its findings and, last, the
    defect's instruction. Without it, the system prompt restates the generation prompt's
    constraints (the character's full ``profile``, the memory's age-bin
    ``constraints``) with the defect's instruction appended."""
    instruction = _instruction(target, fields)
    if generation is not None:
        generation_system, generation_user = generation
        user = (
            generation_user.rstrip("\n")
            + "\n\n# Repair of the memory written for this request (App. B.6)\n"
            "The memory below was written for the request above and failed the quality "
            "audit. Every rule above still holds. Regenerate only the defective field(s); "
            "the others stay as given.\n\n"
            + _memory_block(memory)
            + _findings_blocks(target, findings, previous_findings)
            + "\n\n## Repair instruction\n"
            + f"- {instruction}"
            + f"\nReturn only the regenerated field(s) as a JSON object, instead of the "
            f"output format above: {', '.join(fields)}."
        )
        return generation_system, user
    system = (
        GENERATION_CONSTRAINTS
        + "\n\n"
        + character_block(profile)
        + "\n\n"
        + age_block(constraints)
        + "\n\n## Repair instruction\n"
        + f"- {instruction}"
        + f"\n\nReturn only the regenerated field(s): {', '.join(fields)}."
    )
    user = _memory_block(memory) + _findings_blocks(target, findings, previous_findings)
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
