"""A 150-item × 4-annotator answer matrix consistent with every count App. J reports.

The paper does not release the human answers. App. J does report enough counts to pin the
vote pattern of every item down to which annotator erred and which distractor they chose:

* 50 items per source; 83.0%, 78.0% and 81.5% correct on Gemini-, Claude- and GPT-origin
  items, i.e. 166, 156 and 163 correct answers of 200 (485 of 600, 80.8% overall);
* annotators range from 76.0% to 86.0% (114 and 129 of 150; the other two share the rest,
  121 each);
* 82.0% of items (123) have at least three correct answers;
* plurality vote 91.3% (137 items): the 123 plus 14 items where "two annotators chose the key
  and the other two chose different distractors"; "ten items end in a tie";
* that leaves 3 items the key loses outright; with 485 correct answers, 68 items must be
  4-of-4 and 55 items 3-of-4 if those 3 items have no correct answer.

Which annotator errs on which item and which distractors are chosen are not reported; here
they are spread evenly, keys cycle through A-D, and a wrong answer prefers the next option.
The statistics that depend on those choices (Fleiss' κ, the CIs, the permutation p-value) are
therefore a consistency check of the method against the paper, not a reproduction of data.
"""

import numpy as np

SOURCES = ("gemini", "claude", "gpt")

#: per source: items with 4 correct, 3 correct, 2 correct + two different distractors,
#: 2 correct + the same distractor twice (a tie), and 0 correct (key outvoted)
PATTERNS = {
    "gemini": (25, 18, 4, 2, 1),
    "claude": (21, 18, 5, 4, 2),
    "gpt": (22, 19, 5, 4, 0),
}

#: who is wrong on the 3-of-4 items (annotator 0 is the 76.0% one, 3 the 86.0% one)
SINGLE_ERRORS = [0] * 21 + [1] * 14 + [2] * 14 + [3] * 6
PAIR_ERRORS = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]

#: what App. J reports for these items
REPORTED = {
    "mean_accuracy": 0.808,
    "mean_accuracy_ci": (0.748, 0.863),
    "annotator_range": (0.760, 0.860),
    "share_at_least_three": 0.820,
    "plurality": 0.913,
    "plurality_two_votes_won": 14,
    "ties": 10,
    "fleiss_kappa": 0.56,
    "fleiss_kappa_ci": (0.49, 0.63),
    "per_source": {"gemini": 0.830, "claude": 0.780, "gpt": 0.815},
    "source_range": 0.050,
    "source_p": 0.51,
    "reweighted": 0.820,
}


def build() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """answers (150, 4) option codes, key (150,), source label per item."""
    kinds: list[str] = []
    sources: list[str] = []
    for source, counts in PATTERNS.items():
        for kind, count in zip(("4", "3", "split", "tie", "zero"), counts, strict=True):
            kinds += [kind] * count
            sources += [source] * count
    key = np.arange(len(kinds)) % 4
    answers = np.repeat(key[:, None], 4, axis=1)
    singles = iter(SINGLE_ERRORS)
    pair_number = 0
    for item, kind in enumerate(kinds):
        d1, d2, d3 = ((key[item] + shift) % 4 for shift in (1, 2, 3))
        if kind == "3":
            answers[item, next(singles)] = d1
        elif kind in ("split", "tie"):
            first, second = PAIR_ERRORS[pair_number % len(PAIR_ERRORS)]
            pair_number += 1
            answers[item, first] = d1
            answers[item, second] = d2 if kind == "split" else d1
        elif kind == "zero":
            answers[item] = [d1, d1, d2, d3]
    return answers, key, np.array(sources)
