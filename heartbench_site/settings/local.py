"""The one-command demo: SQLite, Celery in eager mode, no API keys.

The database is ``DATABASE_URL`` when it is set (in the environment or in ``.env``, as
for every settings module), else SQLite ``demo.sqlite3`` next to manage.py.
"""

import os
from pathlib import Path

import environ

DEMO_SQLITE = Path(__file__).resolve().parent.parent.parent / "demo.sqlite3"


def _dot_env_value(name: str) -> str:
    """``name`` as base.py would read it from ``.env``, without touching the environment."""

    class DotEnv(environ.Env):
        ENVIRON: dict = {}

    if environ.Env().bool("DJANGO_READ_DOT_ENV_FILE", default=True):
        DotEnv.read_env(DEMO_SQLITE.parent / ".env", overwrite=False)
    return DotEnv.ENVIRON.get(name, "")


if not (os.environ.get("DATABASE_URL") or _dot_env_value("DATABASE_URL")):
    os.environ["DATABASE_URL"] = f"sqlite:///{DEMO_SQLITE}"
os.environ.setdefault("SECRET_KEY", "demo-only-not-secret")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "true")
os.environ.setdefault("DEBUG", "true")
# Invitation and password reset mail is printed in the terminal running the demo.
os.environ.setdefault("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
# Candidate generation with no key: every family answers from the offline demo provider.
for _family in ("CLAUDE", "GPT", "GEMINI"):
    os.environ.setdefault(f"HEARTBENCH_{_family}_KIND", "offline_demo")
# Illustrative prices (USD per million tokens, issue #36) so the launch page's cost
# estimate and the run pages' costs are not all $0 in the demo; nothing is charged.
for _family in ("CLAUDE", "GPT", "GEMINI"):
    for _name, _price in (
        ("PRICE_IN", "3"),
        ("PRICE_OUT", "15"),
        ("ACTIVATION_PRICE_IN", "1"),
        ("ACTIVATION_PRICE_OUT", "5"),
    ):
        os.environ.setdefault(f"HEARTBENCH_{_family}_{_name}", _price)
# Character drafting and memory generation likewise.
for _stage in ("DRAFTING", "MEMORY"):
    os.environ.setdefault(f"HEARTBENCH_{_stage}_KIND", "offline_demo")
# And illustrative prices for every other stage that calls a model, so each launch
# page's estimate shows what such a run would cost (docs/lab-admin/costs.md).
for _stage in ("DRAFTING", "MEMORY", "AUDIT_REPAIR", "AUDIT_CLASSIFIER", "MCQ_SCREENER"):
    os.environ.setdefault(f"HEARTBENCH_{_stage}_PRICE_IN", "3")
    os.environ.setdefault(f"HEARTBENCH_{_stage}_PRICE_OUT", "15")
os.environ.setdefault("HEARTBENCH_EVAL_OFFLINE_DEMO_PRICE_IN", "3")
os.environ.setdefault("HEARTBENCH_EVAL_OFFLINE_DEMO_PRICE_OUT", "15")
# The memory audit's LLM classifier: a senior expert's edit passes re-evaluation by the
# LLM judge before it is accepted (seed 000 App. B.6), so a new user sees that step too.
os.environ.setdefault("HEARTBENCH_AUDIT_CLASSIFIER_KIND", "offline_demo")

from .base import *  # noqa: E402,F403
from .base import DATABASES  # noqa: E402

# SQLite takes one writer at a time. Two requests writing together (an answer's autosave
# and the page's "Save and go to the next item", issue 32) must wait for each other, not
# fail with "database is locked": every transaction takes the write lock when it begins
# (IMMEDIATE; a transaction that read first and then asked for it would be refused at once
# to avoid a deadlock, without waiting), and a request waits up to SQLITE_BUSY_SECONDS for
# it.
SQLITE_BUSY_SECONDS = 20
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        "timeout": SQLITE_BUSY_SECONDS,
        "transaction_mode": "IMMEDIATE",
    }
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# No collected static files here: Django's finders serve static/ (runserver, live_server).
MIDDLEWARE = [m for m in MIDDLEWARE if m != "whitenoise.middleware.WhiteNoiseMiddleware"]  # noqa: F405

# Eager tasks log one INFO line each; the demo's loader runs hundreds of them.
LOGGING["loggers"]["celery.app.trace"] = {"level": "WARNING"}  # noqa: F405
