"""How long a study takes to read (issue 32, "Hours in the chair"): the words a
participant reads per item (the scenario, the four options, the retrieved memories) and
the duration at a stated reading rate. Pure Python: the selectors count, this adds up.

The rate is ours, not the paper's (App. J says only that participants were paid by the
hour): 200 words a minute is below the ~240 words a minute adults read non-fiction
silently (Brysbaert 2019, "How many words do we read per minute?", J. Mem. Lang. 109),
because a participant reads to decide, comparing four long options against the memories.
"""

import re
import statistics
from dataclasses import dataclass

#: The reading rate a study's expected duration is stated at (consent page, study page).
READING_WORDS_PER_MINUTE = 200

_WORD = re.compile(r"\S+")

# The demo's stand-in memories carry labels for the people building the corpus ("[Demo
# stand-in, ...]", a planted audit defect's "(planted demo defect)"); a participant reads
# the narrative without them. Real memories carry neither, so they pass unchanged.
DEMO_LABELS = re.compile(r"\[Demo stand-in[^\]]*\]\s*|\s*\(planted demo defect\)")


def participant_text(narrative: str) -> str:
    """A memory's narrative as a participant reads it (without the demo's labels)."""
    return DEMO_LABELS.sub("", narrative or "").strip()


def count_words(*texts) -> int:
    """Words as a reader counts them: runs of non-space characters, over every text."""
    return sum(len(_WORD.findall(text or "")) for text in texts)


#: The scenario's fields a participant reads on an item's page.
SCENARIO_FIELDS_READ = (
    "name",
    "setting_location",
    "setting_time",
    "setting_atmosphere",
    "context_text",
    "trigger_sender",
    "trigger_message",
    "action_required",
)


def scenario_words(scenario) -> int:
    """The words of a scenario (a model row, live or historical) a participant reads."""
    return count_words(*(getattr(scenario, field) for field in SCENARIO_FIELDS_READ))


@dataclass(frozen=True)
class ItemWords:
    """The words of one item a participant reads, by part."""

    scenario: int
    options: int
    memories: int

    @property
    def total(self) -> int:
        return self.scenario + self.options + self.memories


def reading_minutes(words: int, rate: int = READING_WORDS_PER_MINUTE) -> float:
    return words / rate


def duration_text(minutes: float) -> str:
    """``about 7 minutes``, ``about 25 minutes``, ``about 18½ hours``: to the minute under
    a quarter of an hour, to 5 minutes under an hour, else to the half hour."""
    if minutes < 0.5:
        return "less than a minute"
    if minutes < 14.5:
        rounded = round(minutes)
        return f"about {rounded} minute{'s' if rounded != 1 else ''}"
    if minutes < 57.5:
        return f"about {5 * round(minutes / 5)} minutes"
    whole, half = divmod(round(minutes / 30), 2)
    plural = "s" if whole > 1 or half else ""
    return f"about {whole}{'½' if half else ''} hour{plural}"


@dataclass(frozen=True)
class ReadingLoad:
    """A study's reading load: every item's words and the time they take at the rate."""

    n_items: int
    words: int
    minutes: float
    median_item: ItemWords  # the median of each part (so the parts need not add up)
    median_total: int
    longest_total: int
    rate: int = READING_WORDS_PER_MINUTE

    @property
    def duration(self) -> str:
        return duration_text(self.minutes)

    @property
    def item_duration(self) -> str:
        return duration_text(reading_minutes(self.median_total, self.rate))

    @property
    def longest_duration(self) -> str:
        return duration_text(reading_minutes(self.longest_total, self.rate))


def reading_load(items: list[ItemWords], rate: int = READING_WORDS_PER_MINUTE) -> ReadingLoad:
    """The load of ``items`` (every item a participant reads, practice included)."""
    if not items:
        return ReadingLoad(0, 0, 0.0, ItemWords(0, 0, 0), 0, 0, rate)

    def median(values) -> int:
        return round(statistics.median(values))

    words = sum(i.total for i in items)
    return ReadingLoad(
        n_items=len(items),
        words=words,
        minutes=reading_minutes(words, rate),
        median_item=ItemWords(
            median(i.scenario for i in items),
            median(i.options for i in items),
            median(i.memories for i in items),
        ),
        median_total=median(i.total for i in items),
        longest_total=max(i.total for i in items),
        rate=rate,
    )


# --- What a practice item's feedback says ----------------------------------------------------

#: The reason a practice item's feedback gives when its reference has no reasoning of its
#: own; the admin replaces it on the study page.
PRACTICE_REASON_FALLBACK = (
    "This is the response this person gave. Look back at their memories for what points "
    "to it: how they acted and felt in situations like this one."
)


def default_practice_reason(core_reasoning: str) -> str:
    """Why a practice item's expected answer is expected, until the admin says better:
    the person's own reasoning from the item's reference, else the fallback."""
    reasoning = " ".join((core_reasoning or "").split())
    if not reasoning:
        return PRACTICE_REASON_FALLBACK
    return f"In this person's own words: “{reasoning}”"
