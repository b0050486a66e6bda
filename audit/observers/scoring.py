"""The observer report's figures (issue 37), from stored ratings. Pure numpy/scipy: no
Django (``stored_reports`` reads the records and calls :func:`observer_figures`).

* An item's score: the rating, reversed for a reverse-keyed item (``min + max - r``),
  rescaled to 0-1 like the design vector (``(r - min) / (max - min)``).
* A character's observed trait score: the mean of its item scores over every observer
  and every item of the trait.
* Its bootstrap CI: ``N_BOOT`` resamples; each draws the observers with replacement and,
  independently, the trait's items with replacement, and takes the mean of the drawn
  (observer, item) scores; the CI is the 2.5th and 97.5th percentiles (numpy's linear
  interpolation). The generator is ``numpy.random.default_rng([seed, profile version
  id, trait index])``, so every (character, trait) has its own reproducible stream.
* Convergent validity: per trait, Pearson's r across characters between the design
  score and the observed score (``scipy.stats.pearsonr``); none with fewer than
  ``MIN_CHARACTERS`` characters or when either side does not vary.
* The design × observed matrix: Pearson's r across characters of design trait i with
  observed trait j; the diagonal is the convergent r, the off-diagonal the
  discriminant correlations (low is good).
* An anchor trait (the character's one high or low extreme) is flagged as not recovered
  when the observed mean is not on the anchor's side of 0.5 or the CI reaches 0.5.
* Distinctness as read: every two characters' L1 and ordering distance
  (``agreement.distinctness``, its near-duplicate rule) on the observed vectors, beside
  the same pair's distances on the design vectors; the closest ``SHOWN_PAIRS`` pairs
  are kept, and every near-duplicate (they are the closest).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from agreement.distinctness import (
    NEAR_DUPLICATE_KENDALL_AT_MOST,
    NEAR_DUPLICATE_L1_BELOW,
    distinctness_table,
)

TRAITS = ("O", "C", "E", "A", "N")
N_BOOT = 2000
CI_LEVEL = 0.95
MIDPOINT = 0.5
MIN_CHARACTERS = 3
SHOWN_PAIRS = 20


@dataclass
class CharacterRatings:
    """One character's design and its observers' ratings (observer → item id → rating)."""

    key: str
    profile_version_id: int
    design: dict[str, float]
    anchor: str  # "N high", "C low", "neutral (all 0.50)" or "none"
    ratings: dict[str, dict[str, int]] = field(default_factory=dict)


def item_score(value: int, *, keying: str, low: int, high: int) -> float:
    if keying == "-":
        value = low + high - value
    return (value - low) / (high - low)


def score_matrix(ratings: dict[str, dict[str, int]], items, low: int, high: int) -> np.ndarray:
    """observers × ``items`` of item scores (observers in name order)."""
    return np.array(
        [
            [
                item_score(ratings[o][item["id"]], keying=item["keying"], low=low, high=high)
                for item in items
            ]
            for o in sorted(ratings)
        ],
        dtype=float,
    )


def bootstrap_ci(matrix: np.ndarray, rng: np.random.Generator, n_boot: int = N_BOOT):
    """(low, high) percentile CI of the mean, observers and items drawn independently."""
    n_obs, n_items = matrix.shape
    obs = rng.integers(0, n_obs, size=(n_boot, n_obs))
    its = rng.integers(0, n_items, size=(n_boot, n_items))
    means = matrix[obs[:, :, None], its[:, None, :]].mean(axis=(1, 2))
    tail = (1 - CI_LEVEL) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(low), float(high)


def anchor_flag(anchor: str, observed: float, ci: tuple[float, float]) -> str:
    """Why an anchor trait is not recovered ("" when it is)."""
    pole = anchor.split()[-1] if anchor else ""
    if pole not in ("high", "low"):
        return ""
    if pole == "high":
        if observed <= MIDPOINT:
            return "observed mean at or below 0.5"
        if ci[0] <= MIDPOINT:
            return "CI reaches 0.5"
    else:
        if observed >= MIDPOINT:
            return "observed mean at or above 0.5"
        if ci[1] >= MIDPOINT:
            return "CI reaches 0.5"
    return ""


def pearson(x, y) -> tuple[float | None, float | None]:
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < MIN_CHARACTERS or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None, None
    result = stats.pearsonr(x, y)
    return float(result.statistic), float(result.pvalue)


def observer_figures(
    characters: list[CharacterRatings], items, *, low: int, high: int, seed: int
) -> dict:
    """The report as JSON-able figures (see the module)."""
    rows = []
    for character in sorted(characters, key=lambda c: c.key):
        if not character.ratings:
            continue
        observed, cis, flags = {}, {}, []
        for index, trait in enumerate(TRAITS):
            trait_items = [item for item in items if item["trait"] == trait]
            matrix = score_matrix(character.ratings, trait_items, low, high)
            mean = float(matrix.mean())
            rng = np.random.default_rng([seed, character.profile_version_id, index])
            ci = bootstrap_ci(matrix, rng)
            observed[trait], cis[trait] = mean, list(ci)
        anchor_trait = character.anchor.split()[0] if character.anchor else ""
        if anchor_trait in TRAITS:
            reason = anchor_flag(character.anchor, observed[anchor_trait], cis[anchor_trait])
            if reason:
                flags.append({"trait": anchor_trait, "anchor": character.anchor, "why": reason})
        rows.append(
            {
                "key": character.key,
                "profile_version_id": character.profile_version_id,
                "anchor": character.anchor,
                "design": {t: float(character.design[t]) for t in TRAITS},
                "observed": observed,
                "ci": cis,
                "observers": sorted(character.ratings),
                "flags": flags,
            }
        )
    design = {t: [r["design"][t] for r in rows] for t in TRAITS}
    seen = {t: [r["observed"][t] for r in rows] for t in TRAITS}
    matrix = [[pearson(design[d], seen[o])[0] for o in TRAITS] for d in TRAITS]
    convergent = {}
    for t in TRAITS:
        r, p = pearson(design[t], seen[t])
        convergent[t] = {"r": r, "p": p, "n": len(rows)}
    off = [
        abs(matrix[i][j]) for i in range(5) for j in range(5) if i != j and matrix[i][j] is not None
    ]
    return {
        "characters": rows,
        "distinctness": observed_distinctness(rows),
        "convergent": convergent,
        "matrix": matrix,
        "discriminant_mean_abs": float(np.mean(off)) if off else None,
        "flagged": sum(len(r["flags"]) for r in rows),
        "n_boot": N_BOOT,
        "ci_level": CI_LEVEL,
        "seed": seed,
    }


def observed_distinctness(rows: list[dict]) -> dict:
    """The distinctness between the characters as the observers read them, closest pair
    first, each pair with its distances on the design vectors beside (see the module)."""
    observed = distinctness_table({row["key"]: row["observed"] for row in rows})
    design = {
        (pair.first, pair.second): pair
        for pair in distinctness_table({row["key"]: row["design"] for row in rows})
    }
    near = observed.near_duplicates()
    shown = max(SHOWN_PAIRS, len(near))
    summary = observed.summary()
    return {
        "pairs": [
            {
                "first": pair.first,
                "second": pair.second,
                "l1": pair.l1,
                "kendall": pair.kendall,
                "near_duplicate": pair.near_duplicate,
                "design_l1": design[pair.first, pair.second].l1,
                "design_kendall": design[pair.first, pair.second].kendall,
                "design_near_duplicate": design[pair.first, pair.second].near_duplicate,
            }
            for pair in observed[:shown]
        ],
        "pairs_total": len(observed),
        "near_duplicates": len(near),
        "mean_l1": summary.mean_l1,
        "mean_kendall": summary.mean_kendall,
        "l1_below": NEAR_DUPLICATE_L1_BELOW,
        "kendall_at_most": NEAR_DUPLICATE_KENDALL_AT_MOST,
    }
