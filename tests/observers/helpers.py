"""Characters whose memories are written for a chosen Big Five vector, in words the fake
provider's observer (``llm.testing.observer_replies``) reads, and the shipped inventory."""

from django.utils import timezone

from audit.observers.demo import shipped_inventory
from tests.factories import CharacterFactory, MemoryFactory, ProfileVersionFactory
from tests.pipeline_ready import memories_audited

TRAITS = ("O", "C", "E", "A", "N")
FIELDS = {
    "O": "openness",
    "C": "conscientiousness",
    "E": "extraversion",
    "A": "agreeableness",
    "N": "neuroticism",
}
# One sentence per pole, in the fake observer's lexicon; the frame has none of its words.
SENTENCES = {
    ("O", "high"): "I was curious and kept imagining new inventions.",
    ("O", "low"): "I kept to the familiar routine, as tradition asked.",
    ("C", "high"): "I had planned the day carefully and kept to my schedule.",
    ("C", "low"): "My room was a mess and I forgot the time and came late.",
    ("E", "high"): "I was talking and laughing in the crowd, full of energy.",
    ("E", "low"): "I stayed alone, quiet and silent in my room.",
    ("A", "high"): "I helped my neighbour, kind and forgiving as always.",
    ("A", "low"): "I argued with everyone and blamed them, cold and rude.",
    ("N", "high"): "I was worried and anxious, tense with dread.",
    ("N", "low"): "I felt calm and relaxed, steady and untroubled.",
}
#: Ages spread over four life stages, three memories each.
AGES = (7, 8, 9, 13, 14, 15, 19, 20, 21, 24, 25, 26)


def memory_text(vector: dict[str, float], age: int) -> str:
    """A memory written for ``vector``: a sentence for each trait at 0.65 or above (its
    high pole) or 0.35 or below (its low pole); nothing for a middling trait."""
    parts = [f"That day by the harbour, at {age}, comes back to me."]
    for trait in TRAITS:
        if vector[trait] >= 0.65:
            parts.append(SENTENCES[(trait, "high")])
        elif vector[trait] <= 0.35:
            parts.append(SENTENCES[(trait, "low")])
    return " ".join(parts)


def character_written_for(key: str, design: dict, *, memories_for: dict | None = None, audit=True):
    """A character with a frozen profile of ``design`` whose memories are written for
    ``memories_for`` (default: the design itself, a faithful character)."""
    character = CharacterFactory(key=key)
    profile = ProfileVersionFactory(
        character=character,
        number=1,
        **{FIELDS[t]: design[t] for t in TRAITS},
    )
    profile.frozen_at = timezone.now()
    profile.save()
    written = memories_for or design
    for seq, age in enumerate(AGES, start=1):
        MemoryFactory(
            character=character,
            sequence=seq,
            event_age=age,
            memory_id=f"MEM_{key}_OBS_{seq:04d}",
            anonymized_id=f"MEM_{key}_{seq:04d}",
            content_full=memory_text(written, age),
        )
    if audit:
        memories_audited(character)
    return character, profile


def vector(**scores) -> dict[str, float]:
    """A design vector: 0.5 for every trait not given."""
    return {t: scores.get(t, 0.5) for t in TRAITS}


def inventory():
    return shipped_inventory()
