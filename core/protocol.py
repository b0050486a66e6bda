"""The protocol's numbers: each number of the HEART-Bench paper (seed 000) once, with the
section that states it. Workflows import them from here; the statistics numbers live in
``agreement.constants`` (the pure library below this one) and are named here too so a
workflow needs one import. Django-free, so the pure cores may import it.
"""

from agreement.constants import (
    CI_LEVEL,
    FULL_BENCHMARK_SOURCE_COUNTS,
    HUMAN_BASELINE_SEED,
    N_BOOTSTRAP,
    N_PERMUTATIONS,
)

__all__ = [
    "ACTIVATED_MEMORY_LIMIT",
    "ADULT_EVALUATION_MAX_AGE",
    "ANNOTATORS_PER_PAIR",
    "AUDIT_EXPERTS",
    "AUDIT_ITEMS_PER_STRATUM",
    "AUDIT_REPAIR_ATTEMPTS",
    "BASELINE_ITEMS_PER_FAMILY",
    "BASELINE_SUBSET_SIZE",
    "CHANCE_LEVEL",
    "CI_LEVEL",
    "DIAMONDS_REASSESSMENT_THRESHOLD",
    "DUPLICATE_COSINE_THRESHOLD",
    "FULL_BENCHMARK_SOURCE_COUNTS",
    "LOW_INTENSITY_THRESHOLD",
    "MEMORY_CONTEXT_WORDS",
    "MEMORY_GUIDED_CHARS",
    "MEMORY_MAX_CHARS",
    "MEMORY_SUMMARY_WORDS",
    "N_BOOTSTRAP",
    "N_PERMUTATIONS",
    "PROFILE_REVIEWERS",
    "PROTOCOL_SEED",
    "RETRIEVAL_K",
    "SCENARIOS_PER_LIFE_STAGE",
    "SCENARIO_REVIEWERS",
]

#: App. J: the one seed of the paper's resampling (20261012). The platform uses it wherever
#: it needs a default seed (assembly option order, outcome bootstraps, synthetic corpora),
#: so every run records it and can be repeated.
PROTOCOL_SEED = HUMAN_BASELINE_SEED

#: App. D.1 / L.5.2: stage-2 refinement keeps at most 50 activated memories per pair; the
#: same budget bounds the memories shown to the D.3.1 screening judge.
ACTIVATED_MEMORY_LIMIT = 50

#: §2.2 Stage 1 / App. B.3: three researchers review every character specification.
PROFILE_REVIEWERS = 3

#: §2.3 Stage 1: eight scenarios per life-stage bin.
SCENARIOS_PER_LIFE_STAGE = 8

#: §2.3 / App. C.2: two reviewers screen every scenario jointly and rate it independently.
SCENARIO_REVIEWERS = 2

#: App. C.2: DIAMONDS ratings more than one point apart are jointly re-assessed.
DIAMONDS_REASSESSMENT_THRESHOLD = 1

#: §2.4 Stage 2 / App. D.2: three primary annotators judge every pair.
ANNOTATORS_PER_PAIR = 3

#: App. D.4: three experts select independently; a fourth adjudicates disagreements.
AUDIT_EXPERTS = 3

#: App. D.4: "two items sampled from each of the 11 character × 8 life-stage-bin strata".
AUDIT_ITEMS_PER_STRATUM = 2

#: App. B.6 criterion 2: adult-level appraisal is a defect in a child-age memory (≤ 12).
#: The paper's figure; the audit's default is the School age bin's last age, 11, the one
#: age rule of bins, prompts and audit (``audit.memory_quality.criteria``,
#: docs/paper-vs-platform.md).
ADULT_EVALUATION_MAX_AGE = 12

#: App. L.3 / Table 8 (criterion 3): a memory's context has 15-30 words and its
#: content_summary 20-40 words.
MEMORY_CONTEXT_WORDS = (15, 30)
MEMORY_SUMMARY_WORDS = (20, 40)

#: App. B.6 criterion 4: two memories of one character are duplicates above this cosine.
DUPLICATE_COSINE_THRESHOLD = 0.85

#: App. B.6 criterion 5: a memory field longer than this many characters is defective.
MEMORY_MAX_CHARS = 10_000

#: App. B.6 / L.3: the guided length of a memory narrative (reported, not enforced).
MEMORY_GUIDED_CHARS = (2_000, 4_500)

#: App. B.6 criterion 6: psychoanalytic vocabulary is a defect in a memory whose emotion
#: intensity is below 0.4.
LOW_INTENSITY_THRESHOLD = 0.4

#: App. B.6: up to three automated repair attempts per defective memory, then a person.
AUDIT_REPAIR_ATTEMPTS = 3

#: App. J "Item subset": the human baseline's 150 items, 50 per answer-key source family.
BASELINE_SUBSET_SIZE = 150
BASELINE_ITEMS_PER_FAMILY = 50

#: §3 / App. L.1: Naive-RAG retrieves the top k = 30 memories for an item.
RETRIEVAL_K = 30

#: §3.1: every item has four options, so guessing is right a quarter of the time (the
#: chance level the statistics pages draw as a reference line).
CHANCE_LEVEL = 0.25
