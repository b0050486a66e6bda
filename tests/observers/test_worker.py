"""Observer runs through a real Celery worker and the fake provider on loopback (issue
37): a character whose memories were written for another vector is flagged, a faithful
one is not; every call is recorded and priced; the observer never sees the profile; the
report is computed by the worker."""

import time
from decimal import Decimal

import pytest

from audit.observers import prompts
from audit.observers.models import ObserverCall, ObserverRating, ObserverRun, ObserverUnit
from audit.observers.services import observer_run_create, observer_run_start
from audit.observers.stored_reports import KIND, key_for
from core.llm_runs.models import MILLION
from core.reports.services import report_for
from llm.testing import observer_replies
from tests.factories import UserFactory
from tests.generation.helpers import worker_env

from .helpers import character_written_for, inventory, vector

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

WAIT_SECONDS = 120
DESIGN = vector(N=0.95, C=0.3)


def wait_until(check, worker, what):
    deadline = time.monotonic() + WAIT_SECONDS
    while not check():
        assert time.monotonic() < deadline, f"waited {WAIT_SECONDS}s for {what}"
        assert worker.poll() is None, "the worker process died"
        time.sleep(0.2)


def test_a_planted_character_is_flagged_and_a_faithful_one_is_not(
    celery_worker_factory, observer_server, observer_families
):
    # The observers' own prices (USD per million tokens) stand in for the families'.
    env = worker_env(observer_server) | {
        "HEARTBENCH_OBSERVER_PRICE_IN": "2",
        "HEARTBENCH_OBSERVER_PRICE_OUT": "10",
    }
    worker = celery_worker_factory(extra_env=env)
    faithful, _ = character_written_for("CHAR_01", DESIGN)
    # Designed N high, but every memory was written for a calm, low-N person.
    planted, planted_profile = character_written_for(
        "CHAR_02", DESIGN, memories_for=vector(N=0.10, C=0.3)
    )
    run = observer_run_create(
        user=UserFactory(),
        inventory_id=inventory().pk,
        character_ids=[faithful.pk, planted.pk],
        sample_size=6,
        seed=11,
    )
    observer_run_start(run_id=run.pk)
    wait_until(lambda: ObserverRun.objects.get(pk=run.pk).status == "finished", worker, "the run")
    units = ObserverUnit.objects.filter(run=run)
    assert units.count() == 6 == units.filter(status="succeeded").count()
    assert ObserverRating.objects.filter(unit__run=run).count() == 6 * 15

    # Each unit showed six of its character's twelve memories, spread over the four
    # life stages (every stage before any gets a second memory: at least one each).
    for unit in units.select_related("character"):
        assert len(unit.material) == 6
        assert len(unit.strata) == 4 and sum(unit.strata.values()) == 6

    # Every call is recorded with its cost at the observers' price, and its
    # prompt carries none of the profile.
    for call in ObserverCall.objects.filter(unit__run=run).select_related("unit"):
        assert call.ok
        expected = (Decimal(call.tokens_in) * 2 + Decimal(call.tokens_out) * 10) / MILLION
        assert call.cost_usd == expected.quantize(Decimal("0.000001"))
        user = call.request["user"]
        assert prompts.MEMORIES_HEADING in user and prompts.ITEMS_HEADING in user
        profile = planted_profile
        for hidden in (profile.description, profile.self_value_logic, profile.occupation):
            assert hidden not in user and hidden not in call.request["system"]
        assert "0.95" not in user and "N_HIGH" not in user
    # The fake observer's headings are the prompt's.
    assert observer_replies.MEMORIES_HEADING == prompts.MEMORIES_HEADING
    assert observer_replies.ITEMS_HEADING == prompts.ITEMS_HEADING
    assert sum(u.cost_usd for u in units) > 0

    # The report is computed by the worker, not by the request that asks for it.
    view = report_for(KIND, key_for(run.pk))
    assert not view.ready
    wait_until(lambda: report_for(KIND, key_for(run.pk)).ready, worker, "the report")
    result = report_for(KIND, key_for(run.pk)).result
    rows = {row["key"]: row for row in result["characters"]}
    assert rows["CHAR_01"]["flags"] == []
    assert rows["CHAR_01"]["observed"]["N"] > 0.9
    (flag,) = rows["CHAR_02"]["flags"]
    assert flag["trait"] == "N" and flag["anchor"] == "N high"
    assert rows["CHAR_02"]["observed"]["N"] < 0.1
    # The conscientiousness both were written for (0.3, no anchor) reads low in both.
    assert rows["CHAR_01"]["observed"]["C"] < 0.5 and rows["CHAR_02"]["observed"]["C"] < 0.5
    assert result["flagged"] == 1
