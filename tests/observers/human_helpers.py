"""A finished observer run on two characters rated by one model observer, for the human
observer tests: its units show real memories, whose ids and the profiles' values the
blinding scans look for."""

import re

from annotation.corpus.models import Memory
from audit.observers.models import ObserverRating, ObserverRun, ObserverUnit
from core.roles import Role
from tests.factories import UserFactory

from .helpers import character_written_for, inventory, vector

#: Two characters with an anchor each, as the paper's Table 4 keys them.
DESIGNS = {"CHAR_06": vector(N=0.95), "CHAR_02": vector(E=0.1)}
PASSAGES = 4
LABELS = re.compile(r"\b[OCEAN]_(HIGH|LOW)\b")


def model_ratings(form, trait_value: int = 4) -> dict[str, int]:
    return {item["id"]: trait_value for item in form.items}


def finished_run() -> ObserverRun:
    """A finished run: per character one succeeded model unit with its ratings and
    ``PASSAGES`` real memories as its material."""
    form = inventory()
    run = ObserverRun.objects.create(
        inventory=form,
        seed=11,
        families=["claude"],
        prompt_version="observer-1",
        status=ObserverRun.Status.FINISHED,
    )
    for key, design in DESIGNS.items():
        character, profile = character_written_for(key, design, audit=False)
        material = list(
            Memory.objects.filter(character=character)
            .order_by("sequence")
            .values_list("memory_id", flat=True)[:PASSAGES]
        )
        unit = ObserverUnit.objects.create(
            run=run,
            character=character,
            profile_version=profile,
            observer="claude",
            material=material,
            strata={"school_age|": PASSAGES},
            status=ObserverUnit.Status.SUCCEEDED,
        )
        ObserverRating.objects.bulk_create(
            ObserverRating(
                unit=unit, item_id=i["id"], trait=i["trait"], keying=i["keying"], value=4
            )
            for i in form.items
        )
    return run


def observer(name="obs-ana"):
    return UserFactory(username=name, roles=[Role.OBSERVER])


def secrets(run: ObserverRun) -> list[str]:
    """What an observer must never receive: the characters' keys, the profiles' texts
    and labels, the design numbers, every memory id of the run's characters."""
    found = []
    for unit in run.units.select_related("character", "profile_version"):
        profile = unit.profile_version
        found += [unit.character.key, profile.description, profile.self_value_logic]
        found += [profile.occupation, profile.construction_label, *profile.core_patterns]
        for value in profile.big_five.values():
            if value != 0.5:
                found += [f"{value:.2f}", str(value)]
        for memory in Memory.objects.filter(character=unit.character):
            found += [memory.memory_id, memory.anonymized_id]
    return sorted({s for s in found if s})


def answers(form, value_for) -> dict[str, str]:
    """The rating form's POST: statement position → value (``value_for(item)``)."""
    return {f"s{i}": str(value_for(item)) for i, item in enumerate(form.items, start=1)}
