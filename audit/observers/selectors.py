"""Reads of the observer pages: the run list, a run, its progress, a page of its units,
the inventories and the characters a run may observe. Constant queries per page.

!!! BLINDING !!!  Admin-facing only.
"""

from dataclasses import dataclass

from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.shortcuts import get_object_or_404

from annotation.corpus.models import ProfileVersion
from audit.observers.models import ObserverInventory, ObserverRun, ObserverUnit

UnitStatus = ObserverUnit.Status


def observer_run_list():
    return (
        ObserverRun.objects.select_related("created_by", "inventory")
        .order_by("-created_at", "-pk")
        .annotate(
            character_count=Count("units__character", distinct=True),
            unit_count=Count("units", distinct=True),
            done_count=Count(
                "units", filter=Q(units__status__in=ObserverUnit.TERMINAL), distinct=True
            ),
        )
    )


def observer_run_get(*, run_id: int) -> ObserverRun:
    return get_object_or_404(
        ObserverRun.objects.select_related("created_by", "inventory"), pk=run_id
    )


@dataclass(frozen=True)
class Progress:
    total: int
    pending: int
    running: int
    succeeded: int
    failed: int
    cancelled: int

    @property
    def done(self) -> int:
        return self.succeeded + self.failed + self.cancelled

    @property
    def without_ratings(self) -> int:
        return self.total - self.succeeded

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 100


def observer_run_progress(*, run_id: int) -> Progress:
    counts = dict(
        ObserverUnit.objects.filter(run_id=run_id)
        .values_list("status")
        .annotate(n=Count("pk"))
        .values_list("status", "n")
    )
    return Progress(total=sum(counts.values()), **{s: counts.get(s, 0) for s in UnitStatus.values})


def observer_unit_page(*, run_id: int, page_number=None, per_page: int = 50):
    units = (
        ObserverUnit.objects.filter(run_id=run_id)
        .select_related("character")
        .order_by("character__key", "observer_kind", "observer")
    )
    return Paginator(units, per_page).get_page(page_number)


def inventory_list():
    return ObserverInventory.objects.select_related("loaded_by").order_by("-loaded_at", "-pk")


def frozen_profiles(character_ids=None) -> dict[int, ProfileVersion]:
    """character id → its latest frozen profile version (whose design vector the ratings
    are compared with)."""
    rows = ProfileVersion.objects.filter(frozen_at__isnull=False).select_related("character")
    if character_ids is not None:
        rows = rows.filter(character_id__in=list(character_ids))
    latest: dict[int, ProfileVersion] = {}
    for version in rows.order_by("character_id", "number"):
        latest[version.character_id] = version
    return latest
