"""Criterion 6's term list is the paper's (seed 000 App. B.6): the high-register
psychoanalytic terms it names flag a low-intensity episode; everyday words that a
longer list had added do not. No database."""

import pytest

from audit.memory_quality import criteria
from audit.memory_quality.criteria import AuditConfig, CompiledConfig, MemoryText, check_memory
from audit.memory_quality.services.configuration import audit_settings_defaults

from .test_criteria import CONTEXT, NARRATIVE, SUMMARY

# App. B.6 criterion 6: 'high-register psychoanalytic terms (e.g., "abandonment schema",
# "dysregulation") in low-intensity episodes (<0.4)'.
PAPER_TERMS = ("abandonment schema", "dysregulation")
COMPILED = CompiledConfig.of(AuditConfig())


def low_intensity(text: str) -> MemoryText:
    return MemoryText("MEM_A", "CHAR_01", 15, CONTEXT, SUMMARY, NARRATIVE + " " + text, 0.2)


def vocabulary_flags(text: str) -> list[criteria.Finding]:
    return [
        f
        for f in check_memory(low_intensity(text), COMPILED)
        if f.criterion == criteria.VOCABULARY_INFLATION
    ]


@pytest.mark.parametrize(
    "everyday",
    [
        "The teacher dimmed the lights for the slide projection and I squinted at the wall.",
        "Our sales projection for the bake sale was twelve cakes, and we sold nine.",
        "I copied the quote without its attribution, and the teacher circled it in red.",
        "The attribution line under the photo named my cousin, which made me grin.",
    ],
)
def test_projection_and_attribution_in_an_everyday_sense_are_not_flagged(everyday):
    """seed 000 App. B.6 criterion 6 flags over-psychologization; a slide projection or
    the attribution of a quote is ordinary language, and a low-intensity memory saying
    so is not flagged."""
    assert vocabulary_flags(everyday) == []


@pytest.mark.parametrize("term", PAPER_TERMS)
def test_each_of_the_papers_terms_is_flagged_in_a_low_intensity_episode(term):
    """seed 000 App. B.6 criterion 6: each term the paper names is flagged at intensity
    below 0.4, with the term as the evidence."""
    [finding] = vocabulary_flags(f"I felt my {term} stir while I waited for the bus.")
    assert [s.text for s in finding.spans] == [term]


def test_the_default_settings_hold_the_papers_terms_and_nothing_more():
    """seed 000 App. B.6: the default list of a new settings version is the paper's."""
    assert tuple(audit_settings_defaults()["psychoanalytic_terms"]) == PAPER_TERMS
    assert criteria.PSYCHOANALYTIC_TERMS == PAPER_TERMS
