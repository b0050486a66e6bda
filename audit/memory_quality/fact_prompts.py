"""The prompts of a repair's fact check (issue #37, after seed 003 App. A: facts of the
source, then each checked against the output) and the reading of their answers. Pure:
no Django.

Two calls per check: the first lists the atomic facts of the memory as the case found
it, leaving out the passages the audit flagged (the repair is asked to remove those);
the second gives each fact a verdict against the rewritten memory (present, missing or
contradicted) and lists what the rewrite states that the original does not (invented).
The headings below are what the fake provider's responder (``llm.testing.fact_check``)
reads; change them together.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

FIELDS = ("context", "content_summary", "content_full")
ORIGINAL_HEADING = "## The original memory"
EXCLUDED_HEADING = "## Flagged passages (not facts to keep)"
FACTS_HEADING = "## Facts of the original"
REPAIRED_HEADING = "## The repaired memory"

PRESENT, MISSING, CONTRADICTED = "present", "missing", "contradicted"
VERDICTS = (PRESENT, MISSING, CONTRADICTED)
#: Facts asked for at most: a 4,500-character narrative holds a few dozen.
MAX_FACTS = 80

EXTRACT_SYSTEM = (
    "You take apart an episodic memory of a virtual character, written in the first "
    "person for a personality benchmark, into its atomic facts. An atomic fact is one "
    "short statement that can be true or false on its own: who was there, where and "
    "when it happened, what was done, said, seen, felt in the body or thought at the "
    "time, and what followed. Write each fact as one plain sentence close to the "
    "memory's own words, in the first person as the memory is; one fact per sentence, "
    "no fact twice. Leave out style, tone and anything listed under the flagged "
    "passages: the audit found those passages defective, and their repair removes them."
)

CHECK_SYSTEM = (
    "You check a rewritten episodic memory against the numbered facts of its original. "
    "For every fact give one verdict: present (the rewrite states it or clearly implies "
    "it, in any wording), missing (the rewrite does not state it), or contradicted (the "
    "rewrite states something that cannot be true together with it). Then list the facts "
    "the rewrite states that the original memory does not: new people, places, times, "
    "events, words spoken, actions or outcomes (invented). A reworded fact is not "
    "invented; a new sensation or thought that changes nothing of what happened counts "
    "only when it adds an event. Give every numbered fact exactly one verdict."
)

EXTRACT_SCHEMA = {
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": 500},
            "maxItems": MAX_FACTS,
        }
    },
    "required": ["facts"],
    "additionalProperties": False,
}

CHECK_SCHEMA = {
    "type": "object",
    "properties": {
        "verdicts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "fact": {"type": "integer", "minimum": 1},
                    "verdict": {"type": "string", "enum": list(VERDICTS)},
                    "note": {"type": "string", "maxLength": 500},
                },
                "required": ["fact", "verdict"],
                "additionalProperties": False,
            },
        },
        "invented": {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": 500},
        },
    },
    "required": ["verdicts", "invented"],
    "additionalProperties": False,
}


class AnswerError(ValueError):
    """A schema-valid answer that still cannot be used; the message says why."""


def _memory_json(fields: dict) -> str:
    return json.dumps({f: fields.get(f, "") for f in FIELDS}, ensure_ascii=False, indent=1)


def extract_prompt(*, original: dict, excluded: Sequence[str]) -> tuple[str, str]:
    user = (
        f"{ORIGINAL_HEADING}\n{_memory_json(original)}\n\n"
        f"{EXCLUDED_HEADING}\n{json.dumps(list(excluded), ensure_ascii=False)}\n\n"
        'List the atomic facts of the original memory as {"facts": [...]}.'
    )
    return EXTRACT_SYSTEM, user


def check_prompt(*, facts: Sequence[str], original: dict, repaired: dict) -> tuple[str, str]:
    numbered = [{"fact": i, "text": text} for i, text in enumerate(facts, 1)]
    user = (
        f"{FACTS_HEADING}\n{json.dumps(numbered, ensure_ascii=False, indent=1)}\n\n"
        f"{ORIGINAL_HEADING}\n{_memory_json(original)}\n\n"
        f"{REPAIRED_HEADING}\n{_memory_json(repaired)}\n\n"
        f"Give each of the {len(facts)} facts its verdict and list the invented facts."
    )
    return CHECK_SYSTEM, user


def read_facts(parsed: dict) -> list[str]:
    """The extracted facts, stripped, each once, in order. None at all is an error: a
    memory of a few thousand characters states something."""
    facts = list(dict.fromkeys(str(f).strip() for f in parsed.get("facts") or []))
    facts = [f for f in facts if f]
    if not facts:
        raise AnswerError("The fact extraction returned no facts for the original memory.")
    return facts[:MAX_FACTS]


def read_verdicts(parsed: dict, facts: Sequence[str]) -> tuple[list[dict], list[str]]:
    """``(verdicts, invented)``: one ``{"fact", "verdict", "note"}`` per fact, in the
    facts' order. An answer that leaves a fact without a verdict, or gives one twice
    differently, is an error (the fact is not counted as missing: the repair is not
    blamed for the checker's gap)."""
    given: dict[int, dict] = {}
    problems = []
    for item in parsed.get("verdicts") or []:
        number = item.get("fact")
        if not isinstance(number, int) or not 1 <= number <= len(facts):
            problems.append(f"there is no fact {number!r}")
            continue
        if number in given and given[number]["verdict"] != item["verdict"]:
            problems.append(f"fact {number} has two verdicts")
        given.setdefault(number, item)
    absent = [n for n in range(1, len(facts) + 1) if n not in given]
    if absent:
        problems.append("no verdict for fact " + ", ".join(str(n) for n in absent[:10]))
    if problems:
        raise AnswerError("The fact check's answer is unusable: " + "; ".join(problems) + ".")
    verdicts = [
        {
            "fact": facts[n - 1],
            "verdict": given[n]["verdict"],
            "note": str(given[n].get("note") or "")[:500],
        }
        for n in range(1, len(facts) + 1)
    ]
    invented = list(dict.fromkeys(str(f).strip() for f in parsed.get("invented") or []))
    return verdicts, [f for f in invented if f]


def lost_facts_block(*, missing: Sequence[str], contradicted: Sequence[str], invented) -> str:
    """What the next repair prompt says about a rewrite that failed the fact check."""
    lines = [
        "## Your previous rewrite lost facts of the original memory",
        "It cleared its defect but did not keep the episode: repair only the defect and "
        "keep every other fact of the memory as given.",
    ]
    if missing:
        lines.append("Missing from the rewrite (keep each):")
        lines += [f"- {fact}" for fact in missing]
    if contradicted:
        lines.append("Contradicted by the rewrite (state each as the original does):")
        lines += [f"- {fact}" for fact in contradicted]
    if invented:
        lines.append("Added by the rewrite, not in the original (leave out):")
        lines += [f"- {fact}" for fact in invented]
    return "\n".join(lines)
