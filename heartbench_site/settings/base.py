"""Settings shared by every environment; values come from the environment (django-environ).

Thin overrides live in ``local.py`` (the SQLite demo), ``test.py`` and ``production.py``.
"""

import os
from datetime import timedelta
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
# A .env file next to manage.py fills variables the environment lacks (docker compose's
# env_file does the same); DJANGO_READ_DOT_ENV_FILE=false makes the environment the only
# source.
if env.bool("DJANGO_READ_DOT_ENV_FILE", default=True):
    environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

# --- Core -------------------------------------------------------------------------------
SECRET_KEY = env("SECRET_KEY")
DEBUG = env.bool("DEBUG", default=False)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "template_partials",
    "crispy_forms",
    "crispy_bootstrap5",
    "core",
    # The team page, invitations and the record of mail (core/team, app label "team").
    "core.team",
    "heartbench_site",
    "annotation",
    "adjudication",
    "humanbaseline",
    "evaluation",
    "audit",
    # Hardening (heartbench_site/security.py): CSP header, login rate limiting.
    "csp",
    "axes",
    # The append-only decision history (core/history.py, /history/).
    "simple_history",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Records the signed-in person as the author of each historical row.
    "simple_history.middleware.HistoryRequestMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes requires: it turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "heartbench_site.urls"
WSGI_APPLICATION = "heartbench_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "heartbench_site.context_processors.roles",
            ],
        },
    }
]

# --- Database ---------------------------------------------------------------------------
# PostgreSQL everywhere; the one-command demo overrides this with SQLite (local.py).
DATABASES = {"default": env.db("DATABASE_URL")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Auth -------------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"
AUTHENTICATION_BACKENDS = [
    # django-axes first: it refuses a locked-out login before any password is checked.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Sessions end SESSION_COOKIE_AGE seconds after login (not extended by activity: a
# shared lab machine must not stay signed in all week) and when the browser closes.
SESSION_COOKIE_AGE = env.int("SESSION_COOKIE_AGE", default=60 * 60 * 12)
SESSION_EXPIRE_AT_BROWSER_CLOSE = env.bool("SESSION_EXPIRE_AT_BROWSER_CLOSE", default=True)
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
# The CSRF token reaches htmx from the page (hx-headers on <body>), never from the cookie.
CSRF_COOKIE_HTTPONLY = True

# --- Login rate limiting (django-axes) --------------------------------------------------
# AXES_FAILURE_LIMIT wrong passwords for one username from one address lock that pair out
# for AXES_COOLOFF_HOURS. Locking by username alone would let anyone lock a colleague
# out; by address alone, a lab behind one NAT would lock each other out. An admin lifts
# a lockout early in Django admin (Axes → Access attempts → delete) or with
# `manage.py axes_reset_username USERNAME`. Behind a TLS proxy set AXES_IPWARE_PROXY_COUNT
# so the client's address, not the proxy's, is counted.
AXES_ENABLED = env.bool("AXES_ENABLED", default=True)
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(hours=env.float("AXES_COOLOFF_HOURS", default=1.0))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
# The hour counts from the lock (the last failure before it): attempts made during the
# lockout, even with the right password, are refused and neither recorded nor extend it
# (issue #24; axes' default would restart the hour with each of them).
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_IPWARE_PROXY_COUNT = env.int("AXES_IPWARE_PROXY_COUNT", default=None)
AXES_VERBOSE = False

# --- Mail -------------------------------------------------------------------------------
# Invitations and password resets go out through this server, sent by a Celery worker
# (core.team.celery_tasks); each attempt is recorded and a failure shows on the team page.
# EMAIL_BACKEND is Django's SMTP backend unless told otherwise (the demo prints mail to the
# console, the tests keep it in memory).
EMAIL_BACKEND = env("EMAIL_BACKEND", default="django.core.mail.backends.smtp.EmailBackend")
EMAIL_HOST = env("EMAIL_HOST", default="localhost")
EMAIL_PORT = env.int("EMAIL_PORT", default=25)
EMAIL_HOST_USER = env("EMAIL_HOST_USER", default="")
EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD", default="")
EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=False)
EMAIL_USE_SSL = env.bool("EMAIL_USE_SSL", default=False)
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=30)
# Django's file backend (django.core.mail.backends.filebased.EmailBackend) writes each
# mail into this folder instead of sending it: a dry run, or a test's worker.
EMAIL_FILE_PATH = env("EMAIL_FILE_PATH", default=None)
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="heartbench <heartbench@localhost>")
SERVER_EMAIL = env("SERVER_EMAIL", default=DEFAULT_FROM_EMAIL)
# The address links in mail start with (https://bench.example.org). Empty: the host the
# admin's request came to, as the browser sent it.
SITE_URL = env("SITE_URL", default="")
# An invitation link works this many days after it was sent (or sent again).
HEARTBENCH_INVITATION_DAYS = env.int("HEARTBENCH_INVITATION_DAYS", default=7)
# Django's own password reset links work this long (seconds; Django's default is 3 days).
PASSWORD_RESET_TIMEOUT = env.int("PASSWORD_RESET_TIMEOUT", default=60 * 60 * 24)

# --- I18N -------------------------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = env("TIME_ZONE", default="UTC")
USE_I18N = True
USE_TZ = True

# --- Static files: everything is vendored under static/, never loaded from a CDN ---------
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = env.path("STATIC_ROOT", default=BASE_DIR / "staticfiles")
# Export jobs' zips (adjudication.export.jobs), kept to be downloaded again.
EXPORT_ROOT = env.path("EXPORT_ROOT", default=BASE_DIR / "media" / "exports")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# --- Forms ------------------------------------------------------------------------------
CRISPY_ALLOWED_TEMPLATE_PACKS = "bootstrap5"
CRISPY_TEMPLATE_PACK = "bootstrap5"

# --- REST API ---------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "core.api.ApiPagination",
    "PAGE_SIZE": 50,
    # A service's ValidationError answers 400 with its own messages (issue #23).
    "EXCEPTION_HANDLER": "core.api.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "heartbench API",
    "DESCRIPTION": "Corpus, annotation and adjudication records of a HEART-Bench-style benchmark.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Every body gets an example: hand-written beside the view, or one from its schema.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "core.schema_examples.add_missing_examples",
    ],
    # Swagger UI is served from the sidecar package: lab machines may be offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Several workflows have a "status" field with choices of their own: name each enum.
    "ENUM_NAME_OVERRIDES": {
        "DraftingJobStatusEnum": "annotation.character_drafting.models.DraftingJob.STATUS_CHOICES",
        "CharacterDraftStatusEnum": "annotation.character_drafting.models.CharacterDraft.Status",
        "ImportJobStatusEnum": "annotation.corpus_import.models.ImportJob.Status",
        "BaselineStudyStatusEnum": "humanbaseline.models.BaselineStudy.Status",
        "ExportJobKindEnum": "adjudication.export.models.ExportJob.Kind",
        "DraftingJobKindEnum": "annotation.character_drafting.models.DraftingJob.Kind",
        "RatingEnum": "annotation.comparison.models.Rating",
        "SuitabilityEnum": "annotation.comparison.models.Suitability",
        "OptionLabelEnum": "adjudication.mcq.models.OPTION_LABELS",
    },
}

# --- Celery -----------------------------------------------------------------------------
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="redis://127.0.0.1:6379/0")
CELERY_RESULT_BACKEND = env("CELERY_RESULT_BACKEND", default=None)
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]

# --- Candidate generation (seed 000 §2.4 Stage 1, App. D.1) ----------------------------
# One provider per model family, read by llm.ProviderConfig.from_env from
# HEARTBENCH_<FAMILY>_* (KIND, API_KEY, BASE_URL, MODEL, TIMEOUT, MAX_RETRIES,
# CONCURRENCY, ...; see llm/README.md). MODEL writes the response (App. L.5.3);
# ACTIVATION_MODEL screens and re-ranks memories (App. L.5.1-2). PRICE_IN/PRICE_OUT and
# ACTIVATION_PRICE_IN/_OUT are USD per million tokens for the cost estimate (0 = unknown).
# A family is configured when its KIND, API_KEY or BASE_URL is set; keys stay in the
# environment, never in the database.
GENERATION_FAMILY_DEFAULTS = {
    # family: (env prefix, default kind, response model, activation model), App. D.1
    "claude": ("HEARTBENCH_CLAUDE", "anthropic", "claude-sonnet-4-6", "claude-haiku-4-5"),
    "gpt": ("HEARTBENCH_GPT", "openai", "gpt-5.4", "gpt-5.4-mini"),
    "gemini": ("HEARTBENCH_GEMINI", "gemini", "gemini-3.1-pro-preview", "gemini-3-flash-preview"),
}


def _generation_families(environ) -> dict:
    from decimal import Decimal

    from llm import ProviderConfig

    families = {}
    for family, (prefix, kind, model, activation_model) in GENERATION_FAMILY_DEFAULTS.items():
        if not any(environ.get(f"{prefix}_{name}") for name in ("KIND", "API_KEY", "BASE_URL")):
            continue
        # The offline demo names itself ("offline-demo-<family>"), never a real model it
        # is not; the name differs per family, so the three families answer differently.
        demo = (environ.get(f"{prefix}_KIND") or kind) == "offline_demo"
        defaults = {"model": f"offline-demo-{family}"} if demo else {"model": model}
        response = ProviderConfig.from_env(prefix, environ, kind=kind, **defaults)
        activation = response.with_options(
            model=environ.get(f"{prefix}_ACTIVATION_MODEL")
            or (response.model if demo else activation_model)
        )
        families[family] = {
            "response": response,
            "activation": activation,
            "price_in": Decimal(environ.get(f"{prefix}_PRICE_IN") or "0"),
            "price_out": Decimal(environ.get(f"{prefix}_PRICE_OUT") or "0"),
            "activation_price_in": Decimal(environ.get(f"{prefix}_ACTIVATION_PRICE_IN") or "0"),
            "activation_price_out": Decimal(environ.get(f"{prefix}_ACTIVATION_PRICE_OUT") or "0"),
        }
    return families


HEARTBENCH_GENERATION_FAMILIES = _generation_families(os.environ)
# Character drafting: model calls per draft before it is reported failed (App. L.2).
HEARTBENCH_DRAFTING_MAX_ATTEMPTS = env.int("HEARTBENCH_DRAFTING_MAX_ATTEMPTS", default=3)
# The query parameter of a SONA invitation link that carries the participant's id
# (the study's URL in SONA ends with ...?<param>=%SURVEY_CODE%).
HEARTBENCH_SONA_ID_PARAM = env.str("HEARTBENCH_SONA_ID_PARAM", default="sona_id")
# --- Embedding retriever of evaluation runs (seed 000 §3.1, App. E) ---------------------
# An OpenAI-compatible POST {BASE_URL}/embeddings endpoint serving an embedding model (the
# paper: Qwen3-Embedding-4B; a lab serves it locally, nothing is downloaded at run time).
# With BASE_URL or MODEL unset the "embedding" retriever is not offered and BM25 stays the
# offline default. DIMENSIONS unset: the model's own vector size (else sent as
# "dimensions"); BATCH_SIZE: texts per request; TIMEOUT (s) and MAX_RETRIES per request
# follow the llm clients. The key stays in the environment, never in the database.
HEARTBENCH_EMBEDDING_BASE_URL = env.str("HEARTBENCH_EMBEDDING_BASE_URL", default="")
HEARTBENCH_EMBEDDING_MODEL = env.str("HEARTBENCH_EMBEDDING_MODEL", default="")
HEARTBENCH_EMBEDDING_API_KEY = env.str("HEARTBENCH_EMBEDDING_API_KEY", default="")
HEARTBENCH_EMBEDDING_DIMENSIONS = env.int("HEARTBENCH_EMBEDDING_DIMENSIONS", default=None)
HEARTBENCH_EMBEDDING_BATCH_SIZE = env.int("HEARTBENCH_EMBEDDING_BATCH_SIZE", default=32)
HEARTBENCH_EMBEDDING_TIMEOUT = env.float("HEARTBENCH_EMBEDDING_TIMEOUT", default=60.0)
HEARTBENCH_EMBEDDING_MAX_RETRIES = env.int("HEARTBENCH_EMBEDDING_MAX_RETRIES", default=4)
# MCQ screening (App. D.3.1): the supporting memories' narratives (content_full) reach the
# judge within this many approximate tokens in all (adjudication/mcq/screening.py says how
# they are counted and what is cut first). 48,000 lets all 50 activated narratives of up
# to ~3,800 characters each through whole (a full-scale memory with its annotations is
# ~3,300) and caps the outliers (B.6 flags narratives over 10,000 characters).
HEARTBENCH_SCREENING_MEMORY_TOKEN_BUDGET = env.int(
    "HEARTBENCH_SCREENING_MEMORY_TOKEN_BUDGET", default=48_000
)
# Memory audit: distinct memory reviewers who must agree to a false-positive override
# (App. B.6: the three reviewers judged them unanimously).
HEARTBENCH_MEMORY_AUDIT_OVERRIDE_TEAM = env.int("HEARTBENCH_MEMORY_AUDIT_OVERRIDE_TEAM", default=3)
# Generation tasks are acks_late: a task whose worker died (SIGKILL, a lost machine) is
# handed to another worker once Redis has held it unacknowledged this long. A unit is
# idempotent, so a redelivery while the first delivery still runs costs calls, not data.
# Redis looks for such tasks every interval × throttle seconds (kombu's defaults: 10 × 10).
# Each look holds a mutex in Redis; a worker killed while holding it stops every other
# worker's looks until the mutex expires (kombu's default: 300 s).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=3600),
    "unacked_restore_interval": env.int("CELERY_UNACKED_RESTORE_INTERVAL", default=10),
    "unacked_restore_throttle": env.int("CELERY_UNACKED_RESTORE_THROTTLE", default=10),
    "unacked_mutex_expire": env.int("CELERY_UNACKED_MUTEX_EXPIRE", default=300),
}

# The stranded-work sweep (core.tasks.resend_stranded) leaves a pending unit written less
# than this many seconds ago: its message may still be on its way (work is queued just
# after its rows commit), and sending it again would run it twice. It looks again this
# much later.
HEARTBENCH_STRANDED_GRACE_SECONDS = env.int("HEARTBENCH_STRANDED_GRACE_SECONDS", default=30)

# A stored statistics report (core.reports) whose computation failed is queued again when
# its inputs change, or otherwise at most once per this many seconds (not on every view).
HEARTBENCH_REPORT_RETRY_SECONDS = env.int("HEARTBENCH_REPORT_RETRY_SECONDS", default=60)

# --- Uploads ----------------------------------------------------------------------------
# A full-scale characters file (11 x 1,000 memories of ~3,300 characters) is ~40 MB.
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", default=200 * 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = env.int("FILE_UPLOAD_MAX_MEMORY_SIZE", default=10 * 1024 * 1024)

# --- Content-Security-Policy (django-csp) -----------------------------------------------
# Scripts only from our own static files: no inline <script>, no on*= handlers, no eval
# (htmx runs with allowEval off, see templates/base.html). Style sheets only from static/
# too; style *attributes* are allowed (style-src-attr) because progress bars carry their
# width as style="width: …%" and htmx swaps such fragments in. An attribute cannot load a
# resource or run script. Bootstrap's icons are data: SVGs, hence img-src data:.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "style-src-attr": ["'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

# --- Logging ----------------------------------------------------------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    # django-axes logs every login at INFO; failures and lockouts are WARNING.
    "loggers": {"axes": {"level": env("AXES_LOG_LEVEL", default="WARNING")}},
}
