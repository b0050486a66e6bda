"""The stranded-work sweep (core.tasks.resend_stranded) against the real Redis broker: a
pending unit with no message is sent again only once it is older than the grace period;
a younger one may have its message on the way (work is queued just after its rows
commit), so the sweep looks again later instead of running it twice."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.generation.models import GenerationRun, GenerationUnit
from annotation.generation.services.runs import generation_run_create, generation_run_start
from core.tasks import broker_messages, resend_stranded
from tests.factories import UserFactory
from tests.generation.test_worker import corpus

pytestmark = pytest.mark.django_db

UNIT_TASK = "annotation.execute_generation_unit"
SWEEP_TASK = "heartbench_site.resend_stranded"


@pytest.fixture
def broker():
    """The test process's own Redis database, empty before and after."""
    from heartbench_site.celery import app

    def empty():
        with app.connection_for_write() as connection:
            connection.default_channel.client.flushdb()

    empty()
    yield app
    empty()


@pytest.fixture
def started_run(demo_providers):
    """A running run whose units are pending and have no message (the test's transaction
    never commits, so the messages queued on commit are never sent)."""
    from heartbench_site.celery import app

    corpus(characters=1, scenarios=2)
    run = generation_run_create(user=UserFactory(), families=["claude", "gpt"])
    generation_run_start(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == GenerationRun.Status.RUNNING
    # The providers answer offline, as in the demo; the sweep sends through the broker.
    app.conf.task_always_eager = False
    return run


def test_a_unit_written_moments_ago_is_left_and_the_sweep_looks_again(broker, started_run):
    assert resend_stranded(broker) == 0
    # Nothing sent for the units; one later sweep queued instead.
    assert broker_messages(broker) == {(SWEEP_TASK, ())}


def test_a_unit_older_than_the_grace_period_is_sent_again_once(broker, started_run, settings):
    units = GenerationUnit.objects.filter(run=started_run)
    past = timezone.now() - timedelta(seconds=settings.HEARTBENCH_STRANDED_GRACE_SECONDS + 5)
    units.update(updated_at=past)
    assert resend_stranded(broker) == units.count() == 4
    expected = {(UNIT_TASK, (pk,)) for pk in units.values_list("pk", flat=True)}
    assert broker_messages(broker) == expected  # and no later sweep
    # A second sweep finds each message in the broker and sends nothing.
    assert resend_stranded(broker) == 0
    assert broker_messages(broker) == expected
