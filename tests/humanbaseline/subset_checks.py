"""The independent check of the largest-study proposal (issue 32): the largest study an
admin finds by trying every choice of quotas by hand, each tried with the ILP of App. J
(ranges scaled, no tolerance). Exhaustive, so only for small benchmarks."""

import itertools
from collections import Counter

from humanbaseline.subset import EXPERT_REWRITE, SubsetConstraints, select_subset

SOURCES = ("gemini", "claude", "gpt", EXPERT_REWRITE)


def hand_chosen_optimum(items, sources=SOURCES, cap=None) -> int:
    available = Counter(i.source for i in items)
    choices = sorted(
        itertools.product(*(range(available[s] + 1) for s in sources)), key=lambda q: -sum(q)
    )
    for quotas in choices:
        if (cap is None or sum(quotas) <= cap) and sum(quotas):
            asked = SubsetConstraints(quotas=tuple(zip(sources, quotas, strict=True)))
            if select_subset(items, asked, seed=1, diagnose=False).feasible:
                return sum(quotas)
    return 0
