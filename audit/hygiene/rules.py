"""The release hygiene screen's rules (MRBench App. D.5 does the same before its release):
personal data by pattern and offensive words by a lexicon that is data. Pure: no Django.

Each rule returns the spans it matched in one text field, as :class:`Match` (field,
start, end, the matched text), so a reviewer sees exactly what was flagged. The rules
and why each is drawn where it is are in docs/lab-admin/validity-release-hygiene.md.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: The lexicon and the list of capitalized common words the project ships.
DEFAULT_LEXICON = HERE / "lexicon.json"
DEFAULT_ALLOWED_WORDS = HERE / "allowed_words.txt"
#: The characters of text kept either side of a span, for the reviewer's excerpt.
EXCERPT_CONTEXT = 80


class Rule(StrEnum):
    EMAIL = "email"
    PHONE = "phone"
    URL = "url"
    ADDRESS = "address"
    POSTCODE = "postcode"
    ID_NUMBER = "id_number"
    NAME = "name"
    LEXICON = "lexicon"

    @property
    def label(self) -> str:
        return RULE_LABELS[self]

    @property
    def is_personal_data(self) -> bool:
        return self is not Rule.LEXICON


RULE_LABELS = {
    Rule.EMAIL: "E-mail address",
    Rule.PHONE: "Phone number",
    Rule.URL: "Web address",
    Rule.ADDRESS: "Street address",
    Rule.POSTCODE: "Postcode",
    Rule.ID_NUMBER: "ID-like number",
    Rule.NAME: "Name or place not in the character's profile",
    Rule.LEXICON: "Offensive word (lexicon)",
}


@dataclass(frozen=True)
class Match:
    rule: Rule
    field: str
    start: int
    end: int
    text: str
    detail: str = ""


# --- personal data by pattern -------------------------------------------------------------

EMAIL = re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")
URL = re.compile(
    r"\b(?:https?://|www\.)[^\s<>\"']+"
    r"|\b[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.(?:com|org|net|edu|gov|io|info|biz|co|uk|de|fr|"
    r"cn|jp|ru|nl|au|ca)\b(?:/[^\s<>\"']*)?",
    re.IGNORECASE,
)
# Seven to fifteen digits (E.164 allows fifteen) in groups split by spaces, dots or
# hyphens, an optional +country code and (area code).
PHONE = re.compile(
    r"(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,5}(?:[ .-]\d{2,5}){1,4}(?![\w])"
    r"|(?<![\w+])\+\d{7,15}(?![\w])"
)
PHONE_DIGITS = (7, 15)
YEAR_RANGE = re.compile(r"^(?:1[89]|20)\d\d(?:\s*[-–]\s*(?:1[89]|20)?\d\d)?$")
STREET_TYPES = (
    "Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Boulevard|Blvd|Drive|Dr|Way|Court|Ct|Place|Pl|"
    "Terrace|Close|Crescent|Square|Sq|Highway|Hwy"
)
ADDRESS = re.compile(rf"\b\d{{1,5}}[A-Za-z]?\s+(?:[A-Z][a-z]+\s+){{1,3}}(?:{STREET_TYPES})\b\.?")
POSTCODE = re.compile(
    # UK: "SW1A 1AA"; US: a state's two letters, then a ZIP ("CA 94103", "NY 10001-1234").
    r"\b[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}\b|\b[A-Z]{2}\s\d{5}(?:-\d{4})?\b"
)
# US social security style (3-2-4), or a run of eight or more digits, or letters then
# six or more digits (passport, licence, student numbers).
ID_NUMBER = re.compile(r"\b\d{3}-\d{2}-\d{4}\b|\b\d{8,}\b|\b[A-Z]{1,3}\d{6,}\b")

# A capitalized word (or a run of them) after a lower-case word or a digit and one space:
# mid-sentence, where capitals mark a name or a place. After a comma or a colon capitals
# also start the items of a label list ("Mild anxiety, Shame"), so those are left out.
CAPITALIZED_RUN = re.compile(
    r"(?<=[a-z0-9] )[A-Z][a-z]+(?:[-'][A-Za-z]+)*(?: [A-Z][a-z]+(?:[-'][A-Za-z]+)*)*"
)
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
POSSESSIVE = re.compile(r"'s$")


def _trim(span_text: str) -> str:
    return span_text.rstrip(".,;:!?)]}'\"")


def _pattern_matches(rule: Rule, pattern: re.Pattern, field_name: str, text: str):
    for m in pattern.finditer(text):
        matched = _trim(m.group())
        if matched:
            yield Match(rule, field_name, m.start(), m.start() + len(matched), matched)


def _overlaps(match: Match, taken: list[Match]) -> bool:
    return any(match.start < t.end and t.start < match.end for t in taken)


def personal_data(field_name: str, text: str) -> list[Match]:
    """Contacts, addresses and ID-like numbers in ``text``. An earlier rule's span wins
    over a later one's on the same characters (an e-mail address is not also a URL)."""
    found: list[Match] = []
    for rule, pattern in (
        (Rule.EMAIL, EMAIL),
        (Rule.URL, URL),
        (Rule.ADDRESS, ADDRESS),
        (Rule.POSTCODE, POSTCODE),
        (Rule.ID_NUMBER, ID_NUMBER),
        (Rule.PHONE, PHONE),
    ):
        for match in _pattern_matches(rule, pattern, field_name, text):
            if rule is Rule.PHONE and not _phone_like(match.text):
                continue
            if not _overlaps(match, found):
                found.append(match)
    return found


def _phone_like(text: str) -> bool:
    digits = sum(c.isdigit() for c in text)
    low, high = PHONE_DIGITS
    return low <= digits <= high and not YEAR_RANGE.match(text)


def words_of(*texts: str) -> frozenset[str]:
    """The lower-cased words of ``texts`` (a profile's vocabulary)."""
    return frozenset(w.lower() for text in texts for w in WORD.findall(text or ""))


def names_not_in_profile(
    field_name: str, text: str, *, profile_words: frozenset[str], allowed: frozenset[str]
) -> list[Match]:
    """Mid-sentence capitalized runs with a word that is neither in the character's own
    profile nor on the allowed list (kinship words, days, months ...)."""
    found = []
    for m in CAPITALIZED_RUN.finditer(text):
        unknown = [
            w
            for w in m.group().split(" ")
            if (base := POSSESSIVE.sub("", w).lower()) not in allowed and base not in profile_words
        ]
        if unknown:
            found.append(
                Match(
                    Rule.NAME,
                    field_name,
                    m.start(),
                    m.end(),
                    m.group(),
                    detail="not in the profile: " + ", ".join(unknown),
                )
            )
    return found


# --- offensive content by lexicon -----------------------------------------------------------


class LexiconError(ValueError):
    """A lexicon file that cannot be read; the message names what is wrong."""


@dataclass(frozen=True)
class Lexicon:
    """Offensive words as SHA-256 hashes of the lower-cased word (so the file spells none
    out) and, optionally, plain terms or phrases a lab fills in itself."""

    name: str
    hashes: dict[str, str] = field(default_factory=dict)  # sha256 -> category
    terms: dict[str, str] = field(default_factory=dict)  # lower-cased term -> category
    sha256: str = ""  # of the file, recorded with each run

    @property
    def size(self) -> int:
        return len(self.hashes) + len(self.terms)


def word_hash(word: str) -> str:
    return hashlib.sha256(word.lower().encode("utf-8")).hexdigest()


def load_lexicon(path: Path | str) -> Lexicon:
    path = Path(path)
    try:
        raw = path.read_bytes()
        doc = json.loads(raw)
    except OSError as error:
        raise LexiconError(f"The lexicon file {path} cannot be read: {error.strerror}.") from None
    except ValueError as error:
        raise LexiconError(f"The lexicon file {path} is not valid JSON: {error}.") from None
    if not isinstance(doc, dict):
        raise LexiconError(f"The lexicon file {path} must hold a JSON object.")
    hashes, terms = {}, {}
    for n, entry in enumerate(doc.get("entries", []), start=1):
        digest = str(entry.get("sha256", "")).lower() if isinstance(entry, dict) else ""
        if not re.fullmatch(r"[0-9a-f]{64}", digest):
            raise LexiconError(f"Entry {n} of {path.name} needs a 64-digit hex sha256.")
        hashes[digest] = str(entry.get("category") or "offensive")
    for n, entry in enumerate(doc.get("terms", []), start=1):
        term = str(entry.get("term", "")).strip().lower() if isinstance(entry, dict) else ""
        if not term:
            raise LexiconError(f"Term {n} of {path.name} needs a non-empty term.")
        terms[term] = str(entry.get("category") or "offensive")
    return Lexicon(
        name=str(doc.get("name") or path.name),
        hashes=hashes,
        terms=terms,
        sha256=hashlib.sha256(raw).hexdigest(),
    )


def load_allowed_words(path: Path | str) -> frozenset[str]:
    lines = Path(path).read_text("utf-8").splitlines()
    return frozenset(
        line.strip().lower() for line in lines if line.strip() and not line.startswith("#")
    )


def offensive(field_name: str, text: str, lexicon: Lexicon) -> list[Match]:
    found = []
    if lexicon.hashes:
        for m in WORD.finditer(text):
            category = lexicon.hashes.get(word_hash(m.group()))
            if category is not None:
                found.append(
                    Match(Rule.LEXICON, field_name, m.start(), m.end(), m.group(), category)
                )
    for term, category in lexicon.terms.items():
        pattern = re.compile(rf"(?<![\w]){re.escape(term)}(?![\w])", re.IGNORECASE)
        for m in pattern.finditer(text):
            match = Match(Rule.LEXICON, field_name, m.start(), m.end(), m.group(), category)
            if not _overlaps(match, found):
                found.append(match)
    return found


# --- one text --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Screen:
    """What one screen applies: the lexicon, the allowed capitalized words."""

    lexicon: Lexicon
    allowed: frozenset[str]


def screen_field(
    field_name: str, text: str, *, screen: Screen, profile_words: frozenset[str]
) -> list[Match]:
    """Every rule's spans in one field, in text order."""
    if not text:
        return []
    found = personal_data(field_name, text) + offensive(field_name, text, screen.lexicon)
    # A capitalized contact or lexicon word is flagged once, by its own rule.
    found += [
        m
        for m in names_not_in_profile(
            field_name, text, profile_words=profile_words, allowed=screen.allowed
        )
        if not _overlaps(m, found)
    ]
    return sorted(found, key=lambda m: (m.start, m.end, m.rule))


def excerpt(text: str, start: int, end: int, context: int = EXCERPT_CONTEXT) -> tuple:
    """(before, matched, after) around a span, cut at ``context`` characters each side."""
    before = text[max(0, start - context) : start]
    after = text[end : end + context]
    return (
        ("…" if start > context else "") + before,
        text[start:end],
        after + ("…" if end + context < len(text) else ""),
    )
