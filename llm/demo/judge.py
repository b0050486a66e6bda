"""The demo answer to the comparison-judgment prompt (an LLM judge doing the annotators'
App. D.2 task): a valid verdict, deterministic for a model and prompt, whose choice is
plausible and mildly biased so that a calibration report has something to show.

The demo judge reads the candidates from the prompt (``## Candidate A`` … blocks) and
the material before them (character, scenario). With probability

    HEARTBENCH_DEMO_JUDGE_FIRST_SHARE   0-1, default 0.25

it picks the candidate shown first (a position bias, so the orders of one pair can
disagree); otherwise it mostly picks the candidate whose text shares the most words with
the character and scenario, so its choice does not depend on the order.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from .material import content_words, labelled

FIRST_SHARE_VARIABLE = "HEARTBENCH_DEMO_JUDGE_FIRST_SHARE"
DEFAULT_FIRST_SHARE = 0.25
# How often the demo judge follows the evidence rather than drawing a candidate at random.
EVIDENCE_SHARE = 0.7
PARTIAL_SHARE = 0.4
FLAG_SHARE = 0.05

_CANDIDATE = re.compile(r"^## Candidate ([A-Z])\s*$", re.MULTILINE)


def first_share(environ: Mapping[str, str] | None = None) -> float:
    env = os.environ if environ is None else environ
    raw = env.get(FIRST_SHARE_VARIABLE) or str(DEFAULT_FIRST_SHARE)
    try:
        share = float(raw)
    except ValueError:
        raise ValueError(f"{FIRST_SHARE_VARIABLE} must be a number, not {raw!r}") from None
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"{FIRST_SHARE_VARIABLE} must be between 0 and 1, not {share}")
    return share


def candidate_blocks(user: str) -> tuple[str, dict[str, str]]:
    """The material before the candidates, and each candidate's text by letter."""
    parts = _CANDIDATE.split(user)
    material, rest = parts[0], parts[1:]
    blocks = {}
    for letter, text in zip(rest[0::2], rest[1::2], strict=True):
        blocks[letter] = text.split("\n## ", 1)[0]
    return material, blocks


def comparison_judgment(p) -> Any:
    """``p`` is a ``demo_answers.Prompt``."""
    props = p.schema.get("properties") or {}
    letters = list((props.get("selected_letter") or {}).get("enum") or ["A", "B", "C"])
    material, blocks = candidate_blocks(p.user)
    shown = [letter for letter in blocks if letter in letters] or letters
    evidence = set(content_words(material, 400))
    draw = p.rng.random()
    if draw < first_share():
        choice, why = shown[0], "It reads as the most considered answer."
    elif evidence and p.rng.random() < EVIDENCE_SHARE:
        overlap = {
            letter: len(evidence & set(content_words(blocks.get(letter, ""), 400)))
            for letter in shown
        }
        best = max(overlap.values())
        choice = p.rng.choice(sorted(letter for letter in shown if overlap[letter] == best))
        why = "Its decision follows most closely from the profile, memories and scenario."
    else:
        choice, why = p.rng.choice(shown), "On balance its decision fits the character best."
    rating = "partial" if p.rng.random() < PARTIAL_SHARE else "as_is"
    flagged = p.rng.random() < FLAG_SHARE
    words = content_words(blocks.get(choice, ""), 40)
    detail = ", ".join(words[:3]) or "the decision"
    return {
        "suitability": "flagged" if flagged else "suitable",
        "suitability_reason": labelled("The scenario contradicts the profile's setting.")
        if flagged
        else "",
        "persona_consistency_note": labelled(f"Candidate {choice} keeps to the traits."),
        "memory_grounding_note": labelled(f"Candidate {choice} cites the supplied memories."),
        "situational_fit_note": labelled("The decisions answer the trigger event."),
        "psychological_plausibility_note": labelled("The reasoning is coherent."),
        "selected_letter": choice,
        "rating": rating,
        "selection_rationale": labelled(f"Candidate {choice}: {why}"),
        "revision_guidance": labelled(f"Make the part about {detail} more concrete.")
        if rating == "partial"
        else "",
    }
