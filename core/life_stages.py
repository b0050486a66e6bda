"""The eight age-defined life-stage bins (seed 000 §2.2, App. B.4 Table 7, App. C).

One definition for the whole platform: memories get their bin from their event age,
scenarios carry theirs in ``stage``, and every breakdown (coverage, strata of the
reference-label audit, the human-baseline ILP) groups by these keys.

The release labels the bins with overlapping ranges ("ages 18-22", "ages 22-28", ...).
An age must fall in exactly one bin, so each shared boundary year belongs to the
earlier bin; the release's ``age_range`` strings are kept as display labels. Every
scenario age in the release falls inside its own bin under this rule.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class LifeStageBin:
    key: str
    label: str
    first_age: int
    last_age: int
    release_age_range: str

    def contains(self, age: int) -> bool:
        return self.first_age <= age <= self.last_age


LIFE_STAGE_BINS: tuple[LifeStageBin, ...] = (
    LifeStageBin("school_age", "School age", 6, 11, "ages 6-11"),
    LifeStageBin("adolescence", "Adolescence", 12, 17, "ages 12-17"),
    LifeStageBin("early_adult_transition", "Early adult transition", 18, 22, "ages 18-22"),
    LifeStageBin("entering_adult_world", "Entering the adult world", 23, 28, "ages 22-28"),
    LifeStageBin("age_30_transition", "Age-30 transition", 29, 33, "ages 28-33"),
    LifeStageBin("settling_down", "Settling down", 34, 40, "ages 33-40"),
    LifeStageBin("midlife_transition", "Midlife transition", 41, 45, "ages 40-45"),
    LifeStageBin("entering_midlife", "Entering middle adulthood", 46, 50, "ages 45-50"),
)

LIFE_STAGE_KEYS = tuple(b.key for b in LIFE_STAGE_BINS)
LIFE_STAGE_CHOICES = [(b.key, b.label) for b in LIFE_STAGE_BINS]
BY_KEY = {b.key: b for b in LIFE_STAGE_BINS}
FIRST_AGE = LIFE_STAGE_BINS[0].first_age
LAST_AGE = LIFE_STAGE_BINS[-1].last_age


def life_stage_for_age(age: int) -> LifeStageBin:
    """Return the bin holding ``age``; ages outside 6-50 are an error, not a guess."""
    for stage in LIFE_STAGE_BINS:
        if stage.contains(age):
            return stage
    raise ValueError(f"age {age} is outside the benchmark's life span ({FIRST_AGE}-{LAST_AGE})")


# The three bands of age-appropriate language: the memory prompt's (App. L.3) and the
# memory audit's criterion 2 (App. B.6, adult appraisal in a child-age memory). They
# follow the bins above, so an age has one stage everywhere: childhood is School age
# (6-11), adolescence is Adolescence (12-17), adulthood every later age. L.3 and B.6 draw
# the lines a year later (childhood 6-12, adolescence 13-18, adulthood 19 and over); see
# docs/paper-vs-platform.md, "Life-stage boundaries".
CHILDHOOD = BY_KEY["school_age"]
ADOLESCENCE = BY_KEY["adolescence"]


def age_band(age: int) -> str:
    """``"childhood"``, ``"adolescence"`` or ``"adulthood"`` for an event age."""
    if age <= CHILDHOOD.last_age:
        return "childhood"
    if age <= ADOLESCENCE.last_age:
        return "adolescence"
    return "adulthood"
