"""Memory quota allocation (seed 000 App. B.4): pure arithmetic, no Django.

The life span of the corpus, ages 6–50, is cut into 45 one-year segments. A character
that already holds ``k`` accepted memories is short of ``d = target − k`` (the paper's
target is 1,000). The deficit is shared out over the segments in proportion to a
construction-time weight vector ``w``: each segment first gets the whole part of its
exact share ``d·w_t/Σw``, and the segments with the largest remainders then get one
more (a 0/1 correction), until the quotas add up to ``d`` exactly. Ties in the
remainder go to the younger segment, so a plan is a function of its inputs.

A top-up plan (after the audit dropped memories) is B.4's rule again: with k the
memories the audit kept, d = target − k is spread over the segments by the weights, the
same arithmetic as a first plan. It does not refill each segment to its old quota: the
segment that lost memories gets its weighted share of d, like every other.
"""

from dataclasses import dataclass
from fractions import Fraction

from core.life_stages import FIRST_AGE, LAST_AGE, LIFE_STAGE_BINS

SEGMENT_AGES: tuple[int, ...] = tuple(range(FIRST_AGE, LAST_AGE + 1))
SEGMENT_COUNT = len(SEGMENT_AGES)  # 45
TARGET_PER_CHARACTER = 1_000

# The default weights (docs/lab-admin/pipeline.md, "Memory quota allocation"). App. B.4
# raises Adolescence, the Early adult transition and the Age-30 transition without
# numbers; Table 7's text reports School age + Adolescence at 32.8 % and Early adult
# transition + Entering the adult world at 25.2 %. The default gives each bin a share of
# a full plan of 1,000: 328 and 250 in those pairs (32.8 % and 25.0 %; 252 cannot be cut
# into batches of 45–50 inside two bins, 250 can), the three raised bins the most
# memories a year (30–31, against at most 23 elsewhere), and every share a sum of
# batches of 45–50 (App. B.5). A year's weight is its bin's share spread evenly over the
# bin's years (the odd ones to the youngest years), so the weights add up to 1,000 and a
# full plan is the weights.
DEFAULT_BIN_SHARES = {
    "school_age": 140,  # 6 years, 23.3 a year; 3 batches
    "adolescence": 188,  # 6 years, 31.3 a year; 4 batches
    "early_adult_transition": 150,  # 5 years, 30 a year; 3 batches
    "entering_adult_world": 100,  # 6 years, 16.7 a year; 2 batches
    "age_30_transition": 150,  # 5 years, 30 a year; 3 batches
    "settling_down": 135,  # 7 years, 19.3 a year; 3 batches
    "midlife_transition": 90,  # 5 years, 18 a year; 2 batches
    "entering_midlife": 47,  # 5 years, 9.4 a year; 1 batch
}


class QuotaError(ValueError):
    """A weight vector or count that no plan can be made from; the message says why."""


def default_weights() -> list[float]:
    """Each bin's default share spread over its years, the odd ones to the youngest."""
    weights = []
    for stage in LIFE_STAGE_BINS:
        years = stage.last_age - stage.first_age + 1
        whole, odd = divmod(DEFAULT_BIN_SHARES[stage.key], years)
        weights.extend(float(whole + (1 if i < odd else 0)) for i in range(years))
    return weights


def weight_problems(weights) -> list[str]:
    """Every reason ``weights`` is not a usable vector, one message each ([] if fine)."""
    if not isinstance(weights, (list, tuple)):
        return ["The weights must be a list of 45 numbers, one per age from 6 to 50."]
    problems = []
    if len(weights) != SEGMENT_COUNT:
        problems.append(
            f"The weights must have {SEGMENT_COUNT} entries (ages {FIRST_AGE}–{LAST_AGE}); "
            f"got {len(weights)}."
        )
    for age, value in zip(SEGMENT_AGES, weights, strict=False):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            problems.append(f"The weight for age {age} is not a number: {value!r}.")
        elif not value >= 0 or value == float("inf"):
            problems.append(f"The weight for age {age} must be a finite number ≥ 0; got {value}.")
    if not problems and not any(weights):
        problems.append("At least one age needs a weight above 0.")
    return problems


def allocate(deficit: int, weights) -> list[int]:
    """The 45 segment quotas summing to ``deficit`` exactly (largest remainder, 0/1)."""
    problems = weight_problems(weights)
    if problems:
        raise QuotaError(" ".join(problems))
    if deficit < 0:
        raise QuotaError(f"The deficit must be ≥ 0; got {deficit}.")
    exact = [Fraction(str(w)) for w in weights]
    total = sum(exact)
    shares = [deficit * w / total for w in exact]
    quotas = [int(s) for s in shares]  # floor: shares are ≥ 0
    missing = deficit - sum(quotas)
    order = sorted(range(SEGMENT_COUNT), key=lambda t: (-(shares[t] - quotas[t]), t))
    for t in order[:missing]:
        quotas[t] += 1
    return quotas


def top_up(target: int, kept: int, weights) -> list[int]:
    """B.4 after an audit: ``d = target − kept`` spread by the weights (all zeros when
    nothing is missing)."""
    return allocate(max(0, target - kept), weights)


def counts_by_age(ages) -> list[int]:
    """Accepted memories per segment, from their event ages (ages outside are ignored)."""
    counts = [0] * SEGMENT_COUNT
    for age in ages:
        if FIRST_AGE <= age <= LAST_AGE:
            counts[age - FIRST_AGE] += 1
    return counts


@dataclass(frozen=True)
class BinTotal:
    key: str
    label: str
    first_age: int
    last_age: int
    quota: int
    existing: int


def by_bin(quotas, existing=None) -> list[BinTotal]:
    """The plan per life-stage bin, for the page shown before launch."""
    existing = existing or [0] * SEGMENT_COUNT
    rows = []
    for stage in LIFE_STAGE_BINS:
        span = range(stage.first_age - FIRST_AGE, stage.last_age - FIRST_AGE + 1)
        rows.append(
            BinTotal(
                key=stage.key,
                label=stage.label,
                first_age=stage.first_age,
                last_age=stage.last_age,
                quota=sum(quotas[t] for t in span),
                existing=sum(existing[t] for t in span),
            )
        )
    return rows
