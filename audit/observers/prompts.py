"""What an LLM observer is asked (issue 37): the sampled memories (or reference
responses) of one person, without any profile field, and every inventory statement to
rate on the inventory's scale. The answer is JSON: ``{"observer_ratings": {item id:
rating}}`` with every item and nothing else.

The user prompt has two marked sections, ``MEMORIES_HEADING`` and ``ITEMS_HEADING``;
the fake provider's observer (``llm.testing.observer_replies``) reads them.
"""

PROMPT_VERSION = "observer-1"
STRUCTURED_OUTPUT_ROUNDS = 3
ANSWER_FIELD = "observer_ratings"
MEMORIES_HEADING = "=== What you have read about this person ==="
ITEMS_HEADING = "=== Statements to rate ==="

SYSTEM = (
    "You take part in a study of how people come across to those who know them. You "
    "are given passages about one person: things that happened to them, told in their "
    "own words, or what they decided in situations they faced. You know nothing else "
    "about them. Judge them only from these passages, as an acquaintance would who had "
    "read them. Then say how well each statement describes the person, on the scale "
    "given. Rate every statement; when the passages say little about one, choose the "
    "middle of the scale. Answer with the JSON object asked for and nothing else."
)


def scale_text(scale_min: int, scale_max: int, labels: dict) -> str:
    points = []
    for point in range(scale_min, scale_max + 1):
        label = labels.get(str(point))
        points.append(f"{point} = {label}" if label else str(point))
    return f"Use whole numbers from {scale_min} to {scale_max}: " + "; ".join(points) + "."


def user_prompt(*, pieces, items, scale_min: int, scale_max: int, labels: dict, target: str):
    """The user message: the passages in order, the scale, then one line per item
    (``- <id>: <text>``)."""
    kind = "memory" if target == "memories" else "decision"
    passages = [
        f"[{kind} {index}] {piece.heading}\n{piece.text}"
        for index, piece in enumerate(pieces, start=1)
    ]
    lines = [f"- {item['id']}: {item['text']}" for item in items]
    return "\n\n".join(
        [
            MEMORIES_HEADING,
            *passages,
            ITEMS_HEADING,
            scale_text(scale_min, scale_max, labels),
            "\n".join(lines),
            f'Answer as {{"{ANSWER_FIELD}": {{"<statement id>": <rating>, ...}}}} with '
            "every statement id above.",
        ]
    )


def answer_schema(items, scale_min: int, scale_max: int) -> dict:
    """Every item id, a whole number on the scale, nothing else."""
    rating = {"type": "integer", "minimum": scale_min, "maximum": scale_max}
    ids = [item["id"] for item in items]
    return {
        "type": "object",
        "properties": {
            ANSWER_FIELD: {
                "type": "object",
                "properties": {item_id: dict(rating) for item_id in ids},
                "required": ids,
                "additionalProperties": False,
            }
        },
        "required": [ANSWER_FIELD],
        "additionalProperties": False,
    }
