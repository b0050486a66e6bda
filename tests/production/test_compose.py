"""docker-compose.yml cannot run here (no Docker engine): check that it runs the commands
the production rehearsal runs (tests/production/lab.py), gives its services the
environment the rehearsal gave its hosts, and names no variable the settings ignore."""

import importlib
import re
import sys
from pathlib import Path

import pytest
import yaml

from .lab import (
    GUNICORN_COMMAND,
    MAIL_ENV,
    SETTINGS,
    SHARED_ENV,
    WEB_ENV,
    WORKER_COMMAND,
)

ROOT = Path(__file__).resolve().parents[2]
# Read by others than our settings: Django's settings loader, and the first admin's
# `createsuperuser --noinput`.
NOT_SETTINGS = {"DJANGO_SETTINGS_MODULE"}


@pytest.fixture(scope="module")
def services():
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]


def settings_source() -> str:
    return "\n".join(p.read_text() for p in (ROOT / "heartbench_site" / "settings").glob("*.py"))


def test_web_and_worker_run_the_rehearsed_commands(services):
    web, worker = services["web"]["command"].split(), services["worker"]["command"].split()
    assert web[: len(GUNICORN_COMMAND)] == GUNICORN_COMMAND
    assert worker[: len(WORKER_COMMAND)] == WORKER_COMMAND
    assert services["migrate"]["command"] == ["python", "manage.py", "migrate", "--noinput"]


def test_services_get_the_environment_the_rehearsal_gave_its_hosts(services):
    for name in ("migrate", "web", "worker"):
        env = services[name]["environment"]
        assert set(SHARED_ENV) <= set(env), (name, sorted(set(SHARED_ENV) - set(env)))
        assert env["DJANGO_SETTINGS_MODULE"] == SETTINGS
    web_needs = {*WEB_ENV, *MAIL_ENV}
    assert web_needs <= set(services["web"]["environment"]), sorted(web_needs)
    # Mail is sent on a worker too (invitations, issue #36).
    assert set(MAIL_ENV) <= set(services["worker"]["environment"])


def test_every_variable_compose_sets_is_read_by_the_settings(services):
    source = settings_source()
    for name in ("migrate", "web", "worker"):
        for variable in services[name]["environment"]:
            if variable in NOT_SETTINGS:
                continue
            assert re.search(rf"""["']{variable}["']""", source), (
                f"{name} sets {variable}, which no settings file reads"
            )


def test_workers_can_be_scaled_on_one_host(services):
    """`docker compose up --scale worker=2` needs replicas that differ: no fixed
    container name, host name or published port, and no fixed Celery node name (each
    replica is then celery@<its container's host name>)."""
    worker = services["worker"]
    for key in ("container_name", "hostname", "ports"):
        assert key not in worker, key
    assert " -n " not in f" {worker['command']} " and "--hostname" not in worker["command"]


def test_production_reads_the_mail_server_from_the_environment(monkeypatch):
    for name, value in {
        "SECRET_KEY": "x" * 50,
        "DATABASE_URL": "postgres://u:p@db:5432/h",
        "EMAIL_HOST": "smtp.lab.example.org",
        "EMAIL_PORT": "587",
        "EMAIL_HOST_USER": "heartbench",
        "EMAIL_HOST_PASSWORD": "mail-secret",
        "EMAIL_USE_TLS": "true",
        "DEFAULT_FROM_EMAIL": "heartbench@lab.example.org",
    }.items():
        monkeypatch.setenv(name, value)
    # The test settings put mail in memory through the environment; a lab sets no backend.
    monkeypatch.delenv("EMAIL_BACKEND", raising=False)
    for module in (SETTINGS, SETTINGS.rsplit(".", 1)[0] + ".base"):
        sys.modules.pop(module, None)  # both read the environment when imported
    prod = importlib.import_module(SETTINGS)
    assert prod.EMAIL_BACKEND == "django.core.mail.backends.smtp.EmailBackend"
    assert (prod.EMAIL_HOST, prod.EMAIL_PORT) == ("smtp.lab.example.org", 587)
    assert (prod.EMAIL_HOST_USER, prod.EMAIL_HOST_PASSWORD) == ("heartbench", "mail-secret")
    assert prod.EMAIL_USE_TLS is True and prod.EMAIL_USE_SSL is False
    assert prod.DEFAULT_FROM_EMAIL == prod.SERVER_EMAIL == "heartbench@lab.example.org"
    static = prod.STORAGES["staticfiles"]["BACKEND"]
    assert static == "whitenoise.storage.CompressedManifestStaticFilesStorage"
