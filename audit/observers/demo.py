"""A finished observer run for the one-command demo (Celery eager, offline demo provider:
settings/local.py sets HEARTBENCH_<FAMILY>_KIND=offline_demo), on up to
``DEMO_CHARACTERS`` characters with a frozen profile, with its report computed.

The offline demo provider fills the answer schema with seeded placeholder ratings that
do not read the memories: the demo shows the pages, not a finding (the guide says so).
"""

from pathlib import Path

from django.db import transaction

from annotation.corpus.models import Character
from audit.observers import sampling, selectors, services, stored_reports
from audit.observers.models import ObserverInventory, ObserverRun
from core.protocol import PROTOCOL_SEED
from core.reports.services import compute_if_stale

SHORT_FORM = Path(__file__).with_name("short_form.json")
DEMO_NOTE = "Demo observer run (offline demo provider: placeholder ratings)."
DEMO_CHARACTERS = 4
DEMO_SAMPLE_SIZE = 8


def shipped_inventory(user=None) -> ObserverInventory:
    """The project's own short form, loaded once."""
    from audit.observers.inventory import parse_inventory

    parsed = parse_inventory(SHORT_FORM.read_bytes())
    found = ObserverInventory.objects.filter(name=parsed.name, version=parsed.version).first()
    if found is not None:
        return found
    return services.inventory_load(
        content=SHORT_FORM.read_bytes(), file_name=SHORT_FORM.name, user=user
    )


def demo_observer_run(*, user) -> None:
    """Once committed: the shipped inventory, and one observer run on the first demo
    characters with a frozen profile, its report computed. Idempotent: nothing happens
    when the demo run exists. Refuses anything but the offline demo provider."""
    transaction.on_commit(lambda: _launch(user))


def _launch(user) -> ObserverRun | None:
    if ObserverRun.objects.filter(note=DEMO_NOTE).exists():
        return None
    configs = services.observer_family_configs()
    if not configs:
        return None
    if not all(config.is_demo for config in configs.values()):
        raise services.ObserverRunError(
            "The demo observer run uses the offline demo provider only; set "
            "HEARTBENCH_<FAMILY>_KIND=offline_demo (settings/local.py does)."
        )
    inventory = shipped_inventory(user)
    frozen = selectors.frozen_profiles()
    characters = [
        character.pk
        for character in Character.objects.filter(pk__in=list(frozen)).order_by("key")
        if sampling.memory_pieces(character)
    ][:DEMO_CHARACTERS]
    if not characters:
        return None
    with transaction.atomic():
        run = services.observer_run_create(
            user=user,
            inventory_id=inventory.pk,
            character_ids=characters,
            sample_size=DEMO_SAMPLE_SIZE,
            seed=PROTOCOL_SEED,
            note=DEMO_NOTE,
        )
        services.observer_run_start(run_id=run.pk)
    # Celery is eager in the demo: the units run when the transaction commits, and the
    # report is computed after them (queued behind them, also when the build runs inside
    # an outer transaction whose commit callbacks run at its end).
    key = stored_reports.key_for(run.pk)
    transaction.on_commit(lambda: compute_if_stale(stored_reports.KIND, key))
    return run


def demo_human_observer(*, observer) -> None:
    """Once the demo observer run has finished: ``observer`` (the demo's observer
    account) is asked to rate its first character, one open task. Idempotent."""
    transaction.on_commit(lambda: _ask_person(observer, wait=True))


def _ask_person(observer, *, wait: bool) -> None:
    from audit.observers.human import ASSIGNABLE, human_observers_assign

    run = ObserverRun.objects.filter(note=DEMO_NOTE).order_by("pk").first()
    if run is None:
        return
    if run.status not in ASSIGNABLE:
        # Inside an outer transaction (the tests' demo build) the run's units run in the
        # commit callbacks queued after this one: ask again behind them, once.
        if wait:
            transaction.on_commit(lambda: _ask_person(observer, wait=False))
        return
    first = run.units.order_by("character__key").values_list("character_id", flat=True).first()
    if first is not None:
        human_observers_assign(run_id=run.pk, users=[observer], character_ids=[first])
