"""The balanced 150-item subset of the human baseline, by integer programming (App. J).

A pure core: numpy and scipy only, no Django. The caller passes one
:class:`CandidateItem` per eligible item (its answer-key source family, character and
life-stage bin) and the :class:`SubsetConstraints`; nothing here can see a key, a model
prediction or a human response, so the selection cannot depend on them (App. J: "Selection
does not use reference answers, model predictions, or human responses").

The model has one binary variable per item. Every App. J balance rule is a row range; the
objective is a vector of seeded uniform weights, so among all feasible subsets the solver
returns one fixed by the seed (a tie-break, not a preference).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

from heartbench_site.base.protocol import BASELINE_ITEMS_PER_FAMILY, BASELINE_SUBSET_SIZE

DEFAULT_FAMILIES = ("gemini", "claude", "gpt")
SOLVER_TIME_LIMIT_SECONDS = 120


@dataclass(frozen=True)
class SubsetConstraints:
    """The App. J balance constraints; defaults are the paper's."""

    total: int = BASELINE_SUBSET_SIZE
    per_family: int = BASELINE_ITEMS_PER_FAMILY
    families: tuple[str, ...] = DEFAULT_FAMILIES
    character_min: int = 13
    character_max: int = 14
    stage_min: int = 18
    stage_max: int = 19
    cell_min: int = 1
    cell_max: int = 2
    family_character_min: int = 4
    family_character_max: int = 5
    family_stage_min: int = 6
    family_stage_max: int = 7
    family_cell_max: int = 1

    def as_dict(self) -> dict:
        data = asdict(self)
        data["families"] = list(self.families)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> SubsetConstraints:
        data = dict(data)
        if "families" in data:
            data["families"] = tuple(data["families"])
        return cls(**data)


@dataclass(frozen=True)
class CandidateItem:
    item_id: int
    family: str
    character: str
    stage: str


@dataclass(frozen=True)
class SubsetResult:
    feasible: bool
    selected: tuple[int, ...] = ()
    problems: tuple[str, ...] = ()
    # "precheck" (an obvious count fails), "solver" (HiGHS proved infeasibility),
    # "limit" (no answer within the time limit) or "" when feasible.
    failed_at: str = ""
    relaxations: tuple[str, ...] = field(default=())
    objective: float | None = None


GROUP_LABELS = {
    "total": "subset size",
    "family": "items per answer-key source family",
    "character": "items per character",
    "stage": "items per life-stage bin",
    "cell": "items per character × life-stage cell",
    "family_character": "items per character within each family",
    "family_stage": "items per life-stage bin within each family",
    "family_cell": "items per family × character × life-stage cell",
}


def _range_text(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}–{high}"


def precheck(
    candidates: Sequence[CandidateItem],
    constraints: SubsetConstraints,
    *,
    characters: Sequence[str],
    stages: Sequence[str],
) -> list[str]:
    """Obvious reasons the constraints cannot hold, each naming the constraint that fails."""
    c = constraints
    problems = []
    n_chars, n_stages, n_fam = len(characters), len(stages), len(c.families)
    if n_fam * c.per_family != c.total:
        problems.append(
            f"Subset size: {n_fam} families × {c.per_family} items = {n_fam * c.per_family}, "
            f"not the requested {c.total}."
        )
    for name, count, low, high, target, what in (
        ("character", n_chars, c.character_min, c.character_max, c.total, "characters"),
        ("stage", n_stages, c.stage_min, c.stage_max, c.total, "life-stage bins"),
        (
            "family_character",
            n_chars,
            c.family_character_min,
            c.family_character_max,
            c.per_family,
            "characters",
        ),
        ("family_stage", n_stages, c.family_stage_min, c.family_stage_max, c.per_family, "bins"),
    ):
        if not count * low <= target <= count * high:
            problems.append(
                f"Constraint '{GROUP_LABELS[name]}': {count} {what} × "
                f"{_range_text(low, high)} items cannot add up to {target}."
            )
    known = set(c.families)
    for item in candidates:
        if item.family not in known:
            problems.append(
                f"Item {item.item_id} has family {item.family!r}, not one of {list(c.families)}."
            )
            return problems
    family_counts = Counter(i.family for i in candidates)
    cell = Counter((i.character, i.stage) for i in candidates)
    fcell = Counter((i.family, i.character, i.stage) for i in candidates)
    for family in c.families:
        if family_counts[family] < c.per_family:
            problems.append(
                f"Constraint '{GROUP_LABELS['family']}': family {family} has only "
                f"{family_counts[family]} eligible items; the subset needs {c.per_family}."
            )
    for ch in characters:
        for st in stages:
            if cell[(ch, st)] < c.cell_min:
                problems.append(
                    f"Constraint '{GROUP_LABELS['cell']}': cell {ch} × {st} has "
                    f"{cell[(ch, st)]} items; every cell needs at least {c.cell_min}."
                )
    for ch in characters:
        room = sum(min(c.cell_max, cell[(ch, st)]) for st in stages)
        if room < c.character_min:
            problems.append(
                f"Constraint '{GROUP_LABELS['character']}': {ch} can contribute at most {room} "
                f"items under the cell limit; it needs at least {c.character_min}."
            )
    for st in stages:
        room = sum(min(c.cell_max, cell[(ch, st)]) for ch in characters)
        if room < c.stage_min:
            problems.append(
                f"Constraint '{GROUP_LABELS['stage']}': bin {st} can contribute at most {room} "
                f"items under the cell limit; it needs at least {c.stage_min}."
            )
    for family in c.families:
        family_room = 0
        for ch in characters:
            room = sum(min(c.family_cell_max, fcell[(family, ch, st)]) for st in stages)
            family_room += min(room, c.family_character_max)
            if room < c.family_character_min:
                problems.append(
                    f"Constraint '{GROUP_LABELS['family_character']}': family {family} has "
                    f"{ch} items in {room} distinct bins; it needs {c.family_character_min} "
                    f"with at most {c.family_cell_max} per cell."
                )
        for st in stages:
            room = sum(min(c.family_cell_max, fcell[(family, ch, st)]) for ch in characters)
            if room < c.family_stage_min:
                problems.append(
                    f"Constraint '{GROUP_LABELS['family_stage']}': family {family} has bin "
                    f"{st} items for {room} distinct characters; it needs {c.family_stage_min}."
                )
        if family_counts[family] >= c.per_family and family_room < c.per_family:
            problems.append(
                f"Constraint '{GROUP_LABELS['family']}': family {family} can contribute at most "
                f"{family_room} items under its per-character and per-cell limits; it needs "
                f"{c.per_family}."
            )
    return problems


def _rows(candidates, constraints, characters, stages):
    """{group: [(item indices, low, high), ...]} of the model."""
    c = constraints
    index = {"family": {}, "character": {}, "stage": {}, "cell": {}}
    fc, fs, fcell = {}, {}, {}
    for n, item in enumerate(candidates):
        index["family"].setdefault(item.family, []).append(n)
        index["character"].setdefault(item.character, []).append(n)
        index["stage"].setdefault(item.stage, []).append(n)
        index["cell"].setdefault((item.character, item.stage), []).append(n)
        fc.setdefault((item.family, item.character), []).append(n)
        fs.setdefault((item.family, item.stage), []).append(n)
        fcell.setdefault((item.family, item.character, item.stage), []).append(n)
    groups = {
        "total": [(list(range(len(candidates))), c.total, c.total)],
        "family": [(index["family"].get(f, []), c.per_family, c.per_family) for f in c.families],
        "character": [
            (index["character"].get(ch, []), c.character_min, c.character_max) for ch in characters
        ],
        "stage": [(index["stage"].get(st, []), c.stage_min, c.stage_max) for st in stages],
        "cell": [
            (index["cell"].get((ch, st), []), c.cell_min, c.cell_max)
            for ch in characters
            for st in stages
        ],
        "family_character": [
            (fc.get((f, ch), []), c.family_character_min, c.family_character_max)
            for f in c.families
            for ch in characters
        ],
        "family_stage": [
            (fs.get((f, st), []), c.family_stage_min, c.family_stage_max)
            for f in c.families
            for st in stages
        ],
        "family_cell": [(members, 0, c.family_cell_max) for members in fcell.values()],
    }
    return groups


def _solve(n_items, groups, objective, time_limit):
    rows, cols, lows, highs = [], [], [], []
    row = 0
    for entries in groups.values():
        for members, low, high in entries:
            rows.extend([row] * len(members))
            cols.extend(members)
            lows.append(low)
            highs.append(high)
            row += 1
    matrix = sparse.csr_array(
        (np.ones(len(rows)), (np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64))),
        shape=(row, n_items),
    )
    return milp(
        objective,
        constraints=LinearConstraint(matrix, np.array(lows), np.array(highs)),
        integrality=np.ones(n_items),
        bounds=Bounds(0, 1),
        options={"time_limit": time_limit},
    )


def select_subset(
    candidates: Sequence[CandidateItem],
    constraints: SubsetConstraints = SubsetConstraints(),
    *,
    seed: int,
    characters: Sequence[str] | None = None,
    stages: Sequence[str] | None = None,
    time_limit: float = SOLVER_TIME_LIMIT_SECONDS,
) -> SubsetResult:
    """Solve the App. J selection; the same candidates, constraints and seed give the same
    subset. ``characters``/``stages`` default to those the candidates have (pass the full
    lists so that a character or bin with no candidates is reported as empty)."""
    candidates = sorted(candidates, key=lambda i: i.item_id)
    characters = sorted({i.character for i in candidates}) if characters is None else characters
    stages = sorted({i.stage for i in candidates}) if stages is None else stages
    problems = precheck(candidates, constraints, characters=characters, stages=stages)
    if problems:
        return SubsetResult(feasible=False, problems=tuple(problems), failed_at="precheck")
    groups = _rows(candidates, constraints, characters, stages)
    objective = np.random.default_rng(seed).random(len(candidates))
    result = _solve(len(candidates), groups, objective, time_limit)
    if result.status == 0:
        chosen = tuple(
            candidates[n].item_id for n in np.flatnonzero(np.round(result.x).astype(int) == 1)
        )
        return SubsetResult(feasible=True, selected=chosen, objective=float(result.fun))
    if result.status == 2:
        relaxations = _relaxations(len(candidates), groups, time_limit)
        message = (
            "The solver (HiGHS) proved that no subset meets all the constraints together, "
            "although no single count rules it out."
        )
        if relaxations:
            names = ", ".join(f"'{GROUP_LABELS[g]}'" for g in relaxations)
            message += f" Dropping any one of these constraints would make it feasible: {names}."
        else:
            message += " No single constraint group is to blame; several conflict at once."
        return SubsetResult(
            feasible=False, problems=(message,), failed_at="solver", relaxations=relaxations
        )
    return SubsetResult(
        feasible=False,
        problems=(f"The solver stopped without an answer ({result.message}).",),
        failed_at="limit",
    )


def _relaxations(n_items, groups, time_limit) -> tuple[str, ...]:
    """The constraint groups whose removal alone makes the model feasible."""
    found = []
    for name in groups:
        if name == "total":
            continue
        others = {g: rows for g, rows in groups.items() if g != name}
        if _solve(n_items, others, np.zeros(n_items), time_limit).status == 0:
            found.append(name)
    return tuple(found)
