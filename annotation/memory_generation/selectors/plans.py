"""Reads of memory quota allocation (App. B.4): the planning overview, weight versions and
one plan laid out per segment and per life-stage bin. Each page's reads take a constant
number of queries, whatever the number of characters or plans."""

from dataclasses import dataclass

from annotation.corpus.models import Character, Memory, ProfileVersion
from annotation.memory_generation import quota
from annotation.memory_generation.models import MemoryPlan, QuotaWeights
from audit.memory_quality.corpus import audited_memory_ids
from core.life_stages import LIFE_STAGE_BINS, life_stage_for_age

RECENT_PLANS = 50


def accepted_by_segment(character_ids) -> dict[int, tuple[int, list[int]]]:
    """character id → (k, accepted memories per segment): the audited corpus, counted.

    ``k`` counts every accepted memory; the 45 segments only those aged 6–50. Four
    queries, whatever the number of characters."""
    ids = list(set(character_ids))
    if not ids:
        return {}
    kept = audited_memory_ids(ids)
    ages: dict[int, list[int]] = {pk: [] for pk in ids}
    rows = Memory.objects.filter(character_id__in=ids).values_list(
        "character_id", "pk", "event_age"
    )
    for character_id, memory_pk, age in rows:
        allowed = kept.get(character_id)
        if allowed is None or memory_pk in allowed:
            ages[character_id].append(age)
    return {pk: (len(found), quota.counts_by_age(found)) for pk, found in ages.items()}


def _percent(part: int, whole: int) -> float:
    return round(100 * part / whole, 1) if whole else 0.0


# --- The overview -----------------------------------------------------------------------


@dataclass
class CharacterPlanning:
    character: Character
    version: ProfileVersion | None
    accepted: int
    by_bin: list[int]
    target: int
    latest_plan: MemoryPlan | None

    @property
    def frozen(self) -> bool:
        return self.version is not None and self.version.is_frozen

    @property
    def percent(self) -> float:
        return min(100.0, _percent(self.accepted, self.target))


def planning_overview(*, target: int = quota.TARGET_PER_CHARACTER) -> list[CharacterPlanning]:
    """Every character with its latest profile version, its accepted memories per bin
    against the target, and its latest plan."""
    characters = list(Character.objects.order_by("key"))
    ids = [c.pk for c in characters]
    latest_version: dict[int, ProfileVersion] = {}
    for version in ProfileVersion.objects.filter(character_id__in=ids).order_by("number"):
        latest_version[version.character_id] = version
    counts = accepted_by_segment(ids)
    latest_plan: dict[int, MemoryPlan] = {}
    plans = (
        MemoryPlan.objects.filter(character_id__in=ids)
        .select_related("weights")
        .order_by("created_at", "pk")
    )
    for plan in plans:
        latest_plan[plan.character_id] = plan
    rows = []
    for character in characters:
        accepted, existing = counts.get(character.pk, (0, [0] * quota.SEGMENT_COUNT))
        rows.append(
            CharacterPlanning(
                character=character,
                version=latest_version.get(character.pk),
                accepted=accepted,
                by_bin=[b.existing for b in quota.by_bin([0] * quota.SEGMENT_COUNT, existing)],
                target=target,
                latest_plan=latest_plan.get(character.pk),
            )
        )
    return rows


def plannable_character_keys() -> list[str]:
    """Characters whose latest profile version is frozen (the plan form's choices)."""
    latest: dict[int, ProfileVersion] = {}
    for version in ProfileVersion.objects.select_related("character").order_by("number"):
        latest[version.character_id] = version
    return sorted(v.character.key for v in latest.values() if v.is_frozen)


def plan_list(*, ids=None, limit: int = RECENT_PLANS) -> list[MemoryPlan]:
    plans = MemoryPlan.objects.select_related("character", "weights", "created_by").order_by(
        "-created_at", "-pk"
    )
    if ids is not None:
        plans = plans.filter(pk__in=list(ids))
    return list(plans[:limit])


# --- Weights ----------------------------------------------------------------------------


def weights_versions() -> list[QuotaWeights]:
    return list(QuotaWeights.objects.select_related("created_by").order_by("-number"))


@dataclass
class WeightsBin:
    key: str
    label: str
    ages: list[tuple[int, float]]

    @property
    def mean(self) -> float:
        return sum(w for _, w in self.ages) / len(self.ages)


def weights_by_bin(weights) -> list[WeightsBin]:
    """The 45 weights grouped by life-stage bin, for reading and editing."""
    groups = [WeightsBin(b.key, b.label, []) for b in LIFE_STAGE_BINS]
    index = {g.key: g for g in groups}
    for age, weight in zip(quota.SEGMENT_AGES, weights, strict=True):
        index[life_stage_for_age(age).key].ages.append((age, weight))
    return groups


# --- One plan ---------------------------------------------------------------------------


@dataclass
class PlanRow:
    label: str
    existing: int
    quota: int
    weight: float | None = None
    existing_percent: float = 0.0
    quota_percent: float = 0.0

    @property
    def total(self) -> int:
        return self.existing + self.quota


@dataclass
class PlanPage:
    plan: MemoryPlan
    segments: list[PlanRow]
    bins: list[PlanRow]
    totals: PlanRow
    later_plan: MemoryPlan | None

    @property
    def deficit(self) -> int:
        return self.plan.deficit


def _scaled(rows: list[PlanRow]) -> list[PlanRow]:
    top = max([r.total for r in rows] or [0]) or 1
    for row in rows:
        row.existing_percent = _percent(row.existing, top)
        row.quota_percent = _percent(row.quota, top)
    return rows


def plan_get(*, plan_id: int) -> MemoryPlan | None:
    return (
        MemoryPlan.objects.select_related("character", "profile_version", "weights", "created_by")
        .filter(pk=plan_id)
        .first()
    )


def plan_page(*, plan_id: int) -> PlanPage | None:
    """One plan per segment (age, bin, weight, existing, quota, total) and per bin, with
    bar lengths scaled to the fullest row; and the plan that followed it, if any."""
    plan = plan_get(plan_id=plan_id)
    if plan is None:
        return None
    segments = [
        PlanRow(
            label=f"{age} · {life_stage_for_age(age).label}",
            existing=existing,
            quota=q,
            weight=weight,
        )
        for age, existing, q, weight in zip(
            quota.SEGMENT_AGES, plan.existing, plan.quotas, plan.weights.weights, strict=True
        )
    ]
    bins = [
        PlanRow(label=f"{b.label} ({b.first_age}–{b.last_age})", existing=b.existing, quota=b.quota)
        for b in plan.bins()
    ]
    totals = PlanRow(label="All ages", existing=sum(plan.existing), quota=plan.deficit)
    later = MemoryPlan.objects.filter(previous_id=plan.pk).only("pk", "kind").order_by("pk").first()
    return PlanPage(
        plan=plan,
        segments=_scaled(segments),
        bins=_scaled(bins),
        totals=totals,
        later_plan=later,
    )
