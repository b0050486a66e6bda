"""The model evaluation prompt of seed 000 App. L.1, block by block.

Fixed order: basic character information, [the disclosed profile block, App. I],
[the retrieved memory block], the current scenario, the trigger event, the task
instruction and the four options in the item's order. The system instruction, the task
instruction and the response schema are the same in every setting; the profile and
memory blocks are the only inputs that change. Pure Python: no Django.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SYSTEM_PROMPT = (
    "You are a role-playing simulator. You will receive a person's basic information, past "
    "experiences, current situation, and possible behavioral decisions. Infer the person's "
    "patterns of thought, emotion, and behavior from the supplied evidence, and select the "
    "response that this person would most likely make. Return only a valid JSON object in the "
    "following format:\n"
    "{\n"
    '  "system_1_impulse": {\n'
    '    "thought": "immediate reaction",\n'
    '    "emotion": "primary emotion",\n'
    '    "citation": "memories associated with the reaction"\n'
    "  },\n"
    '  "system_2_rational": {\n'
    '    "analysis": "deliberative analysis",\n'
    '    "plan": "action plan"\n'
    "  },\n"
    '  "inner_consciousness": "first-person reason for the decision",\n'
    '  "final_decision": "first-person behavioral response",\n'
    '  "decision_choice": "A|B|C|D"\n'
    "}"
)

TASK_INSTRUCTION = (
    "Use the supplied experiences to infer this person's thought patterns, emotional "
    "tendencies, and behavioral habits. Simulate how the person would respond in the current "
    "situation and select the most persona-consistent option."
)

CLOSING_INSTRUCTION = 'Return the selected letter in the "decision_choice" field.'

# Sent to the client for JSON mode and validation; the system prompt above already spells
# the format out, so the client is told not to append its own schema paragraph.
RESPONSE_SCHEMA = {
    "type": "object",
    "properties": {
        "system_1_impulse": {
            "type": "object",
            "properties": {
                "thought": {"type": "string"},
                "emotion": {"type": "string"},
                "citation": {"type": "string"},
            },
        },
        "system_2_rational": {
            "type": "object",
            "properties": {"analysis": {"type": "string"}, "plan": {"type": "string"}},
        },
        "inner_consciousness": {"type": "string"},
        "final_decision": {"type": "string"},
        "decision_choice": {"type": "string", "enum": ["A", "B", "C", "D"]},
    },
    "required": ["decision_choice"],
}

BLOCK_TITLES = (
    "## Basic character information",
    "## Character profile",
    "## Retrieved autobiographical memories",
    "## Current scenario",
    "## Trigger event",
    "## Task",
    "## Decision options",
)


@dataclass(frozen=True, slots=True)
class DisclosedProfile:
    """App. I: the full Big Five vector, description, self-value logic, eight patterns."""

    big_five: dict[str, float]
    description: str
    self_value_logic: str
    core_patterns: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PromptInput:
    character_id: str
    occupation: str
    scenario_name: str
    location: str
    time: str
    atmosphere: str
    background: str
    sender: str
    message: str
    action_required: str
    options: tuple[tuple[str, str], ...]  # (label, text) in the item's order
    memory_entries: tuple[str, ...] | None = None  # None: no memory block
    profile: DisclosedProfile | None = None
    extra: dict = field(default_factory=dict)


BIG_FIVE_NAMES = (
    ("O", "Openness"),
    ("C", "Conscientiousness"),
    ("E", "Extraversion"),
    ("A", "Agreeableness"),
    ("N", "Neuroticism"),
)


def profile_block(profile: DisclosedProfile) -> str:
    traits = " | ".join(f"{name} {profile.big_five[key]:.2f}" for key, name in BIG_FIVE_NAMES)
    patterns = "\n".join(f"{n}. {p}" for n, p in enumerate(profile.core_patterns, start=1))
    return (
        f"## Character profile\nBig Five: {traits}\nDescription: {profile.description}\n"
        f"Self-value logic: {profile.self_value_logic}\nCore behavioral patterns:\n{patterns}"
    )


def prompt_blocks(data: PromptInput) -> list[str]:
    """The user prompt's blocks in App. L.1 / App. I order."""
    blocks = [
        f"## Basic character information\nCharacter ID: {data.character_id}\n"
        f"Occupation: {data.occupation}"
    ]
    if data.profile is not None:
        blocks.append(profile_block(data.profile))
    if data.memory_entries is not None:
        blocks.append("## Retrieved autobiographical memories\n" + "\n".join(data.memory_entries))
    blocks.append(
        f"## Current scenario\nScenario: {data.scenario_name}\n"
        f"Setting: {data.location} | {data.time} | {data.atmosphere}\n"
        f"Background: {data.background}"
    )
    blocks.append(
        f"## Trigger event\nSender: {data.sender}\nMessage: {data.message}\n"
        f"Required decision: {data.action_required}"
    )
    blocks.append(f"## Task\n{TASK_INSTRUCTION}")
    options = "\n".join(f"{label}. {text}" for label, text in data.options)
    blocks.append(f"## Decision options\n{options}\n\n{CLOSING_INSTRUCTION}")
    return blocks


def user_prompt(data: PromptInput) -> str:
    return "\n\n".join(prompt_blocks(data))
