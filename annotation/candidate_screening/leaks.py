"""Identity leaks in a candidate's texts, found before annotators see them (issue 22,
"Blinding integrity"). Pure: strings in, findings out; no Django.

A finding is a prompt for a human look, not a verdict: the rules favour recall over
precision. Three kinds of rule:

* ``model_name``: a model or provider name as a whole word, any case ("GPT-4o",
  "Anthropic", "DeepSeek"). "Claude" is also a French first name, "Gemini" a star sign,
  "Mistral" a wind and a llama an animal: they are flagged all the same, because a
  candidate that names one is worth a look, and the admin accepts a false positive
  with a reason. "Google" alone is not flagged ("I would google it" is ordinary
  speech); "Google" next to AI, DeepMind, Brain, Bard or Gemini, or "trained/made by
  Google", is.
* ``ai_self_reference``: the writer speaking as an AI ("as an AI", "as a language
  model", "I am an assistant", "my training data", "my knowledge cutoff", ...).
* ``formatting``: what chat models typically add and a person's inner voice does not:
  markdown headers, bold or italic markers, bullet or numbered lists, horizontal rules,
  code fences, and assistant sign-offs or openers ("I hope this helps", "Let me know
  if", "Certainly!").
"""

import re
from dataclasses import asdict, dataclass

__all__ = ["RULES", "Finding", "screen_texts"]


@dataclass(frozen=True)
class Finding:
    rule: str  # a key of RULES
    kind: str  # model_name, ai_self_reference or formatting
    field: str
    text: str  # the matched text, as written
    start: int  # offset of the match in the field's text
    end: int

    def as_dict(self) -> dict:
        return asdict(self)


_I = re.IGNORECASE
_M = re.MULTILINE

# rule key → (kind, human description, pattern)
RULES: dict[str, tuple[str, str, re.Pattern]] = {
    "model_name": (
        "model_name",
        "A model or provider name",
        re.compile(
            r"\b(?:chat\s?gpt|gpt(?:-?\d[\w.]*)?|openai|o[13]-(?:mini|preview)|claude|"
            r"anthropic|gemini|bard|(?:google\s+)?deepmind|llama(?:[\s-]?\d[\w.]*)?|"
            r"meta\s+ai|mistral|mixtral|qwen|deepseek|copilot|grok|x\.?ai|cohere|"
            r"perplexity)\b",
            _I,
        ),
    ),
    "google_ai": (
        "model_name",
        "Google named as an AI maker",
        re.compile(
            r"\bgoogle(?:'s)?\s+(?:ai|brain|bard|gemini|research)\b|"
            r"\b(?:trained|made|built|developed|created)\s+by\s+google\b",
            _I,
        ),
    ),
    "ai_self_reference": (
        "ai_self_reference",
        "The writer speaks as an AI",
        re.compile(
            r"\bas\s+an?\s+(?:ai|a\.i\.|artificial\s+intelligence|(?:large\s+)?language\s+model|"
            r"llm|ai\s+(?:model|assistant|language\s+model)|virtual\s+assistant|chatbot)\b|"
            r"\bi(?:\s+am|'m)\s+(?:just\s+|only\s+|merely\s+)?an?\s+(?:ai|a\.i\.|assistant|"
            r"(?:large\s+)?language\s+model|llm|chatbot|virtual\s+assistant|"
            r"artificial\s+intelligence|ai\s+\w+)\b|"
            r"\b(?:large\s+)?language\s+model\b|\bai\s+(?:assistant|model)\b|"
            r"\bmy\s+(?:training(?:\s+data)?|knowledge\s+cut-?off|programming|"
            r"developers|creators)\b|"
            r"\bi\s+(?:was|have\s+been)\s+trained\b|"
            r"\bi\s+(?:do\s+not|don't|cannot|can't)\s+have\s+(?:personal\s+)?"
            r"(?:feelings|emotions|experiences|opinions|a\s+body)\b",
            _I,
        ),
    ),
    "markdown_header": (
        "formatting",
        "A markdown header",
        re.compile(r"^[ \t]*#{1,6}[ \t]+\S.*$", _M),
    ),
    "bold_or_italic": (
        "formatting",
        "Bold or italic markers",
        re.compile(r"\*\*[^*\n]+\*\*|__[^_\n]+__|(?<![*\w])\*[^*\s][^*\n]*?\*(?![*\w])"),
    ),
    "list_item": (
        "formatting",
        "A bullet or numbered list item",
        re.compile(r"^[ \t]*(?:[-*+•]|\d{1,2}[.)])[ \t]+\S", _M),
    ),
    "horizontal_rule": (
        "formatting",
        "A horizontal rule",
        re.compile(r"^[ \t]*(?:-{3,}|\*{3,}|_{3,})[ \t]*$", _M),
    ),
    "code_fence": ("formatting", "A code fence", re.compile(r"```|~~~")),
    "sign_off": (
        "formatting",
        "An assistant's opener or sign-off",
        re.compile(
            r"\bi\s+hope\s+(?:this|that)\s+helps\b|\blet\s+me\s+know\s+if\b|"
            r"\bfeel\s+free\s+to\b|\bhappy\s+to\s+help\b|\bgreat\s+question\b|"
            r"\b(?:certainly|absolutely|of\s+course|sure)!|"
            r"\bhere(?:'s|\s+is)\s+(?:a|an|my|the)\s+(?:response|answer|summary|breakdown)\b|"
            r"\bin\s+summary,|\bi\s+would\s+be\s+glad\s+to\b",
            _I,
        ),
    ),
}


def screen_texts(fields: dict[str, str]) -> list[Finding]:
    """Every finding in ``fields`` ({field name: text}), by field (in the given order),
    then offset, then rule. Overlapping matches of different rules are all kept."""
    found = []
    for field, text in fields.items():
        for rule, (kind, _, pattern) in RULES.items():
            for match in pattern.finditer(text or ""):
                found.append(Finding(rule, kind, field, match.group(0), match.start(), match.end()))
    order = {f: i for i, f in enumerate(fields)}
    return sorted(found, key=lambda f: (order[f.field], f.start, f.rule))


def rule_label(rule: str) -> str:
    return RULES[rule][1] if rule in RULES else rule


def highlight(text: str, findings: list[dict]) -> list[tuple[str, bool]]:
    """``text`` cut into (segment, is a match) pieces for display; overlapping matches
    merge. The template escapes every piece."""
    spans = sorted((f["start"], f["end"]) for f in findings)
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    pieces, at = [], 0
    for start, end in merged:
        if start > at:
            pieces.append((text[at:start], False))
        pieces.append((text[start:end], True))
        at = end
    if at < len(text):
        pieces.append((text[at:], False))
    return pieces
