"""A finished judge run for the one-command demo (Celery eager, offline demo provider:
settings/local.py sets HEARTBENCH_<FAMILY>_KIND=offline_demo), on the demo pairs that
the three annotators have judged (``adjudication.consensus.demo``)."""

from django.db import transaction

from adjudication.judging import stored_reports
from adjudication.judging.models import JudgeRun
from adjudication.judging.selectors import judge_eligible_pairs
from adjudication.judging.services.runs import (
    JudgeRunError,
    judge_provider_configs,
    judge_run_create,
    judge_run_start,
)
from annotation.generation.models import ModelFamily
from core.protocol import PROTOCOL_SEED
from core.reports.services import report_for

DEMO_JUDGE_NAME = "Demo judge (offline demo provider)"
DEMO_ORDERS_PER_PAIR = 2
# The comparison demo stages its pairs once the generation run's tasks have committed;
# wait for it as often as it waits for them.
STAGING_ATTEMPTS = 5


def demo_judge_run(*, user) -> None:
    """Once the demo's judged pairs exist (after commit), create and run a judge run on
    them with two candidate orders per pair. Idempotent: nothing happens when a demo
    judge run exists. Refuses anything but the offline demo provider."""
    _when_ready(user=user, attempts=STAGING_ATTEMPTS)


def _when_ready(*, user, attempts: int) -> None:
    def launch():
        if JudgeRun.objects.filter(name=DEMO_JUDGE_NAME).exists():
            return
        if not judge_eligible_pairs().exists():
            if attempts > 1:
                _when_ready(user=user, attempts=attempts - 1)
            return
        _launch(user)

    transaction.on_commit(launch)


def _launch(user) -> JudgeRun:
    configs = judge_provider_configs()
    family = next((f for f in ModelFamily.values if f in configs), None)
    if family is None or not configs[family].is_demo:
        raise JudgeRunError(
            "The demo judge run uses the offline demo provider only; set "
            "HEARTBENCH_<FAMILY>_KIND=offline_demo (settings/local.py does)."
        )
    with transaction.atomic():
        run = judge_run_create(
            user=user,
            name=DEMO_JUDGE_NAME,
            provider_family=family,
            seed=PROTOCOL_SEED,
            orders_per_pair=DEMO_ORDERS_PER_PAIR,
            note="Every demo pair its three annotators judged, in two candidate orders.",
        )
        judge_run_start(run_id=run.pk)
    # Celery is eager in the demo: the calls ran when the transaction committed. The
    # calibration report is queued after them, so a new user finds it computed.
    report_for(stored_reports.KIND, stored_reports.key_for(run.pk))
    return run
