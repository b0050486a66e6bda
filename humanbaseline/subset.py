"""The balanced subset of the human baseline, by integer programming (App. J).

A pure core: numpy and scipy only, no Django. The caller passes one
:class:`CandidateItem` per eligible item (its answer-key source, character and life-stage
bin) and the :class:`SubsetConstraints`; nothing here can see a key, a model prediction
or a human response, so the selection cannot depend on them (App. J: "Selection does not
use reference answers, model predictions, or human responses").

A *source* is a model family whose candidate the reference came from, or
:data:`EXPERT_REWRITE` for a reference the arbitrator rewrote. Each source has a quota;
the subset size is their sum. Every balance rule of App. J is a row range, and a range
not set by hand is App. J's rule scaled to the study: the items spread as evenly as the
candidates allow (:func:`even_spread`). With the paper's 11 characters, 8 bins and 50
items per family this gives exactly its numbers (13–14 per character, 18–19 per bin, 1–2
per cell; within a family 4–5, 6–7 and at most 1). The study's characters and bins are
those with a candidate of a source that has a quota.

The model has one binary variable per candidate; the objective is a vector of seeded
uniform weights, so among all feasible subsets the solver returns one fixed by the seed
(a tie-break, not a preference). When the constraints cannot hold,
:func:`humanbaseline.largest_study.largest_feasible` finds the largest study that can:
the optimum over every choice of quotas, not a scaled copy of the quotas asked for.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

from core.protocol import BASELINE_ITEMS_PER_FAMILY, BASELINE_SUBSET_SIZE

EXPERT_REWRITE = "expert_rewrite"
PAPER_FAMILIES = ("gemini", "claude", "gpt")
# App. J: 50 items from each of the three families, 150 in all; the paper's subset has no
# expert-rewrite source, so its quota is 0 unless an admin sets one.
DEFAULT_QUOTAS: tuple[tuple[str, int], ...] = tuple(
    (family, BASELINE_ITEMS_PER_FAMILY) for family in PAPER_FAMILIES
) + ((EXPERT_REWRITE, 0),)
assert sum(q for _, q in DEFAULT_QUOTAS) == BASELINE_SUBSET_SIZE
SOLVER_TIME_LIMIT_SECONDS = 120
# A precheck names at most this many failing rows of one group.
MAX_PROBLEMS_PER_GROUP = 12

# The balance groups whose range is scaled or set by hand, in the form's order.
BALANCE_GROUPS = {
    "character": "items per character",
    "stage": "items per life-stage bin",
    "cell": "items per character × life-stage cell",
    "source_character": "items per character within each source",
    "source_stage": "items per life-stage bin within each source",
    "source_cell": "items per source × character × life-stage cell",
}
GROUP_LABELS = {"total": "subset size", "source": "items per answer-key source", **BALANCE_GROUPS}
# Which layout dimension a balance group spreads over.
_ROW_NOUN = {"character": "character", "stage": "bin", "cell": "cell"}


def even_spread(target: int, capacities: Sequence[int]) -> list[tuple[int, int]]:
    """App. J's balance rule scaled to the study: ``target`` items over rows that hold at
    most ``capacities[j]`` candidates each, as evenly as the rows allow.

    The level ``L`` is the lowest at which the rows can hold the target; every row then
    takes ``L - 1`` or ``L`` items, or all it has when that is fewer. With 150 items over
    11 characters that is 13–14, 18–19 over 8 bins, 1–2 over 88 cells, as in the paper."""
    if target <= 0 or not capacities:
        return [(0, 0)] * len(capacities)
    level, most = 0, max(capacities)
    while level < most and sum(min(a, level) for a in capacities) < target:
        level += 1
    return [(min(a, max(level - 1, 0)), min(a, level)) for a in capacities]


def range_text(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}–{high}"


def ranges_text(ranges: Sequence[tuple[int, int]], noun: str) -> str:
    """ "13–14" when every row has the same range, else each range with its row count."""
    counts = Counter(ranges)
    if len(counts) == 1:
        return range_text(*next(iter(counts)))
    return ", ".join(
        f"{range_text(low, high)} ({n} {noun}{'' if n == 1 else 's'})"
        for (low, high), n in sorted(counts.items(), key=lambda kv: (-kv[0][1], -kv[0][0]))
    )


class ConstraintError(ValueError):
    """Parameters that do not describe a selection (a negative quota, a range upside down)."""


@dataclass(frozen=True)
class SubsetConstraints:
    """A quota per source and the balance ranges set by hand; defaults are the paper's.

    ``overrides`` holds ``(group, low, high)`` for the :data:`BALANCE_GROUPS` set by hand
    (a source group's range then applies to every source with a quota); every other
    group is scaled to the study by :func:`even_spread`. ``slack`` holds ``(group, k)``:
    each range of the group is widened by ``k`` items on both sides (a tolerance).
    """

    quotas: tuple[tuple[str, int], ...] = DEFAULT_QUOTAS
    overrides: tuple[tuple[str, int, int], ...] = ()
    slack: tuple[tuple[str, int], ...] = ()

    def __post_init__(self):
        sources = [s for s, _ in self.quotas]
        if len(set(sources)) != len(sources):
            raise ConstraintError(f"A source is given two quotas: {sources}.")
        for source, quota in self.quotas:
            if quota < 0:
                raise ConstraintError(f"The quota of {source} is {quota}; it cannot be negative.")
        for group, low, high in self.overrides:
            if group not in BALANCE_GROUPS:
                raise ConstraintError(f"Unknown balance group {group!r}.")
            if not 0 <= low <= high:
                raise ConstraintError(
                    f"Constraint '{BALANCE_GROUPS[group]}': the range {low}–{high} is not "
                    "a range (0 ≤ minimum ≤ maximum)."
                )
        for group, widen in self.slack:
            if group not in BALANCE_GROUPS:
                raise ConstraintError(f"Unknown balance group {group!r}.")
            if widen < 0:
                raise ConstraintError(
                    f"Constraint '{BALANCE_GROUPS[group]}': the tolerance {widen} cannot be "
                    "negative."
                )

    @property
    def total(self) -> int:
        return sum(q for _, q in self.quotas)

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(s for s, _ in self.quotas)

    @property
    def taking_part(self) -> tuple[str, ...]:
        """The sources with a positive quota; other sources' items are not candidates."""
        return tuple(s for s, q in self.quotas if q > 0)

    def quota(self, source: str) -> int:
        return dict(self.quotas).get(source, 0)

    def widen(self, group: str) -> int:
        return dict(self.slack).get(group, 0)

    def override(self, group: str) -> tuple[int, int] | None:
        for name, low, high in self.overrides:
            if name == group:
                return (low, high)
        return None

    def as_dict(self) -> dict:
        return {
            "quotas": dict(self.quotas),
            "overrides": {group: [low, high] for group, low, high in self.overrides},
            "slack": {group: widen for group, widen in self.slack if widen},
        }

    @classmethod
    def from_dict(cls, data: dict) -> SubsetConstraints:
        return cls(
            quotas=tuple((s, int(q)) for s, q in data.get("quotas", {}).items()),
            overrides=tuple(
                (group, int(low), int(high))
                for group, (low, high) in data.get("overrides", {}).items()
            ),
            slack=tuple((group, int(k)) for group, k in data.get("slack", {}).items()),
        )


@dataclass(frozen=True)
class CandidateItem:
    item_id: int
    source: str
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
    # The study's layout, for the record: its characters and bins, each group's ranges as
    # text ({group: {source or "all": "13–14"}}), and what the subset cannot cover.
    characters: tuple[str, ...] = ()
    stages: tuple[str, ...] = ()
    ranges: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Row:
    group: str
    source: str | None
    key: tuple  # (character,), (stage,), (character, stage) or ()
    members: list
    low: int
    high: int


@dataclass
class _Model:
    candidates: list  # the candidates of the sources taking part, by item id
    characters: tuple
    stages: tuple
    rows: list  # [_Row]
    notes: list

    def ranges_text(self) -> dict:
        grouped = defaultdict(lambda: defaultdict(list))
        for row in self.rows:
            if row.group in BALANCE_GROUPS:
                grouped[row.group][row.source or "all"].append((row.low, row.high))
        return {
            group: {
                source: ranges_text(ranges, _ROW_NOUN[group.removeprefix("source_")])
                for source, ranges in grouped[group].items()
            }
            for group in BALANCE_GROUPS
            if group in grouped
        }


def _build(candidates, constraints: SubsetConstraints, stage_order) -> _Model:
    taking_part = set(constraints.taking_part)
    used = sorted((c for c in candidates if c.source in taking_part), key=lambda c: c.item_id)
    characters = tuple(sorted({c.character for c in used}))
    present = {c.stage for c in used}
    order = list(stage_order or []) + sorted(present - set(stage_order or []))
    stages = tuple(s for s in order if s in present)
    index = defaultdict(list)
    for n, item in enumerate(used):
        for key in (
            ("character", None, (item.character,)),
            ("stage", None, (item.stage,)),
            ("cell", None, (item.character, item.stage)),
            ("source", item.source, ()),
            ("source_character", item.source, (item.character,)),
            ("source_stage", item.source, (item.stage,)),
            ("source_cell", item.source, (item.character, item.stage)),
        ):
            index[key].append(n)
    keys = {
        "character": [(ch,) for ch in characters],
        "stage": [(st,) for st in stages],
        "cell": [(ch, st) for ch in characters for st in stages],
    }
    total = constraints.total
    rows = [_Row("total", None, (), list(range(len(used))), total, total)]
    for source in constraints.taking_part:
        quota = constraints.quota(source)
        rows.append(_Row("source", source, (), index[("source", source, ())], quota, quota))
    for group in BALANCE_GROUPS:
        dimension = group.removeprefix("source_")
        owners = constraints.taking_part if group.startswith("source_") else (None,)
        for source in owners:
            target = total if source is None else constraints.quota(source)
            members = [index[(group, source, key)] for key in keys[dimension]]
            fixed = constraints.override(group)
            spread = (
                [fixed] * len(members) if fixed else even_spread(target, [len(m) for m in members])
            )
            widen = constraints.widen(group)
            rows.extend(
                _Row(group, source, key, m, max(low - widen, 0), high + widen)
                for key, m, (low, high) in zip(keys[dimension], members, spread, strict=True)
            )
    notes = []
    empty = [(ch, st) for ch, st in keys["cell"] if not index[("cell", None, (ch, st))]]
    if empty:
        # A cell empty here may hold items of a source without a quota: say so, or the
        # note blames the benchmark for what the quotas left out.
        left_out = defaultdict(Counter)
        for item in candidates:
            if item.source not in taking_part:
                left_out[(item.character, item.stage)][item.source] += 1
        shown = ", ".join(
            f"{ch} × {st}"
            + (
                " (only "
                + ", ".join(
                    f"{counted_items(n)} of {source}" for source, n in left_out[(ch, st)].items()
                )
                + ", whose quota is 0)"
                if left_out[(ch, st)]
                else ""
            )
            for ch, st in empty[:MAX_PROBLEMS_PER_GROUP]
        ) + (" …" if len(empty) > MAX_PROBLEMS_PER_GROUP else "")
        notes.append(
            f"{len(empty)} character × life-stage "
            f"{'cell has' if len(empty) == 1 else 'cells have'} no candidate item of the "
            f"sources with a quota ({', '.join(constraints.taking_part)}), so the subset "
            f"cannot cover {'it' if len(empty) == 1 else 'them'}: {shown}."
        )
    return _Model(used, characters, stages, rows, notes)


def _where(row: _Row) -> str:
    place = " × ".join(row.key)
    if row.group == "source":
        return f"source {row.source}"
    noun = _ROW_NOUN[row.group.removeprefix("source_")]
    return (f"source {row.source}, " if row.source else "") + f"{noun} {place}"


def _early_problems(candidates, constraints: SubsetConstraints) -> list[str]:
    known = set(constraints.sources)
    for item in candidates:
        if item.source not in known:
            return [
                f"Item {item.item_id} has source {item.source!r}, not one of "
                f"{list(constraints.sources)}."
            ]
    if constraints.total == 0:
        return ["Every quota is 0: give at least one source a quota."]
    return []


def precheck(
    candidates: Sequence[CandidateItem],
    constraints: SubsetConstraints,
    *,
    stage_order: Sequence[str] | None = None,
) -> list[str]:
    """Obvious reasons the constraints cannot hold, each naming the constraint that fails."""
    return _early_problems(candidates, constraints) or _problems(
        _build(candidates, constraints, stage_order), constraints
    )


def _problems(model: _Model, c: SubsetConstraints) -> list[str]:
    problems = []
    by_group = defaultdict(list)
    for row in model.rows:
        by_group[row.group].append(row)
    for row in by_group["source"]:
        if len(row.members) < row.low:
            problems.append(
                f"Constraint '{GROUP_LABELS['source']}': source {row.source} has only "
                f"{len(row.members)} eligible items; its quota is {row.low}."
            )
    for group in BALANCE_GROUPS:
        # The rows of a group must be able to add up to its target.
        by_owner = defaultdict(list)
        for row in by_group[group]:
            by_owner[row.source].append(row)
        for source, rows in by_owner.items():
            target = c.total if source is None else c.quota(source)
            low, high = sum(r.low for r in rows), sum(r.high for r in rows)
            if not low <= target <= high:
                noun = _ROW_NOUN[group.removeprefix("source_")]
                owner = "" if source is None else f" (source {source})"
                problems.append(
                    f"Constraint '{GROUP_LABELS[group]}'{owner}: its {len(rows)} {noun} rows "
                    f"({ranges_text([(r.low, r.high) for r in rows], noun)}) hold "
                    f"{range_text(low, high)} items, not the {target} needed."
                )
        short = [row for row in by_group[group] if len(row.members) < row.low]
        for row in short[:MAX_PROBLEMS_PER_GROUP]:
            problems.append(
                f"Constraint '{GROUP_LABELS[group]}': {_where(row)} has {len(row.members)} "
                f"items; it needs at least {row.low}."
            )
        if len(short) > MAX_PROBLEMS_PER_GROUP:
            problems.append(
                f"Constraint '{GROUP_LABELS[group]}': {len(short) - MAX_PROBLEMS_PER_GROUP} "
                "more rows are short in the same way."
            )
    if not problems:
        problems.extend(_room_problems(by_group))
    return problems


def _room_problems(by_group) -> list[str]:
    """Rows that cannot reach their minimum once the finer rows' maxima hold."""
    problems = []
    cap = {}  # (group, source, key) → the most items the row can take
    for row in by_group["cell"] + by_group["source_cell"]:
        cap[(row.group, row.source, row.key)] = min(row.high, len(row.members))
    for group, fine, pick in (
        ("character", "cell", lambda key: key[0]),
        ("stage", "cell", lambda key: key[1]),
        ("source_character", "source_cell", lambda key: key[0]),
        ("source_stage", "source_cell", lambda key: key[1]),
    ):
        room = Counter()
        for row in by_group[fine]:
            room[(row.source, pick(row.key))] += cap[(row.group, row.source, row.key)]
        for row in by_group[group]:
            available = room[(row.source, row.key[0])]
            cap[(group, row.source, row.key)] = min(row.high, available)
            if available < row.low:
                problems.append(
                    f"Constraint '{GROUP_LABELS[group]}': {_where(row)} can contribute at most "
                    f"{available} items under the limit '{GROUP_LABELS[fine]}'; it needs at "
                    f"least {row.low}."
                )
    for row in by_group["source"]:
        for group in ("source_character", "source_stage"):
            room = sum(
                cap[(group, r.source, r.key)] for r in by_group[group] if r.source == row.source
            )
            if room < row.low:
                problems.append(
                    f"Constraint '{GROUP_LABELS['source']}': source {row.source} can contribute "
                    f"at most {room} items under the limit '{GROUP_LABELS[group]}'; its quota "
                    f"is {row.low}."
                )
    return problems


def _solve(n_items, rows, objective, time_limit):
    cols, row_ids, lows, highs = [], [], [], []
    for n, row in enumerate(rows):
        row_ids.extend([n] * len(row.members))
        cols.extend(row.members)
        lows.append(row.low)
        highs.append(row.high)
    matrix = sparse.csr_array(
        (
            np.ones(len(cols)),
            (np.array(row_ids, dtype=np.int64), np.array(cols, dtype=np.int64)),
        ),
        shape=(len(rows), n_items),
    )
    return milp(
        objective,
        constraints=LinearConstraint(matrix, np.array(lows), np.array(highs)),
        integrality=np.ones(n_items),
        bounds=Bounds(0, 1),
        options={"time_limit": max(time_limit, 0.1)},
    )


def select_subset(
    candidates: Sequence[CandidateItem],
    constraints: SubsetConstraints = SubsetConstraints(),
    *,
    seed: int,
    stage_order: Sequence[str] | None = None,
    time_limit: float = SOLVER_TIME_LIMIT_SECONDS,
    diagnose: bool = True,
) -> SubsetResult:
    """Solve the App. J selection; the same candidates, constraints and seed give the same
    subset. ``stage_order`` orders the bins in the record (the life course). With
    ``diagnose`` an infeasible model is solved again without each group in turn, to name
    the groups whose removal alone would make it feasible."""
    early = _early_problems(candidates, constraints)
    if early:
        return SubsetResult(feasible=False, problems=tuple(early), failed_at="precheck")
    model = _build(candidates, constraints, stage_order)
    layout = {
        "characters": model.characters,
        "stages": model.stages,
        "ranges": model.ranges_text(),
        "notes": tuple(model.notes),
    }
    problems = _problems(model, constraints)
    if problems:
        return SubsetResult(
            feasible=False, problems=tuple(problems), failed_at="precheck", **layout
        )
    n_items = len(model.candidates)
    objective = np.random.default_rng(seed).random(n_items)
    result = _solve(n_items, model.rows, objective, time_limit)
    if result.status == 0:
        chosen = tuple(
            model.candidates[n].item_id for n in np.flatnonzero(np.round(result.x).astype(int))
        )
        return SubsetResult(feasible=True, selected=chosen, objective=float(result.fun), **layout)
    if result.status == 2:
        relaxations = _relaxations(n_items, model.rows, time_limit) if diagnose else ()
        message = (
            "The solver (HiGHS) proved that no subset meets all the constraints together, "
            "although no single count rules it out."
        )
        if relaxations:
            names = ", ".join(f"'{GROUP_LABELS[g]}'" for g in relaxations)
            message += f" Dropping any one of these constraints would make it feasible: {names}."
        elif diagnose:
            message += " No single constraint group is to blame; several conflict at once."
        return SubsetResult(
            feasible=False,
            problems=(message,),
            failed_at="solver",
            relaxations=relaxations,
            **layout,
        )
    return SubsetResult(
        feasible=False,
        problems=(f"The solver stopped without an answer ({result.message}).",),
        failed_at="limit",
        **layout,
    )


def _relaxations(n_items, rows, time_limit) -> tuple[str, ...]:
    """The constraint groups whose removal alone makes the model feasible."""
    found = []
    for name in dict.fromkeys(row.group for row in rows):
        if name == "total":
            continue
        others = [row for row in rows if row.group != name]
        if _solve(n_items, others, np.zeros(n_items), time_limit).status == 0:
            found.append(name)
    return tuple(found)


def counted_items(n: int) -> str:
    return f"{n} item" if n == 1 else f"{n} items"
