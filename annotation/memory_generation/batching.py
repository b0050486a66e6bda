"""Cutting a plan's quotas into generation batches (seed 000 App. B.5, L.3): pure, no Django.

App. B.5: each batch covers a 2–5-year age window and targets 45–50 memories. A batch
never crosses a life-stage bin (the system prompt of a batch names one bin and its
guidance). Inside each bin the slots, in age order, are cut into contiguous batches of
near-equal size; the number of batches is the one whose sizes come nearest the 45–50
target (on a tie, the smaller batches), raised until no batch spans more than
``WINDOW_MAX_YEARS`` (5) years. A batch's window runs from its youngest to its oldest
slot's age, widened to ``WINDOW_MIN_YEARS`` (2) years inside the bin when all its slots
share one age; neighbouring batches may share a boundary year.

A bin of n memories can be cut into batches of 45–50 exactly when some k has
45·k ≤ n ≤ 50·k; the count above then finds such a k. The default weights give every bin
such a share, so the default full plan (1,000 memories) makes 21 batches, each of 45–50.
A bin whose total cannot be cut so (other weights, or a smaller target: a bin of 114
makes three batches of 38) gets the near-equal batches nearest the target. A small
top-up plan (a few memories a year) gives one small batch per bin (more when its slots
span over five years): the window rule holds, the 45–50 target cannot, and a top-up
never waits for slots it does not need.

Every slot is one memory to generate, with
- its event age (the plan's per-age quotas are respected exactly: the batches of a
  plan hold ``quotas[t]`` slots of age ``6 + t``),
- its ABCD intensity tier (App. L.3: A 25 %, B 35 %, C 25 %, D 15 % by default):
  apportioned per batch by the largest remainder (ties to the earlier tier), then
  shuffled over the batch's slots by a generator seeded with the run's seed and the
  batch's place,
- its topic domain (App. B.5: workplace, interpersonal, health, creative, daily life),
  cycling through the five over the plan's slots in order.

The same quotas, seed and shares always give the same batches.
"""

import math
import random
from dataclasses import dataclass, field
from fractions import Fraction

from annotation.memory_generation.quota import SEGMENT_COUNT
from core.life_stages import FIRST_AGE, LIFE_STAGE_BINS, LifeStageBin

# App. B.5: "Each batch covers a 2–5-year age window and targets 45–50 memories."
WINDOW_MIN_YEARS = 2
WINDOW_MAX_YEARS = 5
BATCH_TARGET_LOW = 45
BATCH_TARGET_HIGH = 50

# App. L.3: the four ABCD intensity tiers and their approximate sampling proportions.
TIERS = ("A", "B", "C", "D")
DEFAULT_TIER_SHARES = {"A": 0.25, "B": 0.35, "C": 0.25, "D": 0.15}

# App. B.5 / §2.2: the five scenario domains that seed topic diversity.
DOMAINS = ("workplace", "interpersonal", "health", "creative", "daily life")


class BatchingError(ValueError):
    """Quotas or tier shares no batch can be made from; the message says why."""


@dataclass(frozen=True)
class Slot:
    age: int
    tier: str
    domain: str

    def as_dict(self) -> dict:
        return {"age": self.age, "tier": self.tier, "domain": self.domain}


@dataclass(frozen=True)
class BatchPlan:
    life_stage: str
    life_stage_label: str
    first_age: int
    last_age: int
    slots: tuple[Slot, ...] = field(default_factory=tuple)

    @property
    def years(self) -> int:
        return self.last_age - self.first_age + 1


def tier_share_problems(shares) -> list[str]:
    """Every reason ``shares`` is not a usable ABCD proportion ({} or None: the default)."""
    if shares in (None, {}):
        return []
    if not isinstance(shares, dict):
        return ['The tier shares must be a mapping such as {"A": 0.25, "B": 0.35, ...}.']
    problems = []
    unknown = sorted(set(shares) - set(TIERS))
    if unknown:
        problems.append(f"Unknown tier {', '.join(map(str, unknown))}; the tiers are A, B, C, D.")
    missing = [t for t in TIERS if t not in shares]
    if missing:
        problems.append(f"The tier shares need a value for {', '.join(missing)}.")
    values = []
    for tier in TIERS:
        value = shares.get(tier)
        if tier not in shares:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            problems.append(f"The share of tier {tier} is not a number: {value!r}.")
        elif not 0 <= value <= 1:
            problems.append(f"The share of tier {tier} must be between 0 and 1; got {value}.")
        else:
            values.append(value)
    if not problems and abs(sum(values) - 1) > 1e-6:
        problems.append(f"The tier shares must add up to 1; they add up to {sum(values):g}.")
    return problems


def resolved_tier_shares(shares) -> dict[str, float]:
    problems = tier_share_problems(shares)
    if problems:
        raise BatchingError(" ".join(problems))
    return dict(shares) if shares else dict(DEFAULT_TIER_SHARES)


def apportion_tiers(count: int, shares) -> dict[str, int]:
    """``count`` slots split over the tiers by the largest remainder (exactly ``count``)."""
    shares = resolved_tier_shares(shares)
    exact = {t: Fraction(str(shares[t])) * count for t in TIERS}
    counts = {t: int(exact[t]) for t in TIERS}
    order = sorted(TIERS, key=lambda t: (-(exact[t] - counts[t]), TIERS.index(t)))
    for tier in order[: count - sum(counts.values())]:
        counts[tier] += 1
    return counts


def _batch_count(n: int) -> int:
    """The number of near-equal batches whose sizes come nearest 45–50 (ties: more)."""

    def distance(b: int) -> int:
        return max(0, BATCH_TARGET_LOW - n // b) + max(0, math.ceil(n / b) - BATCH_TARGET_HIGH)

    return min(range(1, math.ceil(n / BATCH_TARGET_LOW) + 1), key=lambda b: (distance(b), -b))


def _chunks(ages: list[int], count: int) -> list[list[int]]:
    size, extra = divmod(len(ages), count)
    out, start = [], 0
    for i in range(count):
        end = start + size + (1 if i < extra else 0)
        out.append(ages[start:end])
        start = end
    return out


def bin_chunks(ages: list[int]) -> list[list[int]]:
    """One bin's slot ages (sorted) cut into the batches' age lists."""
    if not ages:
        return []
    count = _batch_count(len(ages))
    while True:
        chunks = _chunks(ages, count)
        if all(c[-1] - c[0] + 1 <= WINDOW_MAX_YEARS for c in chunks):
            return chunks
        count += 1


def window(stage: LifeStageBin, ages: list[int]) -> tuple[int, int]:
    """The batch's age window: its slots' ages, at least two years, inside the bin."""
    first, last = ages[0], ages[-1]
    if last - first + 1 < WINDOW_MIN_YEARS:
        if last < stage.last_age:
            last += 1
        else:
            first -= 1
    return first, last


def make_batches(quotas, *, seed: int = 0, tier_shares=None, salt: str = "") -> list[BatchPlan]:
    """The batches for one plan's 45 per-age quotas. ``salt`` (the character key, say)
    makes two plans of one run draw different tier orders from the same seed."""
    if len(quotas) != SEGMENT_COUNT or any(
        isinstance(q, bool) or not isinstance(q, int) or q < 0 for q in quotas
    ):
        raise BatchingError(f"A plan's quotas must be {SEGMENT_COUNT} whole numbers ≥ 0.")
    shares = resolved_tier_shares(tier_shares)
    batches = []
    domain_turn = 0
    for stage in LIFE_STAGE_BINS:
        bin_ages = [
            a
            for a in range(stage.first_age, stage.last_age + 1)
            for _ in range(quotas[a - FIRST_AGE])
        ]
        for part, ages in enumerate(bin_chunks(bin_ages)):
            first, last = window(stage, ages)
            counts = apportion_tiers(len(ages), shares)
            tiers = [t for t in TIERS for _ in range(counts[t])]
            random.Random(f"{seed}:{salt}:{stage.key}:{part}").shuffle(tiers)
            slots = []
            for age, tier in zip(ages, tiers, strict=True):
                slots.append(Slot(age=age, tier=tier, domain=DOMAINS[domain_turn % len(DOMAINS)]))
                domain_turn += 1
            batches.append(
                BatchPlan(
                    life_stage=stage.key,
                    life_stage_label=stage.label,
                    first_age=first,
                    last_age=last,
                    slots=tuple(slots),
                )
            )
    return batches
