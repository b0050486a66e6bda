"""Prompt text and output schemas of the generation pipeline (seed 000 App. L.5).

Pure functions over model instances: no queries here, the service passes what it read.
Memories are shown to models by their anonymized id (no trait label).
"""

import math
import re

from core.protocol import ACTIVATED_MEMORY_LIMIT

# App. D.1 / L.5: screening aims at roughly 75-125 candidates per scenario; re-ranking
# keeps at most ACTIVATED_MEMORY_LIMIT (50) and is skipped without a call when that many
# or fewer survive (L.5.2).
SCREENING_TARGET_LOW = 75
SCREENING_TARGET_HIGH = 125
# L.5.1: the per-batch budget is the final target of 50 with a buffer factor of 1.5,
# i.e. 75 for the whole pool, shared across batches in proportion to their size.
SCREENING_BUFFER_FACTOR = 1.5
# A character has up to 1,000 memories (App. B.8); one prompt holds at most this many.
SCREENING_BATCH_SIZE = 200
# L.5.1: "up to two retries on JSON-parse failures" -> three structured-output rounds.
STRUCTURED_OUTPUT_ROUNDS = 3
# L.5.1-2: screening and re-ranking at temperature 0 where the endpoint supports it. The
# paper states no temperature for the response (L.5.3): it runs at the configured one,
# by default the endpoint's.
ACTIVATION_TEMPERATURE = 0.0
# L.5.2: re-ranking with reasoning explicitly disabled (each provider's own field, llm/wire.py).
RERANKING_REASONING_EFFORT = "none"

MEMORY_ID_PATTERN = r"^MEM_CHAR_\d{2}_\d{4,}$"

SCREENING_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "memory_id": {"type": "string", "pattern": MEMORY_ID_PATTERN},
            "reason": {"type": "string"},
        },
        "required": ["memory_id", "reason"],
    },
}

MEMORY_TYPE_CODES = ["BS", "AM", "CB", "ER", "DL", "NI"]


def reranking_schema(target: int) -> dict:
    return {
        "type": "object",
        "properties": {
            "activated_memories": {
                "type": "array",
                "minItems": 1,
                "maxItems": target,
                "items": {
                    "type": "object",
                    "properties": {
                        "memory_id": {"type": "string", "pattern": MEMORY_ID_PATTERN},
                        "type": {"type": "string", "enum": MEMORY_TYPE_CODES},
                        "reason": {"type": "string"},
                    },
                    "required": ["memory_id", "reason"],
                },
            }
        },
        "required": ["activated_memories"],
    }


RESPONSE_SCHEMA = {
    "type": "object",
    "properties": {
        "character_id": {"type": "string"},
        "scenario_id": {"type": "string"},
        "inner_consciousness": {
            "type": "object",
            "properties": {
                "summary": {"type": "string", "minLength": 1},
                "emotional_tone": {"type": "string", "minLength": 1},
                "core_reasoning": {"type": "string", "minLength": 1},
            },
            "required": ["summary", "emotional_tone", "core_reasoning"],
        },
        "final_decision": {"type": "string", "minLength": 1},
    },
    "required": ["inner_consciousness", "final_decision"],
}

PLACEHOLDERS = {
    "screening": {"character", "scenario", "memories", "budget", "batch_label"},
    "reranking": {"character", "scenario", "memories", "target", "count"},
    "response": {"character", "scenario", "memories", "character_id", "scenario_id"},
}
_PLACEHOLDER_RE = re.compile(r"\{([a-z_]+)\}")


def render(template: str, values: dict) -> str:
    """Fill ``{name}`` placeholders we know; every other brace (JSON examples an admin
    wrote) stays as typed, so editing a prompt never needs brace escaping."""

    def fill(match):
        name = match.group(1)
        return str(values[name]) if name in values else match.group(0)

    return _PLACEHOLDER_RE.sub(fill, template)


def unknown_placeholders(stage: str, template: str) -> set[str]:
    return set(_PLACEHOLDER_RE.findall(template)) - PLACEHOLDERS[stage]


def screening_batches(memories: list) -> list[list]:
    """Chronological batches of at most SCREENING_BATCH_SIZE, of near-equal size."""
    if not memories:
        return []
    count = math.ceil(len(memories) / SCREENING_BATCH_SIZE)
    size = math.ceil(len(memories) / count)
    return [memories[i : i + size] for i in range(0, len(memories), size)]


def screening_budget(batch_len: int, eligible_len: int) -> int:
    """This batch's share of the screening target (L.5.1), at least 1 and at most the
    batch. The shares add up to about 75 over the pool, within the 75-125 aim."""
    total = max(SCREENING_TARGET_LOW, math.ceil(ACTIVATED_MEMORY_LIMIT * SCREENING_BUFFER_FACTOR))
    share = math.ceil(total * batch_len / max(eligible_len, 1))
    return max(1, min(batch_len, share))


def _big_five_line(profile) -> str:
    b = profile.big_five
    return (
        f"Openness {b['O']:.2f}, Conscientiousness {b['C']:.2f}, Extraversion {b['E']:.2f}, "
        f"Agreeableness {b['A']:.2f}, Neuroticism {b['N']:.2f}"
    )


def character_block(profile) -> str:
    """The character specification every generation prompt receives, as App. B.2 gives it
    to candidate-response generation: the ID and descriptive label, the Big Five vector,
    the description and the self-value logic. The occupation and the eight behavioural
    patterns go to memory generation only; here they act through the memories."""
    return "\n".join(
        [
            f"ID: {profile.character.key}",
            f"Name: {profile.construction_label}",
            f"Big Five (0 to 1): {_big_five_line(profile)}",
            f"Description: {profile.description}",
            f"Self-value logic: {profile.self_value_logic}",
        ]
    )


def scenario_block(scenario) -> str:
    lines = [
        f"ID: {scenario.scenario_id}",
        f"Age: {scenario.age} ({scenario.get_stage_display()})",
        f"Setting: {scenario.setting_location}; {scenario.setting_time}; "
        f"{scenario.setting_atmosphere}",
        f"Background: {scenario.context_text}",
        f"Trigger ({scenario.trigger_sender}): {scenario.trigger_message}",
    ]
    if scenario.action_required:
        lines.append(f"Decision required: {scenario.action_required}")
    return "\n".join(lines)


def _emotion(memory) -> str:
    secondary = f", {memory.emotion_secondary}" if memory.emotion_secondary else ""
    return f"{memory.emotion_primary}{secondary} (intensity {memory.emotion_intensity:.2f})"


def screening_memory_line(memory) -> str:
    return (
        f"- {memory.anonymized_id} | {memory.timeline} | {memory.content_summary} "
        f"| belief: {memory.psych_conclusion} | policy: {memory.behavior_policy} "
        f"| emotion: {_emotion(memory)}"
    )


def reranking_memory_line(memory, reason: str) -> str:
    return f"{screening_memory_line(memory)} | first-pass reason: {reason or '(none given)'}"


def response_memory_line(memory) -> str:
    return (
        f"- {memory.timeline}: {memory.content_summary}\n"
        f"  what I concluded: {memory.psych_conclusion}\n"
        f"  what I do since: {memory.behavior_policy}\n"
        f"  how it felt: {_emotion(memory)}"
    )


# Issue #22: an arbitrator's regeneration guidance joins the response prompt as its own
# block after the stored template's text, so the stored prompt versions stay as they are.
GUIDANCE_HEADER = "--- Guidance for this response (from the reviewers of earlier responses) ---"
GUIDANCE_FOOTER = "--- End of guidance ---"


def with_guidance(user_prompt: str, guidance: str) -> str:
    """The response prompt with the run's regeneration guidance appended as a clearly
    separated block; unchanged when there is no guidance."""
    guidance = (guidance or "").strip()
    if not guidance:
        return user_prompt
    return f"{user_prompt}\n\n{GUIDANCE_HEADER}\n{guidance}\n{GUIDANCE_FOOTER}"
