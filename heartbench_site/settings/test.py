"""The test suite: real PostgreSQL and Redis started by scripts/services.sh (make test)."""

import os
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

os.environ.setdefault("SECRET_KEY", "test-only-not-secret")
os.environ.setdefault("DATABASE_URL", "postgres://heartbench@127.0.0.1:55432/heartbench")
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:56379/0")

from .base import *  # noqa: E402,F403
from .base import BASE_DIR, CELERY_BROKER_URL, DATABASES  # noqa: E402

# pytest-xdist runs the suite in several processes (gw0, gw1 …). pytest-django gives each
# its own test database (test_heartbench_gw0 …); each also gets its own Redis database as
# the broker, so a Celery worker started by one process never takes another's tasks (a
# subprocess that inherits PYTEST_XDIST_WORKER computes the same database; the suite's
# Celery workers are given the broker URL and run without it, see tests/conftest.py).
XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if XDIST_WORKER.startswith("gw"):
    _broker = urlsplit(CELERY_BROKER_URL)
    CELERY_BROKER_URL = urlunsplit(_broker._replace(path=f"/{int(XDIST_WORKER[2:]) % 15 + 1}"))
    # Celery reads the environment's CELERY_BROKER_URL before its configuration.
    os.environ["CELERY_BROKER_URL"] = CELERY_BROKER_URL

# Tests that build exports point this at their tmp_path (or the worker's environment).
EXPORT_ROOT = Path(
    os.environ.get("EXPORT_ROOT", BASE_DIR / "test-output" / "exports" / (XDIST_WORKER or "main"))
)

DATABASES["default"]["CONN_MAX_AGE"] = 0
# The fault tests' workers start seconds after the work was queued; a message sent just
# after its rows commit reaches Redis in milliseconds here.
HEARTBENCH_STRANDED_GRACE_SECONDS = 3
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# No collected static files here: Django's finders serve static/ (runserver, live_server).
MIDDLEWARE = [m for m in MIDDLEWARE if m != "whitenoise.middleware.WhiteNoiseMiddleware"]  # noqa: F405

# Django logs every 4xx answer as a warning with the exception's traceback; the suite's
# URL walks and fuzzing ask for tens of thousands of refusals, each formatted for the
# console and for pytest's log capture. A test reads the status code instead; server
# errors (5xx) are still logged.
LOGGING = {**LOGGING, "loggers": {**LOGGING["loggers"], "django.request": {"level": "ERROR"}}}  # noqa: F405
