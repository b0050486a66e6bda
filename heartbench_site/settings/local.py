"""The one-command demo: SQLite, Celery in eager mode, no API keys."""

import os

os.environ.setdefault("SECRET_KEY", "demo-only-not-secret")
os.environ.setdefault("DATABASE_URL", "sqlite:///demo.sqlite3")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "true")
os.environ.setdefault("DEBUG", "true")
# Candidate generation with no key: every family answers from the offline demo provider.
for _family in ("CLAUDE", "GPT", "GEMINI"):
    os.environ.setdefault(f"HEARTBENCH_{_family}_KIND", "offline_demo")

from .base import *  # noqa: E402,F403
from .base import BASE_DIR, DATABASES  # noqa: E402

if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    DATABASES["default"]["NAME"] = str(BASE_DIR / "demo.sqlite3")
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {"timeout": 20}
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# No collected static files here: Django's finders serve static/ (runserver, live_server).
MIDDLEWARE = [m for m in MIDDLEWARE if m != "whitenoise.middleware.WhiteNoiseMiddleware"]  # noqa: F405

# Eager tasks log one INFO line each; the demo's loader runs hundreds of them.
LOGGING["loggers"]["celery.app.trace"] = {"level": "WARNING"}  # noqa: F405
