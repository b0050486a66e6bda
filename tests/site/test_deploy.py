"""The compose file cannot run here (no Docker engine); check it is a valid deployment."""

from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compose():
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_has_the_four_services_with_health_checks(compose):
    services = compose["services"]
    for name in ("web", "worker", "postgres", "redis"):
        assert name in services, f"docker-compose.yml lacks the {name} service"
        assert "healthcheck" in services[name], f"{name} has no health check"


def test_web_runs_gunicorn_and_worker_runs_celery_on_the_same_image(compose):
    services = compose["services"]
    assert services["web"]["command"].startswith("gunicorn heartbench_site.wsgi:application")
    assert services["worker"]["command"].startswith("celery -A heartbench_site worker")
    assert services["web"]["image"] == services["worker"]["image"]
    assert (ROOT / "Dockerfile").is_file()


def test_app_services_talk_to_the_compose_database_and_broker(compose):
    for name in ("web", "worker", "migrate"):
        env = compose["services"][name]["environment"]
        assert "@postgres:5432/" in env["DATABASE_URL"]
        assert env["CELERY_BROKER_URL"].startswith("redis://redis:6379")
        assert env["DJANGO_SETTINGS_MODULE"] == "heartbench_site.settings.production"
        assert compose["services"][name]["depends_on"]["postgres"]["condition"] == "service_healthy"


def test_data_lives_in_named_volumes(compose):
    assert {"pgdata", "redisdata"} <= set(compose["volumes"])
    assert "pgdata:/var/lib/postgresql/data" in compose["services"]["postgres"]["volumes"]


def test_production_settings_import_and_are_secure(monkeypatch):
    import importlib
    import sys

    monkeypatch.setenv("SECRET_KEY", "x" * 50)
    monkeypatch.setenv("DATABASE_URL", "postgres://u:p@db:5432/h")
    sys.modules.pop("heartbench_site.settings.production", None)
    prod = importlib.import_module("heartbench_site.settings.production")
    assert prod.DEBUG is False
    assert prod.SESSION_COOKIE_SECURE and prod.CSRF_COOKIE_SECURE
    assert prod.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
    assert r"^healthz$" in prod.SECURE_REDIRECT_EXEMPT


@pytest.mark.django_db
def test_healthz_answers_after_a_database_query(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_production_keeps_the_hardening_of_the_base_settings(monkeypatch):
    """CSP, login rate limiting and expiring sessions are in base.py; production must not
    lose them (tests/reliability/test_hardening.py checks their behaviour)."""
    import importlib
    import sys

    monkeypatch.setenv("SECRET_KEY", "x" * 50)
    monkeypatch.setenv("DATABASE_URL", "postgres://u:p@db:5432/h")
    sys.modules.pop("heartbench_site.settings.production", None)
    prod = importlib.import_module("heartbench_site.settings.production")
    assert "csp.middleware.CSPMiddleware" in prod.MIDDLEWARE
    assert prod.MIDDLEWARE[-1] == "axes.middleware.AxesMiddleware"
    assert prod.AUTHENTICATION_BACKENDS[0] == "axes.backends.AxesStandaloneBackend"
    assert prod.CONTENT_SECURITY_POLICY["DIRECTIVES"]["script-src"] == ["'self'"]
    assert prod.SESSION_COOKIE_NAME.startswith("__Host-") and prod.SESSION_COOKIE_HTTPONLY
    assert prod.SESSION_EXPIRE_AT_BROWSER_CLOSE and prod.SESSION_COOKIE_AGE <= 12 * 3600
    assert prod.SECURE_HSTS_SECONDS >= 365 * 24 * 3600 and prod.SECURE_SSL_REDIRECT
