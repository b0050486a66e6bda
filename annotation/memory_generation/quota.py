"""Memory quota allocation (seed 000 App. B.4): pure arithmetic, no Django.

The life span of the corpus, ages 6–50, is cut into 45 one-year segments. A character
that already holds ``k`` accepted memories is short of ``d = target − k`` (the paper's
target is 1,000). The deficit is shared out over the segments in proportion to a
construction-time weight vector ``w``: each segment first gets the whole part of its
exact share ``d·w_t/Σw``, and the segments with the largest remainders then get one
more (a 0/1 correction), until the quotas add up to ``d`` exactly. Ties in the
remainder go to the younger segment, so a plan is a function of its inputs.

A top-up plan (after the audit dropped memories) fills each segment back to the quota
its previous plan gave it: ``max(0, quota_t − accepted_t)``.
"""

from dataclasses import dataclass
from fractions import Fraction

from core.life_stages import FIRST_AGE, LAST_AGE, LIFE_STAGE_BINS

SEGMENT_AGES: tuple[int, ...] = tuple(range(FIRST_AGE, LAST_AGE + 1))
SEGMENT_COUNT = len(SEGMENT_AGES)  # 45
TARGET_PER_CHARACTER = 1_000

# The bins the paper weights up (App. B.4): Adolescence, Early Adult Transition and the
# Age-30 Transition. The paper gives no numbers for w; this default weighs a year in
# those bins 1.5 times an ordinary year (README: "Memory quota allocation").
WEIGHTED_BINS = ("adolescence", "early_adult_transition", "age_30_transition")
DEFAULT_WEIGHT = 1.0
DEFAULT_RAISED_WEIGHT = 1.5


class QuotaError(ValueError):
    """A weight vector or count that no plan can be made from; the message says why."""


def default_weights() -> list[float]:
    weights = []
    for age in SEGMENT_AGES:
        stage = next(b for b in LIFE_STAGE_BINS if b.contains(age))
        weights.append(DEFAULT_RAISED_WEIGHT if stage.key in WEIGHTED_BINS else DEFAULT_WEIGHT)
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


def top_up(previous_quotas, accepted_per_segment) -> list[int]:
    """Each segment back to its previous quota: ``max(0, quota − accepted)``."""
    if len(previous_quotas) != SEGMENT_COUNT or len(accepted_per_segment) != SEGMENT_COUNT:
        raise QuotaError(f"A top-up needs {SEGMENT_COUNT} quotas and {SEGMENT_COUNT} counts.")
    return [max(0, q - a) for q, a in zip(previous_quotas, accepted_per_segment, strict=True)]


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
