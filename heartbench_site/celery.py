"""The Celery application. Tasks live in each workflow package's ``celery_tasks.py``."""

import logging
import os

from celery import Celery, bootsteps

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_site.settings.local")

# Every package that holds a ``celery_tasks`` module, in pipeline order.
TASK_PACKAGES = (
    "annotation.corpus_import",
    "annotation.scenario_review",
    "annotation.generation",
    "audit.memory_quality",
    "adjudication.mcq",
    "adjudication.judging",
    "evaluation",
    "humanbaseline",
    "adjudication.export",
)

app = Celery("heartbench")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(lambda: TASK_PACKAGES, related_name="celery_tasks")


class ResendStrandedWork(bootsteps.StartStopStep):
    """When the worker's consumer connects (at start, and again after the broker came
    back), queue one sweep for work whose message the broker lost
    (``core.tasks.resend_stranded``)."""

    requires = {"celery.worker.consumer.tasks:Tasks"}

    def start(self, consumer):
        try:
            consumer.app.send_task("heartbench_site.resend_stranded")
        except Exception:  # the sweep is a safety net: never stop the consumer for it
            logging.getLogger(__name__).exception("could not queue the stranded-work sweep")


app.steps["consumer"].add(ResendStrandedWork)
