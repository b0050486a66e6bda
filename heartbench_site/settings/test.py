"""The test suite: real PostgreSQL and Redis started by scripts/test-services.sh."""

import os
from pathlib import Path

os.environ.setdefault("SECRET_KEY", "test-only-not-secret")
os.environ.setdefault("DATABASE_URL", "postgres://heartbench@127.0.0.1:55432/heartbench")
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:56379/0")

from .base import *  # noqa: E402,F403
from .base import BASE_DIR, DATABASES  # noqa: E402

# Tests that build exports point this at their tmp_path (or the worker's environment).
EXPORT_ROOT = Path(os.environ.get("EXPORT_ROOT", BASE_DIR / "test-output" / "exports"))

DATABASES["default"]["CONN_MAX_AGE"] = 0
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# No collected static files here: Django's finders serve static/ (runserver, live_server).
MIDDLEWARE = [m for m in MIDDLEWARE if m != "whitenoise.middleware.WhiteNoiseMiddleware"]  # noqa: F405
