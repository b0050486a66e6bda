"""Human observers (issue 37): the admin asks people holding the observer role to rate
characters of a finished observer run; each person gets one ``human`` unit per
character, holding the material the run's model observers read for that character.

An observer sees only their own units, each named "Person N" (N: the unit's place among
the observer's own units, oldest first), never the character's key, its memory ids or
anything of its profile: the key of a Table 4 character, or a memory id such as
``MEM_CHAR_06_N_HIGH_0001``, would tell them the design they are compared with.

A person's answers are kept as a form draft (``core.drafts``) until they submit; the
submission stores one ``ObserverRating`` per inventory item, the unit succeeds, and the
run's stored report is queued again (its inputs count the ratings).

Human units are added to a finished run only, and the run's model units cannot be
retried while a person's task is open: the shared run machinery treats every waiting
unit as one for a worker, and a person is not one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from django.contrib.auth import get_user_model
from django.db import transaction
from django.http import Http404

from audit.observers import sampling, stored_reports
from audit.observers.models import ObserverRating, ObserverRun, ObserverUnit
from audit.observers.services import FLOW, ObserverRunError
from core import drafts
from core.display import human_label
from core.plurals import counted
from core.roles import Role, user_roles

Kind = ObserverUnit.Kind
UnitStatus = ObserverUnit.Status
RunStatus = ObserverRun.Status
#: Runs people can be asked to rate: their model observers are done.
ASSIGNABLE = (RunStatus.FINISHED, RunStatus.FINISHED_WITH_FAILURES)


def statement_field(position: int) -> str:
    """The form field of the inventory's ``position``-th statement (1-based): a number,
    not the item's id, whose letter would name the trait it measures."""
    return f"s{position}"


def draft_key(unit_id: int) -> str:
    return f"observer-task:{unit_id}"


# --- the admin: asking people --------------------------------------------------------------


def observer_people():
    """Everyone holding the observer role, by name."""
    return (
        get_user_model()
        .objects.filter(groups__name=Role.OBSERVER.value, is_active=True)
        .order_by("username")
        .distinct()
    )


@transaction.atomic
def human_observers_assign(*, run_id: int, users, character_ids=None) -> list[ObserverUnit]:
    """One waiting ``human`` unit per (character of the run, person), with the material
    the run's model observers read; a pair that already has one is left as it is.
    Refused, nothing saved, when the run has not finished, a person does not hold the
    observer role (named), or a character is not one of the run's."""
    run = FLOW.lock(run_id)
    if run.status not in ASSIGNABLE:
        raise ObserverRunError(
            f"Observer run {run.pk} is {run.get_status_display().lower()}; people can be "
            "asked to rate once its model observers have finished."
        )
    users = list(users)
    if not users:
        raise ObserverRunError("Choose at least one person holding the observer role.")
    refused = sorted(u.get_username() for u in users if Role.OBSERVER not in user_roles(u))
    if refused:
        raise ObserverRunError(
            f"{', '.join(refused)} {'does' if len(refused) == 1 else 'do'} not hold the "
            "observer role; give the role on the team page first."
        )
    material = {}
    for unit in run.units.filter(observer_kind=Kind.LLM).order_by("pk"):
        material.setdefault(unit.character_id, unit)
    chosen = list(material) if not character_ids else [int(c) for c in character_ids]
    unknown = [c for c in chosen if c not in material]
    if unknown:
        raise ObserverRunError("Choose characters the run's model observers rated.")
    taken = set(run.units.filter(observer_kind=Kind.HUMAN).values_list("character_id", "observer"))
    made = [
        ObserverUnit(
            run=run,
            character_id=character_id,
            profile_version_id=material[character_id].profile_version_id,
            observer_kind=Kind.HUMAN,
            observer=user.get_username(),
            material=list(material[character_id].material),
            strata=dict(material[character_id].strata),
        )
        for character_id in chosen
        for user in users
        if (character_id, user.get_username()) not in taken
    ]
    return ObserverUnit.objects.bulk_create(made)


def open_human_tasks(run_id: int) -> int:
    return ObserverUnit.objects.filter(
        run_id=run_id, observer_kind=Kind.HUMAN, status=UnitStatus.PENDING
    ).count()


# --- the observer: their own tasks ----------------------------------------------------------


def own_tasks(user):
    """The person's own units, oldest first (the order their neutral names follow)."""
    return (
        ObserverUnit.objects.filter(observer_kind=Kind.HUMAN, observer=user.get_username())
        .select_related("run__inventory")
        .order_by("pk")
    )


@dataclass(frozen=True)
class TaskRow:
    unit_id: int
    name: str
    passages: int
    statements: int
    state: str
    done: bool


def task_rows(page, user) -> list[TaskRow]:
    """A page of :func:`own_tasks` as rows, named by place (one query for the drafts)."""
    units = list(page.object_list)
    saved = set(
        drafts.FormDraft.objects.filter(
            user=user, key__in=[draft_key(u.pk) for u in units]
        ).values_list("key", flat=True)
    )
    start = page.start_index() if units else 1
    rows = []
    for offset, unit in enumerate(units):
        if unit.status == UnitStatus.SUCCEEDED:
            state = "Submitted"
        elif draft_key(unit.pk) in saved:
            state = "Draft saved"
        else:
            state = "To do"
        rows.append(
            TaskRow(
                unit_id=unit.pk,
                name=f"Person {start + offset}",
                passages=len(unit.material),
                statements=unit.run.inventory.item_count,
                state=state,
                done=unit.status == UnitStatus.SUCCEEDED,
            )
        )
    return rows


def own_task(user, unit_id: int) -> tuple[ObserverUnit, str]:
    """The person's own unit and its neutral name; another person's (or a model's) is 404."""
    unit = own_tasks(user).filter(pk=unit_id).first()
    if unit is None:
        raise Http404("No such task of yours.")
    place = own_tasks(user).filter(pk__lte=unit.pk).count()
    return unit, f"Person {place}"


@dataclass(frozen=True)
class Statement:
    field: str
    text: str
    value: str


SLUG = re.compile(r"\b[a-z0-9]+(?:_[a-z0-9]+)+\b")


def passages(unit: ObserverUnit) -> list[sampling.Shown]:
    """What the person reads: the run's material texts, as a model observer reads them,
    a life stage in a heading in words ("school_age (6 years old)" → "School age (6
    years old)"); never the material's ids."""
    return [
        replace(piece, id="", heading=SLUG.sub(lambda m: human_label(m.group()), piece.heading))
        for piece in sampling.shown_texts(unit.run.target, list(unit.material))
    ]


def statements(unit: ObserverUnit, values: dict) -> list[Statement]:
    """The inventory's statements in the file's order, each with its chosen value ("" for
    none); never its id, trait or keying."""
    return [
        Statement(field=statement_field(i), text=item["text"], value=str(values.get(i, "")))
        for i, item in enumerate(unit.run.inventory.items, start=1)
    ]


def scale(unit: ObserverUnit) -> list[tuple[int, str]]:
    inventory = unit.run.inventory
    labels = inventory.scale_labels or {}
    return [
        (point, labels.get(str(point), ""))
        for point in range(inventory.scale_min, inventory.scale_max + 1)
    ]


def current_values(user, unit: ObserverUnit) -> dict[int, int | str]:
    """Statement position → the value shown: the stored ratings of a submitted task, else
    the person's draft."""
    items = unit.run.inventory.items
    if unit.status == UnitStatus.SUCCEEDED:
        stored = dict(unit.ratings.values_list("item_id", "value"))
        return {i: stored.get(item["id"], "") for i, item in enumerate(items, start=1)}
    draft = drafts.form_draft_values(drafts.form_draft_get(user=user, key=draft_key(unit.pk)))
    return {i: draft.get(statement_field(i), "") for i in range(1, len(items) + 1)}


def statement_fields(unit: ObserverUnit) -> list[str]:
    return [statement_field(i) for i in range(1, unit.run.inventory.item_count + 1)]


def save_draft(*, user, unit: ObserverUnit, data):
    if unit.status != UnitStatus.PENDING:
        raise ObserverRunError("This task is submitted: it can no longer change.")
    return drafts.form_draft_save(
        user=user, key=draft_key(unit.pk), data=data, fields=statement_fields(unit)
    )


def answer_problems(unit: ObserverUnit, data) -> tuple[dict[str, int], list[str]]:
    """(item id → rating, problems): every statement needs a whole number on the scale;
    a problem names the statement by its number."""
    inventory = unit.run.inventory
    ratings, missing, off = {}, [], []
    for position, item in enumerate(inventory.items, start=1):
        raw = (data.get(statement_field(position)) or "").strip()
        if not raw:
            missing.append(str(position))
            continue
        try:
            value = int(raw)
        except ValueError:
            value = None
        if value is None or not inventory.scale_min <= value <= inventory.scale_max:
            off.append(str(position))
            continue
        ratings[item["id"]] = value
    problems = []
    if missing:
        problems.append(
            f"Rate every statement: {counted(len(missing), 'statement')} "
            f"({', '.join(missing)}) {'has' if len(missing) == 1 else 'have'} no answer yet."
        )
    if off:
        problems.append(
            f"Statement {', '.join(off)}: choose a point from {inventory.scale_min} to "
            f"{inventory.scale_max}."
        )
    return ratings, problems


def submit(*, user, unit_id: int, data) -> ObserverUnit:
    """Store the person's ratings and mark the unit succeeded; then the run's report is
    queued again. Refused (``ObserverRunError``, nothing stored) when a statement has no
    answer or the task was submitted before."""
    with transaction.atomic():
        own = own_tasks(user).filter(pk=unit_id).values_list("pk", flat=True).first()
        if own is None:
            raise Http404("No such task of yours.")
        unit = (
            ObserverUnit.objects.select_for_update(of=("self",))
            .select_related("run__inventory")
            .get(pk=own)
        )
        if unit.status != UnitStatus.PENDING:
            raise ObserverRunError("This task is already submitted: it can no longer change.")
        ratings, problems = answer_problems(unit, data)
        if problems:
            raise ObserverRunError(" ".join(problems))
        ObserverRating.objects.bulk_create(
            [
                ObserverRating(
                    unit=unit,
                    item_id=item["id"],
                    trait=item["trait"],
                    keying=item["keying"],
                    value=ratings[item["id"]],
                )
                for item in unit.run.inventory.items
            ]
        )
        unit.status = UnitStatus.SUCCEEDED
        unit.attempts += 1
        unit.save(update_fields=["status", "attempts", "updated_at"])
        drafts.form_draft_clear(user=user, key=draft_key(unit.pk))
    # The report's inputs count the succeeded ratings: asking for it queues the new figures.
    stored_reports.stored_report(unit.run)
    return unit


# --- the home page ----------------------------------------------------------------------------


def observer_home_queues(*, user) -> dict:
    """The observer's home card: their open tasks (nothing for anyone else)."""
    from django.urls import reverse

    if Role.OBSERVER not in user_roles(user):
        return {}
    count = own_tasks(user).filter(status=UnitStatus.PENDING).count()
    return {
        "observer_tasks": {
            "count": count,
            "url": reverse("audit:observers:tasks"),
            "label": f"{counted(count, 'person', 'people')} to rate",
        }
    }
