"""The Celery application. Tasks live in each workflow package's ``celery_tasks.py``."""

import os

from celery import Celery

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
)

app = Celery("heartbench")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(lambda: TASK_PACKAGES, related_name="celery_tasks")
