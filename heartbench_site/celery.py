"""The Celery application. Tasks live in each app's ``celery_tasks.py``."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_site.settings.local")

app = Celery("heartbench")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(related_name="celery_tasks")
app.autodiscover_tasks(related_name="review_celery_tasks")
app.autodiscover_tasks(related_name="mcq_celery_tasks")
