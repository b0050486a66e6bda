"""The largest feasible study of the human baseline (App. J), proposed when the asked
constraints cannot hold: the optimum over every choice of quotas, by one MILP whose
quotas and balance levels are variables. A pure core like :mod:`humanbaseline.subset`:
numpy and scipy only, no Django."""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

from .subset import (
    BALANCE_GROUPS,
    GROUP_LABELS,
    CandidateItem,
    SubsetConstraints,
    SubsetResult,
    counted_items,
    select_subset,
)

# The search for the largest feasible study stops after this long: it then proposes the
# largest study found, marked not proven, or none.
PROPOSAL_TIME_LIMIT_SECONDS = 120


@dataclass(frozen=True)
class Proposal:
    """The largest feasible study: its quotas (App. J's ranges scaled to it, no tolerance),
    its subset, and what stops a larger one (``binding``: sentences naming the
    constraint groups, empty when the study is as large as asked or takes every
    candidate). ``proven`` is False when the solver ran out of time: the study is the
    largest found, not proven the largest."""

    constraints: SubsetConstraints
    result: SubsetResult
    binding: tuple[str, ...] = ()
    proven: bool = True


@dataclass
class _SizeModel:
    """The largest-study MILP: one binary per candidate, then one binary per source
    (taking part or not), a level and one binary per row for each balance group."""

    n_items: int
    columns: int
    rows: list  # (coefficients {column: value}, low, high)
    integrality: list
    upper: list
    source_columns: dict  # source → [item columns]
    taking: dict  # source → its taking-part column


def _size_model(used, sources, characters, stages, *, cap_total, drop=(), at_least=0):
    """App. J's balance with the quotas free: every source may take part, and each group
    spreads its owner's items as :func:`even_spread` does for a given target: every row
    takes ``min(a, L - 1)`` to ``min(a, L)`` items for a level ``L`` of the group. With
    the level a variable this is linear: ``r ≤ L`` and ``r ≥ min(a, L - 1)``, the
    minimum written with one binary per row. A level above the lowest that holds the
    target admits only allocations the lowest admits too, so the feasible studies are
    exactly those some hand-chosen quotas make feasible in :func:`select_subset`. For
    the overall groups the capacity ``a`` counts the candidates of the sources taking
    part, as :func:`_build` does."""
    n = len(used)
    by_source = defaultdict(list)
    for col, item in enumerate(used):
        by_source[item.source].append(col)
    rows, integrality, upper = [], [1] * n, [1] * n
    column = n

    def new(kind_integer: int, high: float) -> int:
        nonlocal column
        integrality.append(kind_integer)
        upper.append(high)
        column += 1
        return column - 1

    taking = {s: new(1, 1) for s in sources if by_source.get(s)}
    for source, part in taking.items():
        members = by_source[source]
        # Σ x ≤ a·p and Σ x ≥ p: a source takes part exactly when it has a quota.
        rows.append(({**dict.fromkeys(members, 1.0), part: -float(len(members))}, -np.inf, 0))
        rows.append(({**dict.fromkeys(members, 1.0), part: -1.0}, 0, np.inf))
    rows.append((dict.fromkeys(range(n), 1.0), max(at_least, 0), cap_total))
    keys = {
        "character": [(ch,) for ch in characters],
        "stage": [(st,) for st in stages],
        "cell": [(ch, st) for ch in characters for st in stages],
    }
    for group in BALANCE_GROUPS:
        if group in drop:
            continue
        dimension = group.removeprefix("source_")
        owners = list(taking) if group.startswith("source_") else [None]
        for owner in owners:
            members = defaultdict(list)
            for col, item in enumerate(used):
                if owner is not None and item.source != owner:
                    continue
                key = {
                    "character": (item.character,),
                    "stage": (item.stage,),
                    "cell": (item.character, item.stage),
                }[dimension]
                members[key].append(col)
            filled = [k for k in keys[dimension] if members[k]]
            if not filled:
                continue
            big = max(len(members[k]) for k in filled) + 1
            level = new(1, big)
            for key in filled:
                cols = members[key]
                pick = new(1, 1)
                count = dict.fromkeys(cols, 1.0)
                rows.append(({**count, level: -1.0}, -np.inf, 0))  # r ≤ L
                # r ≥ L - 1 unless the row takes all it has (pick = 0) ...
                rows.append(({**count, level: -1.0, pick: -float(big)}, -1 - big, np.inf))
                if owner is None:
                    # ... r ≥ a(p) - big·pick, a(p) the candidates of sources taking part
                    capacity = Counter(used[c].source for c in cols)
                    coefficients = {**count, pick: float(big)}
                    for source, a in capacity.items():
                        coefficients[taking[source]] = -float(a)
                    rows.append((coefficients, 0, np.inf))
                else:
                    rows.append(({**count, pick: float(big)}, float(len(cols)), np.inf))
    return _SizeModel(n, column, rows, integrality, upper, dict(by_source), taking)


def _solve_size(model: _SizeModel, objective, time_limit):
    cols, row_ids, values, lows, highs = [], [], [], [], []
    for r, (coefficients, low, high) in enumerate(model.rows):
        for c, v in coefficients.items():
            row_ids.append(r)
            cols.append(c)
            values.append(v)
        lows.append(low)
        highs.append(high)
    matrix = sparse.csr_array(
        (np.array(values), (np.array(row_ids, dtype=np.int64), np.array(cols, dtype=np.int64))),
        shape=(len(model.rows), model.columns),
    )
    return milp(
        objective,
        constraints=LinearConstraint(matrix, np.array(lows), np.array(highs)),
        integrality=np.array(model.integrality),
        bounds=Bounds(np.zeros(model.columns), np.array(model.upper, dtype=float)),
        options={"time_limit": max(time_limit, 0.1)},
    )


def largest_feasible(
    candidates: Sequence[CandidateItem],
    requested: SubsetConstraints,
    *,
    seed: int,
    stage_order: Sequence[str] | None = None,
    time_limit: float = PROPOSAL_TIME_LIMIT_SECONDS,
) -> Proposal | None:
    """The largest study App. J's balance admits, at most the size asked for; None when
    no candidate has a source of the request.

    Size first, as in App. J (the 50 GPT items there are all taken). The quotas are
    free: the answer is the optimum an admin would reach by trying every choice of
    quotas by hand, every source with candidates included (an expert rewrite too: its
    default quota is 0 only because the paper's subset had none). One MILP
    (:func:`_size_model`) maximises the size and, among the studies of that size,
    minimises the largest quota and then maximises the smallest, so the split is as even
    as the candidates allow (App. J: the same number per source, all of a source that
    has no more). Every range is App. J's rule scaled to the study
    with no tolerance; ranges set by hand and tolerances in the request are not carried
    over. The subset itself is then the seeded :func:`select_subset` on those quotas, so
    "Use this study" reproduces it. When the study is smaller than asked, each balance
    group is dropped in turn to name the ones that keep it small (``binding``)."""
    deadline = time.monotonic() + time_limit
    sources = [s for s in requested.sources if s]
    used = sorted((c for c in candidates if c.source in set(sources)), key=lambda c: c.item_id)
    if not used:
        return None
    characters = tuple(sorted({c.character for c in used}))
    present = {c.stage for c in used}
    order = list(stage_order or []) + sorted(present - set(stage_order or []))
    stages = tuple(s for s in order if s in present)
    asked = requested.total
    model = _size_model(used, sources, characters, stages, cap_total=asked)
    # Lexicographic by weights: the size, then the largest quota (smaller), then the
    # smallest quota of a source taking part (larger); both quotas lie in [0, n].
    step = float(len(used) + 1)
    objective = np.zeros(model.columns + 2)
    objective[: model.n_items] = -step * step
    objective[-2], objective[-1] = step, -1.0
    largest, smallest = model.columns, model.columns + 1
    model.columns += 2
    model.integrality += [0, 0]
    model.upper += [float(len(used))] * 2
    for source, members in model.source_columns.items():
        model.rows.append(({**dict.fromkeys(members, -1.0), largest: 1.0}, 0, np.inf))
        # smallest ≤ q_s for a source taking part: ≤ q_s + n·(1 - p_s)
        part = model.taking[source]
        row = {**dict.fromkeys(members, -1.0), smallest: 1.0, part: float(len(used))}
        model.rows.append((row, -np.inf, float(len(used))))
    solved = _solve_size(model, objective, deadline - time.monotonic())
    if solved.x is None:
        return None
    chosen = np.round(solved.x[: model.n_items]).astype(int)
    counts = Counter(used[c].source for c in np.flatnonzero(chosen))
    quotas = tuple((s, counts.get(s, 0)) for s in sources)
    if not any(q for _, q in quotas):
        return None
    constraints = SubsetConstraints(quotas=quotas)
    result = select_subset(
        candidates,
        constraints,
        seed=seed,
        stage_order=stage_order,
        time_limit=max(deadline - time.monotonic(), 1.0),
        diagnose=False,
    )
    size, proven = constraints.total, solved.status == 0
    binding = []
    if size < asked and size < len(used) and proven:
        binding = _binding(used, sources, characters, stages, size, asked, deadline)
    elif size < asked and size == len(used):
        binding = [
            f"Every candidate item is in it: {counted_items(len(used))} "
            f"{'has' if len(used) == 1 else 'have'} an answer-key source of the request, "
            f"fewer than the {asked} asked for."
        ]
    return Proposal(constraints, result, tuple(binding), proven=proven)


def _binding(used, sources, characters, stages, size, asked, deadline) -> list[str]:
    """What keeps the largest study at ``size``: the balance groups whose removal alone
    would admit a larger one, each with the size it would allow."""
    found, checked = [], 0
    for group in BALANCE_GROUPS:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        checked += 1
        model = _size_model(
            used, sources, characters, stages, cap_total=asked, drop=(group,), at_least=size + 1
        )
        objective = np.zeros(model.columns)
        objective[: model.n_items] = -1.0
        solved = _solve_size(model, objective, remaining)
        if solved.x is not None:
            larger = int(round(-solved.fun)) if solved.status == 0 else size + 1
            found.append((group, larger))
    if not found and checked < len(BALANCE_GROUPS):
        return [f"Out of time before naming what keeps the study at {size} items."]
    if not found:
        return [
            f"No study of {size + 1} items keeps the paper's balance, and no single balance "
            "rule is to blame: several bind together."
        ]
    return [
        f"Constraint '{GROUP_LABELS[group]}' keeps the study at {size} items: without it "
        f"alone {'up to ' if larger > size + 1 else ''}{counted_items(larger)} would fit."
        for group, larger in found
    ]
