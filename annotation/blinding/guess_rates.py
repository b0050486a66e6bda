"""The blinding report's arithmetic (issue 22, "Blinding integrity"). Pure: no Django.

A guess is one letter an annotator saw and the family they think wrote it. The success
rate is the share of guesses naming the right family, "no idea" excluded (and counted
apart). Under perfect blinding a guess among three families is right one time in three.

The three guesses of one assignment are not independent (a person who names three
different families is right on all or on one, and a person who recognises one style
often recognises the others), so the report's test and interval are clustered by
assignment: the share of right guesses with a cluster-robust (sandwich) standard error
over assignments, the same as an intercept-only least-squares fit with standard errors
clustered by assignment (statsmodels' ``cov_type="cluster"``, small-sample factor
G/(G-1)); the 95% interval is the estimate ± 1.96 of those errors, the test a one-sided
z-test against 1/3 (alternative: better than chance, i.e. the blinding failed). Wilson's
interval and the exact binomial test, which treat every guess as independent, are kept
beside them for comparison; they are too narrow when one assignment's guesses go
together.
"""

import math
from collections.abc import Iterable
from dataclasses import dataclass

# Three families (seed 000 §2.4 Stage 1): a blind guess is right with probability 1/3.
CHANCE = 1 / 3
# The report's interval level (the project's 95%).
CI_Z = 1.959963984540054
NO_IDEA = "unknown"


def letter_counts(letters: Iterable[str], order: Iterable[str]) -> dict[str, int]:
    """How often each displayed letter was selected (the position-bias figures), in
    ``order``; letters outside it are ignored."""
    counts = dict.fromkeys(order, 0)
    for letter in letters:
        if letter in counts:
            counts[letter] += 1
    return counts


def wilson_interval(successes: int, n: int, z: float = CI_Z) -> tuple[float, float] | None:
    if n == 0:
        return None
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def binomial_p_greater(successes: int, n: int, p: float = CHANCE) -> float | None:
    """P(X ≥ successes) for X ~ Binomial(n, p): the exact one-sided p-value."""
    if n == 0:
        return None
    total = sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(successes, n + 1))
    return min(1.0, total)


@dataclass(frozen=True)
class ClusteredShare:
    """A share of right guesses with a standard error clustered by assignment."""

    rate: float
    se: float
    n_clusters: int

    @property
    def ci(self) -> tuple[float, float]:
        return max(0.0, self.rate - CI_Z * self.se), min(1.0, self.rate + CI_Z * self.se)

    @property
    def p_value(self) -> float | None:
        """One-sided p of the z-test of rate > 1/3; None when the error is 0 (every
        assignment has the same share: no spread to test against)."""
        if self.se == 0:
            return None
        z = (self.rate - CHANCE) / self.se
        return 0.5 * math.erfc(z / math.sqrt(2))


def clustered_share(clusters: Iterable[tuple[int, int]]) -> ClusteredShare | None:
    """``clusters``: per assignment, (right guesses, guesses that named a family).
    None with fewer than two assignments that named a family (no spread between them)."""
    kept = [(r, n) for r, n in clusters if n]
    g = len(kept)
    if g < 2:
        return None
    total = sum(n for _, n in kept)
    rate = sum(r for r, _ in kept) / total
    meat = sum((r - rate * n) ** 2 for r, n in kept)
    variance = g / (g - 1) * meat / total**2
    return ClusteredShare(rate=rate, se=math.sqrt(variance), n_clusters=g)


@dataclass(frozen=True)
class GuessTally:
    label: str
    right: int
    named: int  # guesses that named a family
    no_idea: int
    # Per assignment: (right, named), for the clustered interval and test.
    clusters: tuple[tuple[int, int], ...] = ()

    @property
    def clustered(self) -> ClusteredShare | None:
        return clustered_share(self.clusters)

    @property
    def clustered_ci(self) -> tuple[float, float] | None:
        c = self.clustered
        return c.ci if c else None

    @property
    def clustered_p_value(self) -> float | None:
        c = self.clustered
        return c.p_value if c else None

    @property
    def rate(self) -> float | None:
        return self.right / self.named if self.named else None

    @property
    def ci(self) -> tuple[float, float] | None:
        return wilson_interval(self.right, self.named)

    @property
    def p_value(self) -> float | None:
        return binomial_p_greater(self.right, self.named)


def tally(label: str, guesses: Iterable[tuple[str, str, object]]) -> GuessTally:
    """``guesses``: (true family, guessed family or NO_IDEA, the assignment it belongs to)."""
    right = named = no_idea = 0
    per_assignment: dict[object, list[int]] = {}
    for truth, guess, assignment in guesses:
        counts = per_assignment.setdefault(assignment, [0, 0])
        if guess == NO_IDEA:
            no_idea += 1
            continue
        named += 1
        right += guess == truth
        counts[0] += guess == truth
        counts[1] += 1
    clusters = tuple((r, n) for r, n in per_assignment.values())
    return GuessTally(label, right, named, no_idea, clusters)
