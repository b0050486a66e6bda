"""The judge's prompt and output contract (issue 22; the guideline of seed 000 App. D.2),
and the seeded candidate orders of a run. No database access: selectors gather the
materials, services send and store.

The judge gets exactly what an annotator's comparison page shows (character profile,
scenario, candidates A, B, C with their inner consciousness, final decision and the
audited memories they activated) and the guideline in the words of the page's form.
"""

import itertools
import random
from dataclasses import dataclass

from annotation.comparison.forms import ComparisonJudgmentForm
from annotation.comparison.models import (
    COMPARISON_CRITERIA,
    COMPARISON_LETTERS,
    Rating,
    Suitability,
)
from annotation.comparison.selectors import BlindCandidate

# Bump when the system text, the user layout or the schema changes: a run records it.
PROMPT_VERSION = "judge-v1"
# The comparison form's Step 2 reminder (annotation/comparison/forms.py), word for word.
STYLE_REMINDER = (
    "Do not prefer a candidate merely because it is longer, more fluent, or more "
    "emotionally expressive. Evaluate the behavioral decision rather than writing style."
)
# Structured-output rounds per call before it is recorded as failed (as generation).
STRUCTURED_OUTPUT_ROUNDS = 3

_TEXT = {"type": "string"}
VERDICT_SCHEMA = {
    "type": "object",
    "properties": {
        "suitability": {"type": "string", "enum": list(Suitability.values)},
        "suitability_reason": _TEXT,
        **{f"{name}_note": _TEXT for name, _, _ in COMPARISON_CRITERIA},
        "selected_letter": {"type": "string", "enum": list(COMPARISON_LETTERS)},
        "rating": {"type": "string", "enum": list(Rating.values)},
        "selection_rationale": {"type": "string", "minLength": 1},
        "revision_guidance": _TEXT,
    },
    "required": [
        "suitability",
        "suitability_reason",
        *(f"{name}_note" for name, _, _ in COMPARISON_CRITERIA),
        "selected_letter",
        "rating",
        "selection_rationale",
        "revision_guidance",
    ],
    "additionalProperties": False,
}


def _label(field: str) -> str:
    return ComparisonJudgmentForm.base_fields[field].label


def system_prompt() -> str:
    criteria = "\n".join(
        f"- {label} ({name}_note): {question}" for name, label, question in COMPARISON_CRITERIA
    )
    suitable, flagged = Suitability.SUITABLE, Suitability.FLAGGED
    as_is, partial = Rating.AS_IS, Rating.PARTIAL
    return (
        "You are an expert annotator. You compare three anonymized candidate annotations "
        "(A, B, and C) of one character and one scenario under the Expert Annotation "
        "Guideline. Model-family identities are hidden; judge only what is written.\n\n"
        "Step 1: Suitability check.\n"
        f'{_label("suitability")} Answer suitability "{suitable}", or "{flagged}" '
        f"({Suitability.FLAGGED.label.lower()}) with a brief reason in suitability_reason: "
        "the irreconcilable contextual conflict. Complete the comparison either way.\n\n"
        "Step 2: Candidate comparison.\n"
        "Compare the candidates on each criterion and write a short note on each:\n"
        f"{criteria}\n{STYLE_REMINDER}\n\n"
        "Step 3: Selection and rating.\n"
        f"Select the strongest candidate (selected_letter: A, B, or C) and rate it "
        f'"{as_is}" ({as_is.label.lower()}) or "{partial}" ({partial.label.lower()}). '
        "Give a brief rationale for your candidate selection (selection_rationale). "
        "Partial revisions require concrete written guidance identifying what should be "
        "added, removed, or replaced (revision_guidance); otherwise leave it empty.\n\n"
        "Answer with one JSON object that matches the schema, nothing else."
    )


@dataclass(frozen=True)
class JudgeMaterials:
    """What the comparison page shows, in the order of one call's permutation."""

    character_key: str
    profile: (
        dict  # occupation, big_five, trait_anchor, description, self_value_logic, core_patterns
    )
    scenario: dict  # scenario_id, name, background, setting, context, trigger, action_required
    candidates: list[BlindCandidate]


def _candidate_block(c: BlindCandidate) -> str:
    lines = [f"## Candidate {c.letter}", f"Final decision: {c.final_decision}"]
    lines.append(f"Rationale: {c.summary}")
    if c.emotional_tone:
        lines.append(f"Emotional tone: {c.emotional_tone}")
    if c.core_reasoning:
        lines.append(f"Core reasoning: {c.core_reasoning}")
    lines.append(f"Activated memories ({len(c.memories)}):")
    for m in c.memories:
        lines += [
            f"- {m.memory_id} ({m.timeline}): {m.content_summary}",
            f"  {m.content_full}",
            f"  Psychological interpretation: {m.psych_conclusion}",
            f"  Behavioral tendency: {m.behavior_policy}",
        ]
    return "\n".join(lines)


def user_prompt(materials: JudgeMaterials) -> str:
    p, s = materials.profile, materials.scenario
    patterns = "\n".join(f"{n}. {text}" for n, text in enumerate(p["core_patterns"], start=1))
    return "\n\n".join(
        [
            f"## Character {materials.character_key}\n"
            f"Big Five: {p['big_five']} · anchor {p['trait_anchor']}\n"
            f"Occupation: {p['occupation']}\n"
            f"Description: {p['description']}\n"
            f"Self-value logic: {p['self_value_logic']}\n"
            f"Core behavioral patterns:\n{patterns}",
            f"## Scenario {s['scenario_id']}: {s['name']}\n"
            f"Background: {s['background']}\n"
            f"Setting: {s['setting']}\n"
            f"Context: {s['context']}\n"
            f"Trigger event: {s['trigger']}\n"
            f"Action required: {s['action_required']}",
            *(_candidate_block(c) for c in materials.candidates),
        ]
    )


# --- seeded orders ----------------------------------------------------------------------


def candidate_orders(*, seed: int, pair_id: int, candidate_ids, count: int) -> list[list[int]]:
    """``count`` distinct orders of a pair's candidates ([pk for A, B, C]), drawn from the
    run's seed and the pair: the same run settings always give the same orders."""
    base = sorted(candidate_ids)
    orders = [list(order) for order in itertools.permutations(base)]
    random.Random(f"{seed}:judge:{pair_id}").shuffle(orders)
    return orders[:count]
