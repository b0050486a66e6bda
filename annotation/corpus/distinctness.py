"""Distinctness between characters: the rows the distinctness page and the memory
generation launch read (the distances themselves are ``agreement.distinctness``).

A character's *current profile* here is its latest frozen profile version, or its latest
version when none is frozen yet (a draft still in review, marked as such on the page).
The table is O(n²) in numpy on a few hundred characters at most, so it is computed on
request (milliseconds, two queries), not stored.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Case, IntegerField, OuterRef, Subquery, Value, When

from agreement.distinctness import (
    NEAR_DUPLICATE_KENDALL_AT_MOST,
    NEAR_DUPLICATE_L1_BELOW,
    DistinctnessSummary,
    PairDistance,
    distinctness_summary,
    distinctness_table,
    pairs_involving,
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


@dataclass(frozen=True)
class DistinctnessReport:
    rows: list[DistinctnessRow]
    summary: DistinctnessSummary
    profiles: list[ProfileVersion]

    @property
    def near_duplicates(self) -> list[DistinctnessRow]:
        return [r for r in self.rows if r.distance.near_duplicate]

    @property
    def rows_distances(self) -> list[PairDistance]:
        return [r.distance for r in self.rows]

    @property
    def drafts(self) -> list[ProfileVersion]:
        """The current profiles that are not frozen yet."""
        return [p for p in self.profiles if not p.is_frozen]


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
    rows = [DistinctnessRow(d, by_key[d.first], by_key[d.second]) for d in table]
    return DistinctnessReport(
        rows=rows,
        summary=distinctness_summary(table, characters=len(by_key)),
        profiles=[by_key[k] for k in sorted(by_key)],
    )


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
    report = _report([*others, *chosen.values()])
    involved = {(d.first, d.second) for d in pairs_involving(report.rows_distances, chosen)}
    return [r for r in report.near_duplicates if (r.distance.first, r.distance.second) in involved]


def near_duplicate_sentence(rows: list[DistinctnessRow], *, name) -> str:
    """``Character 5 and Character 12 (L1 0.15, ordering distance 0.10)`` for each row,
    joined; ``name`` turns a key into the name people see."""
    return "; ".join(
        f"{name(r.distance.first)} and {name(r.distance.second)} "
        f"(L1 {r.distance.l1:.2f}, ordering distance {r.distance.kendall:.2f})"
        for r in rows
    )
