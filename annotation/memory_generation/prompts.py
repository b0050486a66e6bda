"""The memory generation prompt (seed 000 App. B.5, L.3): its versions, and the values
that fill it for one batch (the system prompt) and one slot (the user prompt).

The system prompt carries the three constraint layers: the character's full
specification (label, Big Five vector, occupation, description, self-value logic, all
eight core patterns), the batch's age window with its life-stage bin and that bin's
construction guidance, and the five narrative dimensions. The user prompt names the
slot's target age, bin, ABCD tier and domain, in lines of a fixed shape that the demo
provider reads, and lists the ``context`` of the character's most recent
``ANTI_DUPLICATION_WINDOW`` memories to avoid.
"""

import re

from annotation.memory_generation.batching import DEFAULT_TIER_SHARES, TIERS
from annotation.memory_generation.default_prompt import (
    AGE_BAND_LANGUAGE,
    DEFAULT_SYSTEM,
    DEFAULT_USER,
    NOTE,
    TIER_DESCRIPTIONS,
)
from annotation.memory_generation.models import MemoryPromptVersion
from core.life_stages import BY_KEY, age_band

__all__ = [
    "ANTI_DUPLICATION_WINDOW",
    "DEFAULT_SYSTEM",
    "DEFAULT_USER",
    "LIFE_STAGE_GUIDANCE",
    "PLACEHOLDERS",
    "latest_prompt",
    "render",
    "system_values",
    "unknown_placeholders",
    "user_values",
]

# App. L.3: "a sliding-window anti-duplication list containing the context field of the
# most recent 100 generated memories".
ANTI_DUPLICATION_WINDOW = 100

# App. B.5 layer 2: one sentence of construction guidance per life-stage bin (the
# project's own reading of Erikson's and Levinson's stages behind Table 7).
LIFE_STAGE_GUIDANCE = {
    "school_age": "Childhood at home and at primary school: family routines, rules set by "
    "adults, first friendships and the pride or shame of learning new skills, seen "
    "concretely through a child's eyes.",
    "adolescence": "The teenage years: belonging or not among peers, trying out who to be, "
    "first romantic feelings, exams, and friction with parents and teachers over "
    "independence.",
    "early_adult_transition": "Leaving the family's orbit: further study or a first job, "
    "living on one's own, new freedom and new responsibility, and first choices of "
    "direction.",
    "entering_adult_world": "Building an adult life: establishing oneself in the occupation, "
    "serious relationships, money and housing, and commitments that start to bind.",
    "age_30_transition": "Reappraising the choices of the twenties: commitments deepened, "
    "changed or abandoned, and a sharper sense of what this life should become.",
    "settling_down": "Settling into a place at work, in a family or community: long-term "
    "goals pursued, responsibility for others, and standing measured against ambitions.",
    "midlife_transition": "Questioning what has been built: limits and mortality become "
    "visible, priorities shift, and old patterns are tested by new losses or chances.",
    "entering_midlife": "A new balance in middle adulthood: passing on experience, caring "
    "for ageing parents or growing children, health, and living with the choices made.",
}

SYSTEM_PLACEHOLDERS = {
    "character_label",
    "occupation",
    "big_five",
    "description",
    "self_value_logic",
    "core_patterns",
    "age_window",
    "life_stage",
    "life_stage_guidance",
    "share_a",
    "share_b",
    "share_c",
    "share_d",
}
USER_PLACEHOLDERS = {
    "slot_ref",
    "target_age",
    "life_stage",
    "tier",
    "tier_name",
    "tier_description",
    "domain",
    "age_band",
    "timeline_example",
    "recent_contexts",
}
PLACEHOLDERS = {"system": SYSTEM_PLACEHOLDERS, "user": USER_PLACEHOLDERS}
# The placeholders a new version must keep: without them the call loses a rule of L.3.
REQUIRED_PLACEHOLDERS = {
    "system": {"core_patterns", "big_five", "age_window", "life_stage"},
    "user": {"target_age", "tier", "domain", "recent_contexts"},
}
_PLACEHOLDER_RE = re.compile(r"\{([a-z_]+)\}")


def render(template: str, values: dict) -> str:
    """Fill the ``{name}`` placeholders we know; every other brace stays as typed, so a
    prompt never needs brace escaping."""

    def fill(match):
        name = match.group(1)
        return str(values[name]) if name in values else match.group(0)

    return _PLACEHOLDER_RE.sub(fill, template)


def unknown_placeholders(part: str, template: str) -> set[str]:
    return set(_PLACEHOLDER_RE.findall(template)) - PLACEHOLDERS[part]


def missing_placeholders(part: str, template: str) -> set[str]:
    return REQUIRED_PLACEHOLDERS[part] - set(_PLACEHOLDER_RE.findall(template))


def latest_prompt() -> MemoryPromptVersion:
    """The newest version; version 1 is written from the defaults when there is none."""
    prompt = MemoryPromptVersion.objects.order_by("-number").first()
    if prompt is None:
        prompt, _ = MemoryPromptVersion.objects.get_or_create(
            number=1,
            defaults={
                "system_template": DEFAULT_SYSTEM,
                "user_template": DEFAULT_USER,
                "note": NOTE,
            },
        )
    return prompt


def _percent(share: float) -> str:
    return f"{round(share * 100)}%"


def system_values(profile, *, life_stage: str, first_age: int, last_age: int, tier_shares=None):
    """The system prompt's values for one batch of one character's frozen profile."""
    shares = tier_shares or DEFAULT_TIER_SHARES
    stage = BY_KEY[life_stage]
    scores = profile.big_five
    return {
        "character_label": profile.construction_label,
        "occupation": profile.occupation,
        "big_five": ", ".join(f"{k}={scores[k]:.2f}" for k in ("O", "C", "E", "A", "N")),
        "description": profile.description,
        "self_value_logic": profile.self_value_logic,
        "core_patterns": "\n".join(
            f"  {n}. {pattern}" for n, pattern in enumerate(profile.core_patterns or [], 1)
        ),
        "age_window": f"{first_age}–{last_age}" if first_age != last_age else str(first_age),
        "life_stage": stage.label,
        "life_stage_guidance": LIFE_STAGE_GUIDANCE[stage.key],
        **{f"share_{t.lower()}": _percent(shares[t]) for t in TIERS},
    }


def user_values(*, slot_ref: str, slot: dict, life_stage: str, recent_contexts) -> dict:
    """The user prompt's values for one slot; ``recent_contexts`` oldest first."""
    stage = BY_KEY[life_stage]
    name, description = TIER_DESCRIPTIONS[slot["tier"]]
    contexts = [" ".join(str(c).split()) for c in recent_contexts if c]
    return {
        "slot_ref": slot_ref,
        "target_age": slot["age"],
        "life_stage": stage.label,
        "tier": slot["tier"],
        "tier_name": name,
        "tier_description": description,
        "domain": slot["domain"],
        "age_band": AGE_BAND_LANGUAGE[age_band(slot["age"])],
        "timeline_example": f"{stage.label.lower()} ({slot['age']} years old)",
        "recent_contexts": "\n".join(f"- {c}" for c in contexts) or "- (none yet)",
    }
