"""How the construct-validity figures (issue 37) grow from the paper's size to ten times it.

Each figure is computed on the worker, never in a request; this measures what one
recompute costs there, at the paper's size and at ten times it, side by side in one run:

* the observer report: the eleven Table 4 characters, three observer families rating the
  shipped 15-statement short form (2,000 bootstrap resamples per character and trait), then
  110 characters;
* the distinctness table on the design vectors: 11 characters (55 pairs), 110 (5,995
  pairs) and 300 (44,850 pairs);
* a judge-against-experts report: the screener's 673 items, then 6,730; the memory
  classifier's 11,000 memories, then 110,000.

Ratings are drawn from a seeded generator around each design vector, so the figures are
real figures of the same shape the platform stores. Nothing here asserts on time; it
prints the best of three runs of each and the ratio to the paper's size.

    .venv/bin/python benchmarks/validity.py
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agreement.distinctness import distinctness_table  # noqa: E402
from agreement.flag_agreement import flag_agreement  # noqa: E402
from annotation.character_drafting.design import table4_plan  # noqa: E402
from audit.observers.scoring import TRAITS, CharacterRatings, observer_figures  # noqa: E402

REPEATS = 3
FAMILIES = ("family-a", "family-b", "family-c")
SEED = 20250501


def best_time(function) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(REPEATS):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def inventory():
    data = json.loads((ROOT / "audit" / "observers" / "short_form.json").read_text())
    return data["items"], data["scale"]["min"], data["scale"]["max"]


def designs(count: int) -> list[tuple[str, dict[str, float], str]]:
    """The eleven Table 4 designs in turn: the anchor (or the neutral reference's whole
    vector) as designed, each free score drawn around 0.50 as a drafting model fills it."""
    plan = table4_plan()
    rng = np.random.default_rng(SEED)
    out = []
    for n in range(count):
        base = plan[n % len(plan)]
        vector = {
            t: base.required.get(t, float(np.clip(rng.normal(0.5, 0.1), 0.05, 0.95)))
            for t in TRAITS
        }
        out.append((f"C{n:04d}", vector, base.anchor))
    return out


def observer_ratings(count: int, items, low: int, high: int) -> list[CharacterRatings]:
    rng = np.random.default_rng(SEED + count)
    characters = []
    for number, (key, vector, anchor) in enumerate(designs(count)):
        ratings = {}
        for family in FAMILIES:
            answers = {}
            for item in items:
                level = vector[item["trait"]]
                if item["keying"] == "-":
                    level = 1 - level
                raw = low + level * (high - low) + rng.normal(0, 0.8)
                answers[item["id"]] = int(np.clip(round(raw), low, high))
            ratings[family] = answers
        characters.append(CharacterRatings(key, number + 1, vector, anchor, ratings))
    return characters


def flags(count: int, rate: float, agreement_rate: float):
    rng = np.random.default_rng(SEED + count)
    expert = (rng.random(count) < rate).astype(int)
    judge = np.where(rng.random(count) < agreement_rate, expert, 1 - expert)
    return judge, expert


def row(label: str, seconds: float, base: float | None) -> None:
    ratio = "" if base is None else f"{seconds / base:8.1f}×"
    print(f"  {label:<52} {seconds * 1000:10.1f} ms {ratio}")


def main() -> None:
    items, low, high = inventory()
    print("Observer report (3 families, 15 statements, 2,000 resamples per cell):")
    base = None
    for count in (11, 110):
        characters = observer_ratings(count, items, low, high)
        seconds, figures = best_time(
            lambda c=characters: observer_figures(c, items, low=low, high=high, seed=SEED)
        )
        row(f"{count} characters ({figures['flagged']} anchors flagged)", seconds, base)
        base = base or seconds

    print("Distinctness of the design vectors:")
    base = None
    for count in (11, 110, 300):
        vectors = {key: vector for key, vector, _ in designs(count)}
        seconds, table = best_time(lambda v=vectors: distinctness_table(v))
        near = len(table.near_duplicates())
        row(f"{count} characters ({len(table)} pairs, {near} near-duplicates)", seconds, base)
        base = base or seconds

    for name, sizes, rate in (
        ("Screener against item reviewers", (673, 6730), 0.2),
        ("Memory classifier against memory reviewers", (11_000, 110_000), 0.1),
    ):
        print(f"{name} (κ, precision, recall, 2,000 resamples):")
        base = None
        for count in sizes:
            judge, expert = flags(count, rate, 0.9)
            seconds, result = best_time(
                lambda j=judge, e=expert: flag_agreement(j, e, n_boot=2000, seed=SEED)
            )
            row(f"{count:,} records (κ = {result.kappa.estimate:.3f})", seconds, base)
            base = base or seconds


if __name__ == "__main__":
    main()
