"""Do the MCQ assembly filters (seed 000 App. D.3) bind? Planted bad distractors against the
authors' accepted ones, at the current thresholds and at candidate ones.

App. D.3 names two filters and no numbers: a candidate "semantically too close to the
reference option" is rejected (similarity), and so is one "obviously off-scenario"
(relevance). ``benchmarks/mcq_filters.py`` shows the defaults reject none of the authors'
2,019 distractors; this script asks the other half of the question: how many plausible bad
distractors would they reject? The bad ones are built by rules from the release (no model,
no randomness beyond a fixed seed), for each of the 673 items:

  near-copies of the key (would make the key ambiguous):
    echo     the key with a short clause added at its end;
    trimmed  the key without its last sentence (its last third of words if one sentence);
    thinned  the key with every third word left out;
    spliced  the key's first half (by sentences, or words) joined to the second half of
             one of the authors' distractors of the item;
  off-scenario responses (would give the key away by elimination):
    own-elsewhere    the same character's reference to a scenario of another life stage;
    other-elsewhere  another character's reference to a scenario of another life stage.

Each planted text is scored with the item's own distractors as the other candidates (the
measure fits its vocabulary per item), and the authors' distractors with the key alone,
as ``mcq_filters.py`` does. The script then prints, for each candidate threshold, how many
planted texts of each rule the filter rejects, how many of the authors' accepted
distractors it would reject, and how many of the 673 pairs would keep fewer than three
valid distractors when assembled from the release references (``needs_completion``).

    .venv/bin/python benchmarks/mcq_filter_thresholds.py [--seed 20261012]
"""

import argparse
import collections
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adjudication.mcq import assembly_rules as mcq_assembly  # noqa: E402
from benchmarks.mcq_filters import release_items, scenario_text  # noqa: E402
from core.protocol import PROTOCOL_SEED  # noqa: E402
from core.release import find_release_dir  # noqa: E402

SIMILARITY_CANDIDATES = (0.75, 0.70, 0.65, 0.60, 0.55, 0.50)
RELEVANCE_CANDIDATES = (0.01, 0.02, 0.03, 0.04, 0.05)
NEAR_COPY_RULES = ("echo", "trimmed", "thinned", "spliced")
OFF_SCENARIO_RULES = ("own-elsewhere", "other-elsewhere")
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")
ECHO_CLAUSE = " That is simply what I would do."


def _halves(text: str) -> tuple[str, str]:
    sentences = [s for s in _SENTENCE_END.split(text.strip()) if s]
    if len(sentences) >= 2:
        cut = len(sentences) // 2
        return " ".join(sentences[:cut]), " ".join(sentences[cut:])
    words = text.split()
    cut = len(words) // 2
    return " ".join(words[:cut]), " ".join(words[cut:])


def near_copies(key: str, distractor: str) -> dict[str, str]:
    """The key rewritten by the four rules (see the module's docstring)."""
    sentences = [s for s in _SENTENCE_END.split(key.strip()) if s]
    words = key.split()
    if len(sentences) >= 2:
        trimmed = " ".join(sentences[:-1])
    else:
        trimmed = " ".join(words[: max(1, (2 * len(words)) // 3)])
    return {
        "echo": key.rstrip() + ECHO_CLAUSE,
        "trimmed": trimmed,
        "thinned": " ".join(w for i, w in enumerate(words) if i % 3 != 2),
        "spliced": _halves(key)[0] + " " + _halves(distractor)[1],
    }


def off_scenario(question: dict, pairs: list[dict], rng: random.Random) -> dict[str, str]:
    """References to scenarios of other life stages: the same character's, and another's."""
    stage = question["stage"]
    elsewhere = [p for p in pairs if not p["scenario_id"].startswith(f"SCN_{stage.upper()}_")]
    own = [p for p in elsewhere if p["character_id"] == question["character_id"]]
    other = [p for p in elsewhere if p["character_id"] != question["character_id"]]
    return {
        "own-elsewhere": rng.choice(own)["final_decision"],
        "other-elsewhere": rng.choice(other)["final_decision"],
    }


def score(key: str, scenario: str, texts: list[str]) -> list[tuple[float, float]]:
    sims, rels = mcq_assembly.tfidf_cosine(key, scenario, texts)
    return [(float(s), float(r)) for s, r in zip(sims, rels, strict=True)]


def measure(release: Path, seed: int):
    """Scores: {rule: [(similarity, relevance)]} of the planted texts, the authors'
    accepted distractors, and [per pair: the scores of its assembly pool]."""
    scenarios, pairs, questions = release_items(release)
    rng = random.Random(seed)
    planted: dict[str, list[tuple[float, float]]] = collections.defaultdict(list)
    accepted: list[tuple[float, float]] = []
    for q in sorted(questions, key=lambda q: q["question_id"]):
        key = next(o["content"] for o in q["options"] if o["is_correct"])
        distractors = [o["content"] for o in q["options"] if not o["is_correct"]]
        text = scenario_text(scenarios[q["scenario_id"]])
        accepted += score(key, text, distractors)
        bad = near_copies(key, distractors[0]) | off_scenario(q, pairs, rng)
        scored = score(key, text, [*distractors, *bad.values()])[len(distractors) :]
        for rule, scores in zip(bad, scored, strict=True):
            planted[rule].append(scores)
    by_scenario = collections.defaultdict(list)
    for p in pairs:
        by_scenario[p["scenario_id"]].append(p)
    pools = []
    for p in pairs:
        others = [
            o for o in by_scenario[p["scenario_id"]] if o["character_id"] != p["character_id"]
        ]
        pools.append(
            score(
                p["final_decision"],
                scenario_text(scenarios[p["scenario_id"]]),
                [o["final_decision"] for o in others],
            )
        )
    return planted, accepted, pools


def share(n: int, total: int) -> str:
    return f"{n}/{total} ({100 * n / total:.1f}%)" if total else "0/0"


def short_pairs(pools, similarity_max: float, relevance_min: float) -> int:
    """Pairs that keep fewer than three valid distractors at these thresholds."""
    return sum(
        sum(s < similarity_max and r >= relevance_min for s, r in pool)
        < mcq_assembly.DISTRACTORS_PER_ITEM
        for pool in pools
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=PROTOCOL_SEED)
    args = parser.parse_args()
    planted, accepted, pools = measure(find_release_dir(), args.seed)
    relevance_now = mcq_assembly.DEFAULT_RELEVANCE_MIN
    similarity_now = mcq_assembly.DEFAULT_SIMILARITY_MAX
    print(
        f"{len(planted['echo'])} items; defaults: similarity ≥ {similarity_now}, "
        f"relevance < {relevance_now}; {len(accepted)} accepted distractors"
    )
    print("\nsimilarity filter (cosine to the key at or above the threshold is rejected)")
    print("  threshold  " + "  ".join(f"{r:>15}" for r in NEAR_COPY_RULES) + "  authors' accepted")
    for t in SIMILARITY_CANDIDATES:
        cells = [
            share(sum(s >= t for s, _ in planted[r]), len(planted[r])) for r in NEAR_COPY_RULES
        ]
        lost = sum(s >= t for s, _ in accepted)
        print(f"  {t:>9.2f}  " + "  ".join(f"{c:>15}" for c in cells) + f"  {lost}")
    print("\nrelevance filter (cosine to the scenario below the threshold is rejected)")
    print(
        "  threshold  " + "  ".join(f"{r:>17}" for r in OFF_SCENARIO_RULES) + "  authors' accepted"
    )
    for t in RELEVANCE_CANDIDATES:
        cells = [
            share(sum(r < t for _, r in planted[x]), len(planted[x])) for x in OFF_SCENARIO_RULES
        ]
        lost = sum(r < t for _, r in accepted)
        print(f"  {t:>9.2f}  " + "  ".join(f"{c:>17}" for c in cells) + f"  {lost}")
    print("\npairs left with fewer than three valid distractors (assembly over the release)")
    print("  similarity \\ relevance " + "".join(f"{r:>7.2f}" for r in RELEVANCE_CANDIDATES))
    for t in SIMILARITY_CANDIDATES:
        row = "".join(f"{short_pairs(pools, t, r):>7}" for r in RELEVANCE_CANDIDATES)
        print(f"  {t:>22.2f} {row}")


if __name__ == "__main__":
    main()
