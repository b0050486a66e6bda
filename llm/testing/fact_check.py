"""A deterministic fact checker for the fake provider server: it answers the two calls of
a repair's fact check (``audit.memory_quality.fact_prompts``) from the memory text in the
request, so a test can plant a fact and see a rewrite that drops it caught.

* Extraction (a schema with ``facts``): the facts of the original memory are its
  sentences (context, content summary, narrative, in order, each once), leaving out any
  sentence that holds a flagged passage.
* Check (a schema with ``verdicts``): a fact is present when the rewrite contains it as
  text (compared case- and space-insensitively, without its closing punctuation);
  contradicted when the rewrite holds a sentence that is the fact with a negation word
  ("not", "never", "no") added or taken away; missing otherwise. Invented are the
  rewrite's sentences the original does not contain, other than those contradictions.

The fake server answers these calls itself by default (``FakeProviderServer.fact_checks``),
before its queues and responder, so a test scripting repair rewrites scripts only those.
``FactCheckResponder(fallback)`` answers these calls and hands every other request to
``fallback`` (a responder, a callable taking the request), so a test's repair model can
answer rewrites as before. The headings it reads are the prompt module's; no Django.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from llm.testing.provider_formats import ReceivedRequest

ORIGINAL_HEADING = "## The original memory"
EXCLUDED_HEADING = "## Flagged passages (not facts to keep)"
FACTS_HEADING = "## Facts of the original"
REPAIRED_HEADING = "## The repaired memory"
FIELDS = ("context", "content_summary", "content_full")
NEGATIONS = frozenset({"not", "never", "no"})

_SENTENCE = re.compile(r"[^.!?]+[.!?]+[\"”’']?")


def sentences(text: str) -> list[str]:
    """The text's sentences, stripped (a trailing fragment without a full stop counts)."""
    found = [s.strip() for s in _SENTENCE.findall(text or "")]
    tail = _SENTENCE.sub("", text or "").strip()
    return [s for s in found if s] + ([tail] if tail else [])


def normal(text: str) -> str:
    """Lower case, single spaces, no surrounding quotes or closing punctuation."""
    text = " ".join(text.lower().split())
    return text.strip(" \"'“”‘’").rstrip(".!?,;:").strip(" \"'“”‘’")


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", normal(text))


def _section(user: str, heading: str) -> Any:
    """The JSON value that follows ``heading`` in the prompt, up to the next heading."""
    if heading not in user:
        return None
    block = user.split(heading, 1)[1]
    block = re.split(r"\n\n(?:## |Give each|List the)", block, maxsplit=1)[0]
    return json.loads(block)


def _memory_sentences(memory: dict) -> list[str]:
    return [s for field in FIELDS for s in sentences((memory or {}).get(field, ""))]


#: What the extraction's schema allows (``fact_prompts.EXTRACT_SCHEMA``): so many facts,
#: each so long; a longer sentence is cut (the cut part is still found verbatim).
MAX_FACTS, MAX_FACT_CHARS = 80, 500


def extract_facts(original: dict, excluded: list[str]) -> list[str]:
    flagged = [normal(p) for p in excluded if normal(p)]
    facts, seen = [], set()
    for sentence in _memory_sentences(original):
        key = normal(sentence)
        if not key or key in seen or any(p in key for p in flagged):
            continue
        seen.add(key)
        facts.append(sentence[:MAX_FACT_CHARS])
    return facts[:MAX_FACTS]


def _is_negation_of(fact: str, sentence: str) -> bool:
    a, b = _words(fact), _words(sentence)
    if a == b:
        return False
    strip = [w for w in a if w not in NEGATIONS], [w for w in b if w not in NEGATIONS]
    return bool(strip[0]) and strip[0] == strip[1]


def check_facts(facts: list[dict], original: dict, repaired: dict) -> dict:
    repaired_text = normal(" ".join((repaired or {}).get(f, "") for f in FIELDS))
    repaired_sentences = _memory_sentences(repaired)
    original_keys = {normal(s) for s in _memory_sentences(original)}
    original_text = normal(" ".join((original or {}).get(f, "") for f in FIELDS))
    verdicts, negations = [], set()
    for item in facts:
        text = item["text"]
        if normal(text) in repaired_text:
            verdicts.append({"fact": item["fact"], "verdict": "present", "note": "found verbatim"})
            continue
        opposite = next((s for s in repaired_sentences if _is_negation_of(text, s)), None)
        if opposite is not None:
            negations.add(normal(opposite))
            verdicts.append(
                {"fact": item["fact"], "verdict": "contradicted", "note": f"rewrite: {opposite}"}
            )
        else:
            verdicts.append({"fact": item["fact"], "verdict": "missing", "note": "not found"})
    invented = []
    for sentence in repaired_sentences:
        key = normal(sentence)
        if key in original_keys or key in negations or key in original_text:
            continue
        if sentence not in invented:
            invented.append(sentence)
    return {"verdicts": verdicts, "invented": invented}


def answer_prompt(schema: Any, user: str) -> dict | None:
    """The answer to a fact check call (its JSON schema and user prompt), or None when
    the prompt is not one of the fact check's."""
    properties = (schema or {}).get("properties", {}) if isinstance(schema, dict) else {}
    if "facts" in properties and ORIGINAL_HEADING in user:
        original = _section(user, ORIGINAL_HEADING)
        excluded = _section(user, EXCLUDED_HEADING) or []
        return {"facts": extract_facts(original, excluded)}
    if "verdicts" in properties and FACTS_HEADING in user:
        return check_facts(
            _section(user, FACTS_HEADING),
            _section(user, ORIGINAL_HEADING),
            _section(user, REPAIRED_HEADING),
        )
    return None


def answer(req: ReceivedRequest) -> dict | None:
    """``answer_prompt`` for a request the fake server received."""
    user = "\n".join(text for role, text in req.turns() if role == "user")
    return answer_prompt(req.schema(), user)


def is_fact_check(req: ReceivedRequest) -> bool:
    """Whether the fake server received ``req`` as one of a fact check's calls."""
    properties = (req.schema() or {}).get("properties", {})
    return "facts" in properties or {"verdicts", "invented"} <= set(properties)


def other_requests(requests: list[ReceivedRequest]) -> list[ReceivedRequest]:
    """``requests`` without the fact check's calls (a test counting its repair calls)."""
    return [req for req in requests if not is_fact_check(req)]


class FactCheckResponder:
    """Answers the fact check's calls; anything else goes to ``fallback``."""

    def __init__(self, fallback: Callable[[ReceivedRequest], Any] | None = None) -> None:
        self.fallback = fallback

    def __call__(self, req: ReceivedRequest) -> Any:
        answered = answer(req)
        if answered is not None:
            return answered
        if self.fallback is None:
            raise LookupError("the fact check responder has no fallback for this request")
        return self.fallback(req)
