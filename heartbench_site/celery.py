"""The Celery application. Tasks live in each workflow package's ``celery_tasks.py``."""

import logging
import os

from celery import Celery, bootsteps

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_site.settings.local")

# Every package that holds a ``celery_tasks`` module, in pipeline order (a test checks the
# list against the tree: tests/site/test_task_registry.py).
TASK_PACKAGES = (
    "core.reports",
    "core.team",
    "annotation.corpus_import",
    "annotation.scenario_review",
    "annotation.character_drafting",
    "annotation.memory_generation",
    "annotation.generation",
    "audit.memory_quality",
    "adjudication.mcq",
    "adjudication.judging",
    "audit.observers",
    "evaluation",
    "humanbaseline",
    "audit.hygiene",
    "adjudication.export",
)

# The modules that define tasks: a worker imports them at start (so it registers every
# task without relying on Django's checks importing the URLconf), and
# ``core.tasks.registered_task`` imports them in a process that queues a task by name
# before any of them was imported.
TASK_MODULES = ("core.tasks", *(f"{package}.celery_tasks" for package in TASK_PACKAGES))

app = Celery("heartbench")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.imports = TASK_MODULES


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
