"""How do the MCQ assembly filters (seed 000 App. D.3) behave on the authors' release?

Two measurements, both on the public release, with the pure core
(``adjudication.mcq.assembly_rules``, no database):

  1. the authors' own 2,019 distractors (mcq.json): their TF-IDF cosine to the key and to
     the scenario text, and how many the default thresholds would reject (none at the
     former 0.75 / 0.01; benchmarks/mcq_filter_thresholds.py weighs that against planted
     bad distractors and set the defaults);
  2. assembly over the 673 release references: for each pair, the other characters'
     references in the scenario as candidates; how many each filter rejects and how many
     pairs keep at least three valid distractors.

    .venv/bin/python benchmarks/mcq_filters.py [--similarity-max 0.75] [--relevance-min 0.01]
"""

import argparse
import collections
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adjudication.mcq import assembly_rules as mcq_assembly  # noqa: E402
from core.release import find_release_dir  # noqa: E402


def scenario_text(s: dict) -> str:
    """The same fields as ``adjudication.mcq.services.item_assembly.scenario_text``."""
    trigger = s.get("trigger_event") or {}
    parts = (
        s.get("name"),
        s.get("description_for_agent"),
        s.get("context_text"),
        trigger.get("message_content"),
        trigger.get("action_required"),
    )
    return " ".join(p for p in parts if p)


def release_items(release: Path) -> tuple[dict, dict, list]:
    """The release's scenarios by id, its ground-truth pairs and its MCQ questions."""
    scenarios = {
        s["id"]: s
        for stage in json.loads((release / "scenarios.json").read_text())["scenarios"].values()
        for s in stage
    }
    pairs = json.loads((release / "ground_truth.json").read_text())["pairs"]
    questions = json.loads((release / "mcq.json").read_text())["questions"]
    return scenarios, pairs, questions


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--similarity-max", type=float, default=mcq_assembly.DEFAULT_SIMILARITY_MAX)
    parser.add_argument("--relevance-min", type=float, default=mcq_assembly.DEFAULT_RELEVANCE_MIN)
    args = parser.parse_args()
    params = mcq_assembly.AssemblyParams(
        similarity_max=args.similarity_max, relevance_min=args.relevance_min
    )
    scenarios, pairs, questions = release_items(find_release_dir())

    sims, rels = [], []
    for q in questions:
        key = next(o["content"] for o in q["options"] if o["is_correct"])
        distractors = [o["content"] for o in q["options"] if not o["is_correct"]]
        s, r = mcq_assembly.tfidf_cosine(
            key, scenario_text(scenarios[q["scenario_id"]]), distractors
        )
        sims += [float(x) for x in s]
        rels += [float(x) for x in r]
    q20 = statistics.quantiles
    print(f"release distractors: {len(sims)}")
    print(
        f"  cosine to the key: median {statistics.median(sims):.3f}, "
        f"95th percentile {q20(sims, n=20)[-1]:.3f}, max {max(sims):.3f}; "
        f"at or above {params.similarity_max}: {sum(x >= params.similarity_max for x in sims)}"
    )
    print(
        f"  cosine to the scenario: min {min(rels):.3f}, 5th percentile {q20(rels, n=20)[0]:.3f}, "
        f"median {statistics.median(rels):.3f}; below {params.relevance_min}: "
        f"{sum(x < params.relevance_min for x in rels)}"
    )

    by_scenario = collections.defaultdict(list)
    for p in pairs:
        by_scenario[p["scenario_id"]].append(p)
    outcomes, valid = collections.Counter(), collections.Counter()
    for p in pairs:
        others = [
            o for o in by_scenario[p["scenario_id"]] if o["character_id"] != p["character_id"]
        ]
        scored = mcq_assembly.score_candidates(
            key=p["final_decision"],
            scenario=scenario_text(scenarios[p["scenario_id"]]),
            candidates=[
                mcq_assembly.DistractorCandidate(i, o["character_id"], o["final_decision"])
                for i, o in enumerate(others)
            ],
            params=params,
        )
        outcomes.update(s.rejected or "valid" for s in scored)
        valid[min(3, sum(s.rejected is None for s in scored))] += 1
    print(f"assembly over {len(pairs)} references: {sum(outcomes.values())} candidates")
    print("  " + ", ".join(f"{k}: {v}" for k, v in sorted(outcomes.items())))
    print(
        f"  pairs with at least three valid distractors: {valid[3]}; "
        f"with fewer (needs completion): {len(pairs) - valid[3]}"
    )


if __name__ == "__main__":
    main()
