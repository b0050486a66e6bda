"""The distinctness table as a stored report (``core.reports``): computed once on a
worker, read by the distinctness page (a GET never computes a distance).

One report (key ``""``) over every character's current profile
(``distinctness.current_profiles``). Its inputs are those profiles' ids, numbers, freeze
times and scores, so a new version, a freeze or a changed draft makes the stored table
stale; the page then shows the stored one marked as older than its inputs while the
worker computes the new one. Once the table has been computed, every later save of a
profile version queues the new computation at once (``profile_version_saved``), so the
page usually finds it fresh; the page's "Recompute now" button queues it on demand.

The stored result holds the pairs as columns (character indexes, L1, discordant trait
pairs, the flag), in the page's order, and for each character the profile version the
distances were taken on (number, frozen or draft, the five scores): a page of 50 rows is
read from it without another query.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.utils import timezone

from agreement.distinctness import DistinctnessSummary, DistinctnessTable, PairDistance
from annotation.corpus.distinctness import THRESHOLDS, current_profiles, distinctness_report
from annotation.corpus.models import ProfileVersion
from core.reports.models import ReportStatus, StoredReport
from core.reports.services import (
    TASK_NAME,
    Inputs,
    ReportView,
    compute_if_stale,
    register,
    report_for,
)
from core.tasks import enqueue_on_commit

KIND = "annotation.corpus.distinctness"
KEY = ""
SCORE_FIELDS = ("openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism")


def inputs(key: str = KEY) -> Inputs:
    """The current profiles as they are now: one query."""
    profiles = current_profiles()
    identity = {
        "profiles": [
            [p.character.key, p.pk, p.number, p.frozen_at, [p.big_five[t] for t in "OCEAN"]]
            for p in profiles
        ],
        "thresholds": THRESHOLDS,
    }
    drafts = sum(1 for p in profiles if not p.is_frozen)
    described = f"{len(profiles)} current profiles ({drafts} not frozen yet)"
    return Inputs(identity=identity, described=described)


def compute(key: str = KEY) -> dict:
    report = distinctness_report()
    table = report.table
    return {
        "keys": table.keys,
        "profiles": {
            k: {
                "number": p.number,
                "frozen": p.is_frozen,
                **{f: float(getattr(p, f)) for f in SCORE_FIELDS},
            }
            for k, p in report.profiles.items()
        },
        "first": table._first.tolist(),
        "second": table._second.tolist(),
        "l1": table._l1.tolist(),
        "discordant": table._discordant.tolist(),
        "near": table._near.tolist(),
        "thresholds": THRESHOLDS,
    }


register(KIND, inputs=inputs, compute=compute)


# --- reading it ----------------------------------------------------------------------------


@dataclass(frozen=True)
class StoredVersion:
    """The profile version a stored distance was taken on, as the page shows it."""

    key: str
    number: int
    is_frozen: bool
    openness: float
    conscientiousness: float
    extraversion: float
    agreeableness: float
    neuroticism: float


@dataclass(frozen=True)
class StoredRow:
    distance: PairDistance
    first: StoredVersion
    second: StoredVersion


class StoredRows(Sequence[StoredRow]):
    """A stored table's pairs with their profile versions, made when read."""

    def __init__(self, table: DistinctnessTable, versions: dict[str, StoredVersion]):
        self.table, self.versions = table, versions

    def __len__(self) -> int:
        return len(self.table)

    def _row(self, d: PairDistance) -> StoredRow:
        return StoredRow(d, self.versions[d.first], self.versions[d.second])

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._row(d) for d in self.table[index]]
        return self._row(self.table[index])


@dataclass(frozen=True)
class StoredDistinctness:
    """The stored table, rebuilt for the page."""

    table: DistinctnessTable
    versions: dict[str, StoredVersion]
    thresholds: dict

    @property
    def rows(self) -> StoredRows:
        return StoredRows(self.table, self.versions)

    @property
    def near_duplicates(self) -> StoredRows:
        return StoredRows(self.table.near_duplicates(), self.versions)

    @property
    def summary(self) -> DistinctnessSummary:
        return self.table.summary()

    @property
    def drafts(self) -> list[StoredVersion]:
        return [v for v in self.versions.values() if not v.is_frozen]


def stored_table(result: dict) -> StoredDistinctness:
    """The page's view of a stored result."""
    table = DistinctnessTable(
        result["keys"],
        np.array(result["first"], dtype=int),
        np.array(result["second"], dtype=int),
        np.array(result["l1"], dtype=float),
        np.array(result["discordant"], dtype=float),
        np.array(result["near"], dtype=bool),
    )
    versions = {
        k: StoredVersion(
            key=k,
            number=v["number"],
            is_frozen=v["frozen"],
            **{f: v[f] for f in SCORE_FIELDS},
        )
        for k, v in result["profiles"].items()
    }
    return StoredDistinctness(table, versions, result.get("thresholds") or THRESHOLDS)


def stored_distinctness() -> ReportView:
    """The stored table and whether it is stale; queues its computation when it is."""
    return report_for(KIND, KEY)


def request_recompute() -> None:
    """Queue a computation now, whether or not the stored table is stale (the page's
    button): the worker computes it from the profiles as they are then."""
    fingerprint = inputs(KEY).fingerprint
    with transaction.atomic():
        row, _ = StoredReport.objects.select_for_update().get_or_create(kind=KIND, key=KEY)
        row.status = ReportStatus.PENDING
        row.wanted_fingerprint = fingerprint
        row.queued_at = timezone.now()
        row.save(update_fields=["status", "wanted_fingerprint", "queued_at"])
        enqueue_on_commit(TASK_NAME, KIND, KEY, what="The distinctness table")


@receiver(post_save, sender=ProfileVersion, dispatch_uid="distinctness-profile-saved")
def profile_version_saved(sender, instance, **kwargs):
    """A profile version was created, changed or frozen: once the table has been computed
    (someone opened the page), queue the new computation after the commit. Before that,
    nothing is queued: the first visit of the page does it."""

    def queue():
        if StoredReport.objects.filter(kind=KIND, key=KEY).exists():
            report_for(KIND, KEY)

    transaction.on_commit(queue)


def demo_distinctness() -> None:
    """The demo's stored table, computed in this process from the demo's profiles (run
    again, it changes nothing)."""
    compute_if_stale(KIND, KEY)
