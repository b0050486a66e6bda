"""An observer run's report as a stored report (``core.reports``), computed once on a
worker and read by the report page. Keyed by the run's id; its inputs are the run's seed
and inventory, its stored ratings (number, last one) and the bootstrap's settings, so a
new rating (a retried unit) makes the stored figures stale.
"""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Count, Max

from audit.observers import scoring
from audit.observers.models import ObserverRating, ObserverRun, ObserverUnit
from core.reports.services import Inputs, ReportView, register, report_for

KIND = "audit.observers.report"


def key_for(run_id: int) -> str:
    return str(run_id)


def inputs(key: str) -> Inputs:
    run = ObserverRun.objects.filter(pk=int(key)).values("pk", "seed", "inventory_id").first()
    run = run or {"pk": int(key)}
    ratings = ObserverRating.objects.filter(
        unit__run_id=run["pk"], unit__status=ObserverUnit.Status.SUCCEEDED
    ).aggregate(n=Count("pk"), last=Max("pk"))
    identity = {"run": run, "ratings": ratings, "bootstrap": [scoring.N_BOOT, scoring.CI_LEVEL]}
    described = (
        f"observer run {run['pk']}: {ratings['n']} ratings, seed {run.get('seed')}, "
        f"{scoring.N_BOOT:,} resamples"
    )
    return Inputs(identity=identity, described=described)


def run_ratings(run: ObserverRun) -> list[scoring.CharacterRatings]:
    """Every character of the run with its succeeded observers' ratings (two queries)."""
    units = list(
        ObserverUnit.objects.filter(run=run, status=ObserverUnit.Status.SUCCEEDED).select_related(
            "character", "profile_version"
        )
    )
    values = defaultdict(dict)
    for unit_id, item_id, value in ObserverRating.objects.filter(unit__in=units).values_list(
        "unit_id", "item_id", "value"
    ):
        values[unit_id][item_id] = value
    characters: dict[int, scoring.CharacterRatings] = {}
    for unit in units:
        profile = unit.profile_version
        row = characters.setdefault(
            profile.pk,
            scoring.CharacterRatings(
                key=unit.character.key,
                profile_version_id=profile.pk,
                design=profile.big_five,
                anchor=profile.trait_anchor,
            ),
        )
        row.ratings[f"{unit.observer_kind}:{unit.observer}"] = values[unit.pk]
    return list(characters.values())


def compute(key: str) -> dict:
    run = ObserverRun.objects.select_related("inventory").filter(pk=int(key)).first()
    if run is None:
        raise ValueError(f"No observer run {key}.")
    inventory = run.inventory
    return scoring.observer_figures(
        run_ratings(run),
        inventory.items,
        low=inventory.scale_min,
        high=inventory.scale_max,
        seed=run.seed,
    )


def stored_report(run: ObserverRun) -> ReportView:
    """The run's stored report; queues a computation when its inputs changed."""
    return report_for(KIND, key_for(run.pk))


register(KIND, inputs=inputs, compute=compute)
