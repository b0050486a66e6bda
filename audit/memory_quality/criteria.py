"""The six defect criteria of the memory quality audit (seed 000 §2.2 Stage 3, App. B.6).

The pure core: dataclasses, ``re`` and scikit-learn, no Django. Selectors turn Memory
rows into ``MemoryText``; ``audit_memories`` returns the findings; services persist them.
Its tests need no database.

Pattern phrases are plain text; ``...`` inside a phrase ("it took...to realize") is a
gap of up to ``GAP_CHARS`` characters within one sentence. Matching is case-insensitive
and on word boundaries.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer

from core import protocol
from core.life_stages import CHILDHOOD

# --- The protocol's numbers and lists (App. B.6, B.7, L.3) ------------------------------

OMNISCIENT = 1
ADULT_EVALUATION = 2
FIELD_LENGTH_INVERSION = 3
SEMANTIC_DUPLICATION = 4
LENGTH_VIOLATION = 5
VOCABULARY_INFLATION = 6
CRITERIA = {
    OMNISCIENT: "Perspective drift (omniscient narrator)",
    ADULT_EVALUATION: "Perspective drift (adult evaluation)",
    FIELD_LENGTH_INVERSION: "Field-length inversion",
    SEMANTIC_DUPLICATION: "Semantic duplication",
    LENGTH_VIOLATION: "Length violation",
    VOCABULARY_INFLATION: "Schema-vocabulary inflation",
}

# App. L.3 "Forbidden expressions" of the memory generation prompt (criterion 1).
OMNISCIENT_PATTERNS = (
    "years later",
    "many years later",
    "later I learned",
    "later I discovered",
    "now thinking back",
    "now recalling",
    "until now",
    "I didn't know then",
    "I did not know then",
    "until...only then",
    "it took...to realize",
    "walked...before realizing",
    "if only I had known",
    "if I had known earlier",
    "I thought at the time",
    "from then on",
    "thereafter",
    "the whole thing",
    "the most...part",
)
# App. B.6 criterion 2: adult-level retrospective appraisal in a child-age memory.
ADULT_EVALUATION_PATTERNS = (
    "looking back",
    "I now understand",
    "I now realize",
    "in hindsight",
    "in retrospect",
    "as an adult",
    "I understand now",
    "I realize now",
    "with the benefit of",
    "it shaped who I",
    "I came to understand",
)
# Child-age memories are those of the School age bin (6-11), the childhood band of the
# memory prompt too (core.life_stages.age_band); B.6 writes "≤ 12" (docs/paper-vs-platform.md,
# "Life-stage boundaries").
ADULT_EVALUATION_MAX_AGE = CHILDHOOD.last_age
# App. B.6 criterion 6: the high-register psychoanalytic terms the paper names
# ("abandonment schema", "dysregulation"), and nothing more: everyday words such as
# "projection" or "attribution" would flag ordinary memories (a slide projection, the
# attribution of a quote). Other clinical vocabulary is the LLM classifier's to judge;
# an admin may add terms in a new settings version.
PSYCHOANALYTIC_TERMS = ("abandonment schema", "dysregulation")
# The protocol's numbers (App. B.6, L.3), under the names the settings and tests use.
LOW_INTENSITY_THRESHOLD = protocol.LOW_INTENSITY_THRESHOLD
CONTEXT_WORDS = protocol.MEMORY_CONTEXT_WORDS
SUMMARY_WORDS = protocol.MEMORY_SUMMARY_WORDS
DUPLICATE_THRESHOLD = protocol.DUPLICATE_COSINE_THRESHOLD
LENGTH_MAX_CHARS = protocol.MEMORY_MAX_CHARS
GUIDED_LENGTH = protocol.MEMORY_GUIDED_CHARS
MAX_REPAIR_ATTEMPTS = protocol.AUDIT_REPAIR_ATTEMPTS
GAP_CHARS = 60
# Dialogue of this many words or more in a metadata field is narration (criterion 3).
DIALOGUE_MIN_WORDS = 4


@dataclass(frozen=True)
class AgeWindow:
    """A developmental age window of criterion 4 (default: the life-stage bins)."""

    key: str
    first_age: int
    last_age: int


def default_windows() -> tuple[AgeWindow, ...]:
    # Imported here so the module stays importable without Django settings; the bins
    # are plain dataclasses.
    from core.life_stages import LIFE_STAGE_BINS

    return tuple(AgeWindow(b.key, b.first_age, b.last_age) for b in LIFE_STAGE_BINS)


@dataclass(frozen=True)
class AuditConfig:
    """One version of the audit settings, as the pure core needs it."""

    omniscient_patterns: tuple[str, ...] = OMNISCIENT_PATTERNS
    adult_evaluation_patterns: tuple[str, ...] = ADULT_EVALUATION_PATTERNS
    adult_evaluation_max_age: int = ADULT_EVALUATION_MAX_AGE
    psychoanalytic_terms: tuple[str, ...] = PSYCHOANALYTIC_TERMS
    low_intensity_threshold: float = LOW_INTENSITY_THRESHOLD
    context_words: tuple[int, int] = CONTEXT_WORDS
    summary_words: tuple[int, int] = SUMMARY_WORDS
    duplicate_threshold: float = DUPLICATE_THRESHOLD
    windows: tuple[AgeWindow, ...] = field(default_factory=default_windows)
    length_max_chars: int = LENGTH_MAX_CHARS
    guided_length: tuple[int, int] = GUIDED_LENGTH
    enabled_criteria: frozenset[int] = frozenset(CRITERIA)

    def window_for(self, age: int) -> str | None:
        for window in self.windows:
            if window.first_age <= age <= window.last_age:
                return window.key
        return None


@dataclass(frozen=True)
class MemoryText:
    key: str  # the memory id
    character: str
    event_age: int
    context: str
    content_summary: str
    content_full: str
    emotion_intensity: float


@dataclass(frozen=True)
class Span:
    field: str
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Finding:
    memory: str
    criterion: int
    field: str
    detail: str
    spans: tuple[Span, ...] = ()
    related: str = ""  # criterion 4: the earlier memory this one duplicates
    score: float | None = None
    source: str = "pattern"  # "pattern" (the checks here) or "classifier" (the LLM's)

    @property
    def defect(self) -> tuple[int, str]:
        """What a repair targets: the criterion and the field it failed on."""
        return (self.criterion, self.field)

    def as_dict(self) -> dict:
        return {
            "criterion": self.criterion,
            "field": self.field,
            "detail": self.detail,
            "spans": [
                {"field": s.field, "start": s.start, "end": s.end, "text": s.text}
                for s in self.spans
            ],
            "related": self.related,
            "score": self.score,
            "source": self.source,
        }


@dataclass
class AuditResult:
    findings: dict[str, list[Finding]]
    # Criterion 5's guided range is reported, never flagged: (below, within, above, over).
    length_report: dict[str, int]

    def flagged(self) -> set[str]:
        return {key for key, found in self.findings.items() if found}


# --- Pattern matching -------------------------------------------------------------------


def _phrase_regex(phrase: str) -> str:
    parts = [re.escape(p.strip()).replace("\\ ", r"\s+") for p in phrase.split("...")]
    gap = rf"[^.!?\n]{{0,{GAP_CHARS}}}?"
    body = gap.join(p for p in parts if p)
    # Apostrophes: "didn't" matches a typographic ’ too.
    body = body.replace("'", "['’]")
    return rf"\b{body}\b"


class PhraseMatcher:
    """One alternation for a phrase list (longest first, so "many years later" wins),
    behind a prefilter: a text is scanned by the regex only when it contains, in lower
    case, the longest word of some phrase. ``str.__contains__`` runs in C and
    most narratives contain no phrase at all, which keeps the audit near the TF-IDF floor.
    """

    def __init__(self, phrases: Iterable[str]):
        phrases = sorted({p.strip() for p in phrases if p.strip()}, key=len, reverse=True)
        self.regex = (
            re.compile("|".join(_phrase_regex(p) for p in phrases), re.IGNORECASE)
            if phrases
            else None
        )
        # The longest word of each phrase: a match always contains it, whatever
        # whitespace or apostrophe the text uses between the words.
        self.literals = tuple(
            {max(re.findall(r"\w+", p.lower()) or [""], key=len) for p in phrases} - {""}
        )

    def spans(self, field_name: str, text: str) -> tuple[Span, ...]:
        if self.regex is None or not text:
            return ()
        lowered = text.lower()
        if not any(literal in lowered for literal in self.literals):
            return ()
        return tuple(
            Span(field_name, m.start(), m.end(), m.group(0)) for m in self.regex.finditer(text)
        )


def compile_patterns(phrases: Iterable[str]) -> PhraseMatcher:
    return PhraseMatcher(phrases)


_WORD = re.compile(r"\S+")
_DIALOGUE = re.compile(r"[\"“]([^\"”]+)[\"”]")


def word_count(text: str) -> int:
    return len(text.split())


def _overflow_span(field_name: str, text: str, limit: int) -> Span:
    words = list(_WORD.finditer(text))
    start = words[limit].start()
    return Span(field_name, start, len(text), text[start:])


@dataclass(frozen=True)
class CompiledConfig:
    config: AuditConfig
    omniscient: PhraseMatcher
    adult: PhraseMatcher
    psychoanalytic: PhraseMatcher

    @classmethod
    def of(cls, config: AuditConfig) -> CompiledConfig:
        return cls(
            config,
            compile_patterns(config.omniscient_patterns),
            compile_patterns(config.adult_evaluation_patterns),
            compile_patterns(config.psychoanalytic_terms),
        )


NARRATIVE_FIELDS = ("context", "content_summary", "content_full")


def check_memory(memory: MemoryText, compiled: CompiledConfig) -> list[Finding]:
    """Criteria 1, 2, 3, 5 and 6: everything that looks at one memory alone."""
    config = compiled.config
    enabled = config.enabled_criteria
    found: list[Finding] = []
    texts = {f: getattr(memory, f) for f in NARRATIVE_FIELDS}

    if OMNISCIENT in enabled:
        for name, text in texts.items():
            spans = compiled.omniscient.spans(name, text)
            if spans:
                found.append(
                    Finding(
                        memory.key,
                        OMNISCIENT,
                        name,
                        f"{len(spans)} post-hoc or future marker{'' if len(spans) == 1 else 's'}: "
                        + ", ".join(f"“{s.text}”" for s in spans[:5]),
                        spans,
                    )
                )
    if ADULT_EVALUATION in enabled and memory.event_age <= config.adult_evaluation_max_age:
        for name, text in texts.items():
            spans = compiled.adult.spans(name, text)
            if spans:
                found.append(
                    Finding(
                        memory.key,
                        ADULT_EVALUATION,
                        name,
                        f"adult-level retrospective appraisal at age {memory.event_age}: "
                        + ", ".join(f"“{s.text}”" for s in spans[:5]),
                        spans,
                    )
                )
    if FIELD_LENGTH_INVERSION in enabled:
        for name, (_low, high) in (
            ("context", config.context_words),
            ("content_summary", config.summary_words),
        ):
            text = texts[name]
            words = word_count(text)
            dialogue = tuple(
                Span(name, m.start(), m.end(), m.group(0))
                for m in _DIALOGUE.finditer(text)
                if word_count(m.group(1)) >= DIALOGUE_MIN_WORDS
            )
            if words > high:
                found.append(
                    Finding(
                        memory.key,
                        FIELD_LENGTH_INVERSION,
                        name,
                        f"{words} words (at most {high}): narrative detail belongs in content_full",
                        (_overflow_span(name, text, high), *dialogue),
                    )
                )
            elif dialogue:
                found.append(
                    Finding(
                        memory.key,
                        FIELD_LENGTH_INVERSION,
                        name,
                        "reconstructed dialogue in a metadata field: it belongs in content_full",
                        dialogue,
                    )
                )
    if LENGTH_VIOLATION in enabled:
        length = len(memory.content_full)
        if length > config.length_max_chars:
            found.append(
                Finding(
                    memory.key,
                    LENGTH_VIOLATION,
                    "content_full",
                    f"{length:,} characters (at most {config.length_max_chars:,})",
                )
            )
    if (
        VOCABULARY_INFLATION in enabled
        and memory.emotion_intensity < config.low_intensity_threshold
    ):
        for name, text in texts.items():
            spans = compiled.psychoanalytic.spans(name, text)
            if spans:
                found.append(
                    Finding(
                        memory.key,
                        VOCABULARY_INFLATION,
                        name,
                        f"psychoanalytic {'term' if len(spans) == 1 else 'terms'} at intensity "
                        f"{memory.emotion_intensity:.2f}: "
                        + ", ".join(f"“{s.text}”" for s in spans[:5]),
                        spans,
                    )
                )
    return found


# --- Criterion 4: TF-IDF + cosine per (character, age window) ---------------------------


def window_groups(memories: Sequence[MemoryText], config: AuditConfig) -> dict:
    """``{(character, window key): [index, ...]}`` in the given order."""
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, memory in enumerate(memories):
        window = config.window_for(memory.event_age)
        if window is not None:
            groups[(memory.character, window)].append(i)
    return groups


def _pair_arrays(texts: Sequence[str], threshold: float):
    """``(i, j, cosine)`` arrays with i < j and cosine > threshold, over one window.

    TfidfVectorizer rows are L2-normalised, so X·Xᵀ is the cosine matrix; it stays
    sparse and only its upper triangle above the threshold is read.
    """
    empty = (np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), np.empty(0))
    if len(texts) < 2:
        return empty
    try:
        matrix = TfidfVectorizer().fit_transform(texts)
    except ValueError:  # every text empty or stop words only
        return empty
    cosine = sparse.triu(matrix @ matrix.T, k=1).tocoo()
    keep = cosine.data > threshold
    return cosine.row[keep], cosine.col[keep], cosine.data[keep]


def similar_pairs(texts: Sequence[str], threshold: float) -> list[tuple[int, int, float]]:
    """``[(i, j, cosine)]`` with i < j and cosine > threshold, over one window."""
    rows, cols, data = _pair_arrays(texts, threshold)
    return [(int(i), int(j), float(s)) for i, j, s in zip(rows, cols, data, strict=True)]


def check_duplicates(memories: Sequence[MemoryText], config: AuditConfig) -> list[Finding]:
    """The later memory of each too-similar pair is flagged, naming the earlier one it
    is most similar to (order = the given order, which callers make chronological).
    The best pair per later memory is picked with numpy, not a loop over pairs."""
    found: dict[int, Finding] = {}
    for indices in window_groups(memories, config).values():
        texts = [memories[i].content_full for i in indices]
        rows, cols, data = _pair_arrays(texts, config.duplicate_threshold)
        if not len(data):
            continue
        order = np.lexsort((-data, cols))  # by later memory, best score first
        cols_sorted = cols[order]
        first = np.unique(cols_sorted, return_index=True)[1]
        for k in order[first]:
            later, earlier = memories[indices[cols[k]]], memories[indices[rows[k]]]
            score = float(data[k])
            found[indices[cols[k]]] = Finding(
                later.key,
                SEMANTIC_DUPLICATION,
                "content_full",
                # The earlier memory is named by ``related`` (its key), never in the
                # message a reviewer reads, which says where it is instead.
                f"TF-IDF cosine {score:.3f} with the earlier memory at age "
                f"{earlier.event_age} (above {config.duplicate_threshold}), in the same "
                "age window",
                related=earlier.key,
                score=round(score, 4),
            )
    return [found[i] for i in sorted(found)]


def length_report(memories: Iterable[MemoryText], config: AuditConfig) -> dict[str, int]:
    low, high = config.guided_length
    lengths = np.fromiter((len(m.content_full) for m in memories), dtype=np.int64)
    return {
        "below_guided": int((lengths < low).sum()),
        "within_guided": int(((lengths >= low) & (lengths <= high)).sum()),
        "above_guided": int(((lengths > high) & (lengths <= config.length_max_chars)).sum()),
        "over_limit": int((lengths > config.length_max_chars).sum()),
        "mean_chars": int(lengths.mean()) if len(lengths) else 0,
    }


def audit_memories(
    memories: Sequence[MemoryText],
    config: AuditConfig,
    *,
    compiled: CompiledConfig | None = None,
    only: set[str] | None = None,
) -> AuditResult:
    """Criteria 1-6 over ``memories`` (chronological within each character).

    ``only`` limits the per-memory checks and the reported duplicates to those keys
    (re-auditing one repaired memory against its window), while the windows are still
    vectorised over every memory given.
    """
    compiled = compiled or CompiledConfig.of(config)
    findings: dict[str, list[Finding]] = {}
    for memory in memories:
        if only is None or memory.key in only:
            findings[memory.key] = check_memory(memory, compiled)
    if SEMANTIC_DUPLICATION in config.enabled_criteria:
        for finding in check_duplicates(memories, config):
            if finding.memory in findings:
                findings[finding.memory].append(finding)
    subject = [m for m in memories if only is None or m.key in only]
    return AuditResult(findings, length_report(subject, config))


# --- Post-audit sanitation (seed 000 §2.2 Stage 3) --------------------------------------

# How other people name the narrator, gendered → gender-neutral.
NARRATOR_LABELS = {
    "good boy": "good kid",
    "good girl": "good kid",
    "little boy": "little one",
    "little girl": "little one",
    "young man": "young person",
    "young lady": "young person",
    "my boy": "my kid",
    "my girl": "my kid",
    "sonny": "kid",
    "missy": "kid",
}


def sanitize_text(text: str, *, names: Iterable[str], labels: dict[str, str]) -> str:
    """Gender-neutral labels for the narrator and no character name: a name becomes
    "you" (the anonymity principle of App. L.3: others address the narrator as "you")."""
    for name in sorted({n for n in names if n}, key=len, reverse=True):
        text = re.sub(rf"\b{re.escape(name)}\b", "you", text)
    if labels:
        pattern = re.compile(
            "|".join(rf"\b{re.escape(k)}\b" for k in sorted(labels, key=len, reverse=True)),
            re.IGNORECASE,
        )
        lowered = {k.lower(): v for k, v in labels.items()}

        def replace(match: re.Match) -> str:
            new = lowered[match.group(0).lower()]
            return new[:1].upper() + new[1:] if match.group(0)[:1].isupper() else new

        text = pattern.sub(replace, text)
    return text
