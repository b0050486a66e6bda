"""Distinctness between characters: the rows the distinctness page and the memory
generation launch read (the distances themselves are ``agreement.distinctness``).

A character's *current profile* here is its latest frozen profile version, or its latest
version when none is frozen yet (a draft still in review, marked as such on the page).
The whole table (O(n²)) is a stored report (``distinctness_report``: computed on a
worker, read by the page). The memory generation launch check does not read it: it
compares only the launching characters with every current profile (O(k·n), here, from
the rows as they are now), so a launch is never checked against stale figures.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db.models import Case, IntegerField, OuterRef, Subquery, Value, When

from agreement.distinctness import (
    NEAR_DUPLICATE_KENDALL_AT_MOST,
    NEAR_DUPLICATE_L1_BELOW,
    DistinctnessSummary,
    DistinctnessTable,
    PairDistance,
    distinctness_against,
    distinctness_table,
)
from annotation.corpus.models import Character, ProfileVersion

THRESHOLDS = {
    "l1_below": NEAR_DUPLICATE_L1_BELOW,
    "kendall_at_most": NEAR_DUPLICATE_KENDALL_AT_MOST,
}


@dataclass(frozen=True)
class DistinctnessRow:
    """One pair of characters with the profile versions the distances were taken on."""

    distance: PairDistance
    first: ProfileVersion
    second: ProfileVersion


class DistinctnessRows(Sequence[DistinctnessRow]):
    """A table's pairs with their profile versions, made when read (a page's slice)."""

    def __init__(self, table: DistinctnessTable, profiles: dict[str, ProfileVersion]):
        self.table, self.profiles = table, profiles

    def __len__(self) -> int:
        return len(self.table)

    def _row(self, distance: PairDistance) -> DistinctnessRow:
        return DistinctnessRow(
            distance, self.profiles[distance.first], self.profiles[distance.second]
        )

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._row(d) for d in self.table[index]]
        return self._row(self.table[index])


@dataclass(frozen=True)
class DistinctnessReport:
    table: DistinctnessTable
    profiles: dict[str, ProfileVersion]  # by character key, in key order

    @property
    def rows(self) -> DistinctnessRows:
        return DistinctnessRows(self.table, self.profiles)

    @property
    def near_duplicates(self) -> DistinctnessRows:
        return DistinctnessRows(self.table.near_duplicates(), self.profiles)

    @property
    def summary(self) -> DistinctnessSummary:
        return self.table.summary()

    @property
    def drafts(self) -> list[ProfileVersion]:
        """The current profiles that are not frozen yet."""
        return [p for p in self.profiles.values() if not p.is_frozen]


def current_profiles() -> list[ProfileVersion]:
    """Each character's latest frozen profile version, or its latest version when none is
    frozen; characters without any version are left out. One query."""
    frozen_first = Case(
        When(frozen_at__isnull=False, then=Value(0)), default=Value(1), output_field=IntegerField()
    )
    chosen = (
        ProfileVersion.objects.filter(character=OuterRef("pk"))
        .order_by(frozen_first, "-number")
        .values("pk")[:1]
    )
    return list(
        ProfileVersion.objects.filter(
            pk__in=Character.objects.annotate(chosen=Subquery(chosen)).values("chosen")
        )
        .select_related("character")
        .order_by("character__key")
    )


def _report(profiles: Iterable[ProfileVersion]) -> DistinctnessReport:
    by_key = {p.character.key: p for p in profiles}
    table = distinctness_table({k: p.big_five for k, p in by_key.items()}, **THRESHOLDS)
    return DistinctnessReport(table=table, profiles={k: by_key[k] for k in sorted(by_key)})


def distinctness_report() -> DistinctnessReport:
    """Every pair of the current profiles, closest first, near-duplicates flagged."""
    return _report(current_profiles())


def near_duplicates_for(profiles: Iterable[ProfileVersion]) -> list[DistinctnessRow]:
    """The near-duplicate pairs a memory run for ``profiles`` would build on: each of
    them (the version its plan was made for) against every other character's current
    profile and against each other. Pairs among the other characters alone are not
    this run's concern and are left out."""
    chosen = {p.character.key: p for p in profiles}
    if not chosen:
        return []
    others = [p for p in current_profiles() if p.character.key not in chosen]
    by_key = {p.character.key: p for p in [*others, *chosen.values()]}
    table = distinctness_against(
        {k: p.big_five for k, p in by_key.items()}, chosen, **THRESHOLDS
    ).near_duplicates()
    return list(DistinctnessRows(table, by_key)[:])


def near_duplicate_sentence(rows: list[DistinctnessRow], *, name) -> str:
    """``Character 5 and Character 12 (L1 0.15, ordering distance 0.05)`` for each row,
    joined; ``name`` turns a key into the name people see."""
    return "; ".join(
        f"{name(r.distance.first)} and {name(r.distance.second)} "
        f"(L1 {r.distance.l1:.2f}, ordering distance {r.distance.kendall:.2f})"
        for r in rows
    )
