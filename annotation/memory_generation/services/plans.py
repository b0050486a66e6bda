"""Writes of memory quota allocation (seed 000 App. B.4): weight versions and plans.

Every function is keyword-only and atomic, refuses with a ``PlanError`` whose messages
say what is wrong and where, and leaves the database unchanged when it refuses. The
arithmetic is ``quota`` (pure); the accepted memories of a character are the audited
corpus of ``audit.memory_quality.corpus`` (the latest finalized audit's timeline, or the
stored memories where no finalized audit covered the character).

Weight versions and plans are never edited: a change is a new row, and both are in the
decision history (core/history.py).
"""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max

from annotation.corpus.models import Character, ProfileVersion
from annotation.memory_generation import quota
from annotation.memory_generation.models import MemoryPlan, MemoryRun, QuotaWeights
from annotation.memory_generation.selectors.plans import accepted_by_segment
from audit.memory_quality.corpus import finalized_runs_by_character
from audit.memory_quality.models import AuditRun
from core.roles import Role, has_any_role
from core.text_rules import check_text

__all__ = [
    "PlanError",
    "plan_create",
    "plan_top_up",
    "weights_create",
    "weights_current",
]

DEFAULT_WEIGHTS_NOTE = (
    "The platform default: each bin's share of 1,000 spread over its years, the most a "
    "year in Adolescence, the Early adult and the Age-30 transitions (the paper's reported shares)."
)


NOTE_MAX = 300


class PlanError(ValidationError):
    """A plan or weight version that cannot be made; each message says why."""


def _require_admin(user, doing: str) -> None:
    if user is not None and not has_any_role(user, [Role.ADMIN]):
        raise PlanError(f"Only an admin can {doing}.")


def _save(row, user):
    # The decision history names the person even when no request is in flight (API
    # clients, management commands, tests).
    row._history_user = user
    row.save()
    return row


def _clean_note(note) -> str:
    return check_text((note or "").strip(), label="Note", limit=NOTE_MAX, error=PlanError)


# --- Weights ----------------------------------------------------------------------------


def _next_weights_number() -> int:
    return (QuotaWeights.objects.aggregate(top=Max("number"))["top"] or 0) + 1


@transaction.atomic
def weights_current() -> QuotaWeights:
    """The latest weight version; v1 (the platform default) is made when none exists."""
    latest = QuotaWeights.objects.order_by("-number").first()
    if latest is not None:
        return latest
    # Two first visits at once: the unique number lets one win; the other reads it.
    return QuotaWeights.objects.get_or_create(
        number=1, defaults={"weights": quota.default_weights(), "note": DEFAULT_WEIGHTS_NOTE}
    )[0]


@transaction.atomic
def weights_create(*, user, weights, note: str = "") -> QuotaWeights:
    """The next weight version. ``weights`` is 45 numbers ≥ 0, ages 6 to 50."""
    _require_admin(user, "change the quota weights")
    problems = quota.weight_problems(weights)
    if problems:
        raise PlanError(problems)
    note = _clean_note(note)
    # Lock the current top row so two saves at once get consecutive numbers.
    list(QuotaWeights.objects.select_for_update().order_by("-number")[:1])
    return _save(
        QuotaWeights(
            number=_next_weights_number(),
            weights=[float(w) for w in weights],
            note=note,
            created_by=user,
        ),
        user,
    )


def _latest_versions(characters) -> dict[int, ProfileVersion | None]:
    latest = {}
    for character in characters:
        versions = sorted(character.versions.all(), key=lambda v: v.number)
        latest[character.pk] = versions[-1] if versions else None
    return latest


# --- Plans ------------------------------------------------------------------------------


@transaction.atomic
def plan_create(
    *,
    user,
    character_keys,
    weights_id: int | None = None,
    target: int = quota.TARGET_PER_CHARACTER,
    note: str = "",
) -> list[MemoryPlan]:
    """An initial plan per character: its deficit ``target − k`` spread over the 45
    segments by the weights. All or nothing: one refused character refuses the lot, and
    the error names every character that cannot be planned and why."""
    _require_admin(user, "plan memories")
    keys = list(dict.fromkeys(k.strip() for k in character_keys if k and k.strip()))
    if not keys:
        raise PlanError("Choose at least one character to plan.")
    if isinstance(target, bool) or not isinstance(target, int) or target < 1:
        raise PlanError(f"The target must be a whole number of memories ≥ 1; got {target!r}.")
    note = _clean_note(note)
    if weights_id is None:
        weights = weights_current()
    else:
        weights = QuotaWeights.objects.filter(pk=weights_id).first()
        if weights is None:
            raise PlanError(f"There is no quota weight version with id {weights_id}.")
    problems = quota.weight_problems(weights.weights)
    if problems:
        raise PlanError([f"{weights} cannot be used: {p}" for p in problems])

    characters = {
        c.key: c
        for c in Character.objects.filter(key__in=keys)
        .select_for_update(of=("self",))
        .prefetch_related("versions")
    }
    versions = _latest_versions(characters.values())
    counts = accepted_by_segment(c.pk for c in characters.values())
    runs = finalized_runs_by_character(c.pk for c in characters.values())
    refusals, planned = [], []
    for key in keys:
        character = characters.get(key)
        if character is None:
            refusals.append(f"{key}: no such character.")
            continue
        version = versions[character.pk]
        if version is None:
            refusals.append(f"{key}: has no profile version yet; draft and review it first.")
            continue
        if not version.is_frozen:
            refusals.append(
                f"{key}: profile version {version.number} is not frozen; the senior freezes "
                "the reviewed profile before its memories are planned."
            )
            continue
        accepted, existing = counts[character.pk]
        if accepted >= target:
            refusals.append(
                f"{key}: already has {accepted} accepted memories (target {target}); "
                "nothing to plan."
            )
            continue
        planned.append((character, version, accepted, existing))
    if refusals:
        raise PlanError(["No plan was made.", *refusals])

    plans = []
    for character, version, accepted, existing in planned:
        plans.append(
            _save(
                MemoryPlan(
                    character=character,
                    profile_version=version,
                    weights=weights,
                    kind=MemoryPlan.Kind.INITIAL,
                    target=target,
                    accepted=accepted,
                    existing=existing,
                    quotas=quota.allocate(target - accepted, weights.weights),
                    audit_run_id=runs.get(character.pk),
                    note=note,
                    created_by=user,
                ),
                user,
            )
        )
    return plans


@transaction.atomic
def plan_top_up(*, user, plan_id: int, note: str = "") -> MemoryPlan:
    """After the audit rejected or deduplicated generated memories: B.4's rule on what
    the latest finalized audit kept, k: the deficit ``target − k`` spread over the
    segments by the weights of ``plan_id`` (not each segment back to its old level)."""
    _require_admin(user, "top up a memory plan")
    note = _clean_note(note)
    previous = (
        MemoryPlan.objects.select_for_update(of=("self",))
        .select_related("character", "weights", "profile_version")
        .filter(pk=plan_id)
        .first()
    )
    if previous is None:
        raise PlanError(f"There is no memory plan {plan_id}.")
    character = previous.character
    latest = MemoryPlan.objects.filter(character=character).order_by("-created_at", "-pk").first()
    if latest.pk != previous.pk:
        raise PlanError(
            f"Plan {previous.pk} is not the latest plan for {character.key}: plan {latest.pk} "
            "is. Top up the latest one."
        )
    generating = (
        MemoryRun.objects.filter(
            plans=previous, status__in=(MemoryRun.Status.RUNNING, MemoryRun.Status.CANCELLING)
        )
        .order_by("pk")
        .first()
    )
    if generating is not None:
        raise PlanError(
            f"Memory run {generating.pk} is still generating plan {previous.pk}; let it finish "
            "(or cancel it), audit what it stored, then top up."
        )
    run_id = finalized_runs_by_character([character.pk]).get(character.pk)
    run = AuditRun.objects.filter(pk=run_id).first() if run_id is not None else None
    if run is None or run.finalized_at <= previous.created_at:
        raise PlanError(
            f"No memory audit of {character.key} was finalized after plan {previous.pk} was "
            "made; audit and finalize the generated memories first, so the top-up counts "
            "what the audit accepted."
        )
    accepted, existing = accepted_by_segment([character.pk])[character.pk]
    quotas = quota.top_up(previous.target, accepted, previous.weights.weights)
    if not any(quotas):
        raise PlanError(
            f"Nothing is missing: {character.key} holds {accepted} accepted memories after "
            f"audit run {run.pk}, and plan {previous.pk}'s target is {previous.target}."
        )
    return _save(
        MemoryPlan(
            character=character,
            profile_version=previous.profile_version,
            weights=previous.weights,
            kind=MemoryPlan.Kind.TOP_UP,
            previous=previous,
            target=previous.target,
            accepted=accepted,
            existing=existing,
            quotas=quotas,
            audit_run_id=run.pk,
            note=note,
            created_by=user,
        ),
        user,
    )
