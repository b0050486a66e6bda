"""Pure text helpers of the reviews: field-level word diffs and the character-agnostic
check. No database access, so their tests need none."""

import difflib
import re

_TOKEN = re.compile(r"\s+|\S+\s*")


def word_diff(before: str, after: str) -> list[tuple[str, str]]:
    """``[(op, text)]`` with op ``equal``/``delete``/``insert``: a word-level diff that
    keeps the whitespace, so joining the equal and insert parts gives ``after``."""
    a, b = _TOKEN.findall(before or ""), _TOKEN.findall(after or "")
    ops: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            ops.append(("equal", "".join(a[i1:i2])))
            continue
        if tag in ("delete", "replace"):
            ops.append(("delete", "".join(a[i1:i2])))
        if tag in ("insert", "replace"):
            ops.append(("insert", "".join(b[j1:j2])))
    return ops


def normalize_space(text: str) -> str:
    return " ".join((text or "").split())


def passage_in(passage: str, text: str) -> bool:
    """Whether a quoted passage occurs in the field, ignoring differences in whitespace
    (a selection across a line break, a doubled space)."""
    needle = normalize_space(passage)
    return bool(needle) and needle in normalize_space(text)


# App. L.4 "No identity anchors for 'you'": the scenario may not give the tested character
# an age, occupation, tenure, education, marital or parenting status or money figures.
# A heuristic that points reviewers at candidates; pass 1 is where people decide.
IDENTITY_ANCHOR_PATTERNS: tuple[tuple[str, re.Pattern], ...] = (
    ("age", re.compile(r"\byou(?:'re| are) (?:\w+ )?\d{1,2}(?:[- ]years?[- ]old)?\b", re.I)),
    ("age", re.compile(r"\b(?:your|at) (?:\d{1,2}(?:st|nd|rd|th)|\w+teenth) birthday\b", re.I)),
    (
        "tenure",
        re.compile(r"\byou(?:'ve| have) (?:worked|been working|served) (?:as|at|for)\b", re.I),
    ),
    (
        "occupation",
        re.compile(
            r"\b(?:you are|you're|you work as) an? (?:\w+ )?(?:nurse|teacher|engineer|"
            r"manager|lawyer|doctor|accountant|programmer|developer|designer|"
            r"analyst|officer|consultant|professor|chef)\b",
            re.I,
        ),
    ),
    (
        "family",
        re.compile(
            r"\byour (?:\w+[- ])?(?:year[- ]old|\d+[- ]year[- ]old) "
            r"(?:son|daughter|child|kid)\b",
            re.I,
        ),
    ),
    ("family", re.compile(r"\byour (?:wife|husband|spouse)\b", re.I)),
    ("money", re.compile(r"\byour (?:salary|savings|income) of\b", re.I)),
)


def identity_anchors(text: str) -> list[tuple[str, str]]:
    """``[(kind, matched text)]`` for each phrase that may give "you" an identity."""
    found = []
    for kind, pattern in IDENTITY_ANCHOR_PATTERNS:
        found.extend((kind, m.group(0)) for m in pattern.finditer(text or ""))
    return found
