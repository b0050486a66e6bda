"""The demo answers of the memory audit's prompts (seed 000 App. B.6): a repair whose
fields pass the re-audit and keep the original's facts, a classifier verdict that judges
the memory's text, and the two calls of a repair's fact check (issue #37), answered from
the memory text as the fake provider answers them (``llm.testing.fact_check``).
``p`` is ``demo_answers.Prompt``. Pure: no Django."""

from __future__ import annotations

import random
import re
from typing import Any

from llm.testing import fact_check

from .material import (
    DEMO_LABEL,
    DEMO_WORDS,
    NARRATIVE,
    content_words,
    excerpt,
    labelled,
    memory_json,
    pick_words,
    unit_draw,
)


def _sized(rng: random.Random, seed_words: list[str], low: int, high: int) -> str:
    """A plain phrase of ``low``-``high`` words (the label's three included): no dialogue,
    no later knowledge, so the re-audit of a repair finds nothing to flag."""
    total = rng.randint(low + 2, max(low + 2, high - 2))
    words = [rng.choice(seed_words or DEMO_WORDS) for _ in range(total - 3)]
    return f"{DEMO_LABEL} {' '.join(words)}."


#: A sentence of a memory's narrative carrying this marker is one the demo's repair
#: leaves out, so the demo can show a rewrite its fact check sends back.
DROPPED_FACT = "(planted demo fact)"
_QUOTED = re.compile(r"“([^”]+)”")


def _narrative(p: Any, memory: dict, spec: dict) -> str:
    """The original narrative without its flagged sentences (those holding a passage the
    findings quote, or a planted dropped fact) and with one sentence of the moment added,
    so the re-audit judges a new text; every other sentence (fact) kept verbatim."""
    findings = p.user.split("## The defect to repair", 1)[-1]
    for prompt in (p.system, p.user):  # the repair instruction names the matched phrases
        if "## Repair instruction" in prompt:
            findings += prompt.split("## Repair instruction", 1)[1]
    quotes = [q.lower() for q in _QUOTED.findall(findings) if q.strip()]
    words = content_words(str(memory.get("content_summary", "")), 60)
    kept = [
        s
        for s in fact_check.sentences(str(memory.get("content_full", "")))
        if DROPPED_FACT not in s and not any(q in s.lower() for q in quotes)
    ]
    kept.append(f"{DEMO_LABEL} I am here, and I notice {' '.join(pick_words(p.rng, words, 3))}.")
    text = " ".join(kept)
    low, high = int(spec.get("minLength", 0)), int(spec.get("maxLength", 10_000))
    sentences = p.rng.sample(NARRATIVE, len(NARRATIVE))
    while len(text) < max(low, 200):
        text += " " + (sentences.pop() if sentences else p.rng.choice(NARRATIVE))
    return text[:high]


def memory_repair(p: Any) -> Any:
    """Fields within the audit's word and length limits, from the memory's own words; a
    regenerated narrative keeps the original's sentences but the flagged ones."""
    props = p.schema.get("properties") or {}
    memory = memory_json(p.user)
    words = content_words(
        " ".join(str(memory.get(k, "")) for k in ("context", "content_summary")), 60
    )
    out: dict[str, Any] = {}
    if "context" in props:
        out["context"] = _sized(p.rng, words, 15, 30)
    if "content_summary" in props:
        out["content_summary"] = _sized(p.rng, words, 20, 40)
    if "content_full" in props:
        out["content_full"] = _narrative(p, memory, props["content_full"])
    return out


def fact_extract(p: Any) -> Any:
    """The original's facts: its sentences but the flagged ones."""
    return fact_check.answer_prompt(p.schema, p.user)


def fact_verdicts(p: Any) -> Any:
    """Each fact present when the rewrite holds it verbatim; the rewrite's new sentences
    invented."""
    return fact_check.answer_prompt(p.schema, p.user)


# What the demo classifier reads as a defect beyond the audit's pattern lists: phrases a
# model could take for the criterion's defect though no pattern names them (the prompt
# names its criterion). A memory carrying one is flagged on that criterion with the
# phrase's sentence quoted, and an edit that removes the phrase clears the flag.
CLASSIFIER_CUES = {
    "omniscient": (
        "as it turned out",
        "little did i know",
        "i would only learn",
        "as i would later",
        "it would be years before",
    ),
    "adult evaluation": ("i can see now", "what i could not name then", "the adult i became"),
    "vocabulary inflation": (
        "hypervigilance",
        "learned helplessness",
        "emotional enmeshment",
        "trauma response",
    ),
}
# The six criteria of App. B.6: the flag share is spread over them, so about that share of
# memory texts is flagged on some criterion.
CLASSIFIER_CRITERIA = 6
_SENTENCE = re.compile(r"[^.!?]*[.!?]+")


def _sentence_with(text: str, phrase: str) -> str:
    start = text.lower().find(phrase)
    for match in _SENTENCE.finditer(text):
        if match.start() <= start < match.end():
            return match.group(0).strip()
    return text[start : start + len(phrase)]


def audit_classifier(p: Any) -> Any:
    """A verdict on the memory's text (never its id): a cue phrase of the criterion is a
    defect; otherwise a draw seeded by the text flags about ``flag_share`` of memories
    (spread over the six criteria), so a rewrite is judged afresh and the same text always
    gets the same verdict."""
    memory = memory_json(p.user)
    fields = [str(memory.get(k, "")) for k in ("context", "content_summary", "content_full")]
    criterion = p.system.split("one defect criterion:", 1)[-1].split(".", 1)[0].strip()
    folded = criterion.lower()
    child_age = re.search(r"\((\d+) or younger\)", p.system)
    evidence = ""
    for name, cues in CLASSIFIER_CUES.items():
        if name not in folded:
            continue
        if child_age and int(memory.get("event_age") or 0) > int(child_age.group(1)):
            continue
        for text in fields:
            cue = next((c for c in cues if c in text.lower()), None)
            if cue:
                evidence = _sentence_with(text, cue)
                break
    text = " ".join(" ".join(fields).lower().split())
    drawn = (
        unit_draw(p.settings.seed, p.model, "classifier", criterion, text)
        < p.settings.flag_share / CLASSIFIER_CRITERIA
    )
    if drawn and not evidence:
        sentences = [m.group(0).strip() for m in _SENTENCE.finditer(fields[2])] or [fields[2]]
        pick = unit_draw(p.settings.seed, "evidence", criterion, text)
        evidence = excerpt(sentences[int(pick * len(sentences))], 12)
    defect = bool(evidence) or drawn
    return {
        "defect": defect,
        "evidence": evidence,
        "rationale": labelled(
            "The passage quoted shows the defect."
            if defect
            else "Nothing in the memory shows this defect."
        ),
    }
