"""The blinding report's arithmetic (issue 22, "Blinding integrity"). Pure: no Django.

A guess is one letter an annotator saw and the family they think wrote it. The success
rate is the share of guesses naming the right family, "no idea" excluded (and counted
apart). Under perfect blinding a guess among three families is right one time in three.

The interval is Wilson's score interval for a binomial proportion and the test an exact
binomial test against 1/3, one-sided (alternative: better than chance, i.e. the
blinding failed). Both treat guesses as independent; the three letters of one
assignment are not quite (a person who names three different families is right on all
or on one), so read a borderline p-value with that in mind.
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
class GuessTally:
    label: str
    right: int
    named: int  # guesses that named a family
    no_idea: int

    @property
    def rate(self) -> float | None:
        return self.right / self.named if self.named else None

    @property
    def ci(self) -> tuple[float, float] | None:
        return wilson_interval(self.right, self.named)

    @property
    def p_value(self) -> float | None:
        return binomial_p_greater(self.right, self.named)


def tally(label: str, guesses: Iterable[tuple[str, str]]) -> GuessTally:
    """``guesses``: (true family, guessed family or NO_IDEA)."""
    right = named = no_idea = 0
    for truth, guess in guesses:
        if guess == NO_IDEA:
            no_idea += 1
            continue
        named += 1
        right += guess == truth
    return GuessTally(label, right, named, no_idea)
