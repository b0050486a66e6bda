"""Site hardening (issue #12): the deploy check, the Content-Security-Policy, login rate
limiting with an admin's way back in, and sessions that end."""

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from core.roles import Role
from tests.factories import DEFAULT_PASSWORD, UserFactory

ROOT = Path(__file__).resolve().parents[2]


def production_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SECURE_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="heartbench_site.settings.production",
        SECRET_KEY="a-long-random-production-key-" + "k9Vq2xT7bLmP4wRz" * 3,
        DATABASE_URL="postgres://u:p@db.invalid:5432/h",
        ALLOWED_HOSTS="heartbench.lab.example.org",
    )
    env.update(extra)
    return env


def manage(*args, env) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )


def test_deploy_check_is_clean_under_production_settings():
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=production_env())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_deploy_check_fails_on_a_weak_key_so_the_check_above_can_fail():
    result = manage(
        "check", "--deploy", "--fail-level", "WARNING", env=production_env(SECRET_KEY="short")
    )
    assert result.returncode != 0
    assert "security.W009" in result.stdout + result.stderr


def test_production_refuses_to_start_without_a_secret_key_in_the_environment():
    env = production_env()
    del env["SECRET_KEY"]
    # With .env reading off the environment is the only source (a checkout may hold a .env).
    env["DJANGO_READ_DOT_ENV_FILE"] = "false"
    result = manage("check", env=env)
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_ssl_redirect_can_be_left_to_a_tls_terminating_proxy():
    code = (
        "from django.conf import settings as s;"
        "print(s.SECURE_SSL_REDIRECT, s.SECURE_PROXY_SSL_HEADER, s.SESSION_COOKIE_SECURE,"
        " s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS > 0, s.DEBUG)"
    )
    for value, expected in (("", "True"), ("false", "False")):
        extra = {"SECURE_SSL_REDIRECT": value} if value else {}
        result = manage("shell", "--no-imports", "-c", code, env=production_env(**extra))
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip().splitlines()[-1].split() == [
            expected,
            "('HTTP_X_FORWARDED_PROTO',",
            "'https')",
            "True",
            "True",
            "True",
            "False",
        ]


@pytest.mark.django_db
def test_every_page_carries_a_strict_content_security_policy(client):
    UserFactory(username="csp-reader", roles=[Role.ARBITRATOR])
    client.force_login(UserFactory(username="csp-admin", roles=[Role.ADMIN], is_staff=True))
    for url in (reverse("login"), reverse("home"), reverse("api-docs"), "/admin/"):
        response = client.get(url)
        assert response.status_code == 200, url
        policy = dict(
            part.strip().split(" ", 1) for part in response["Content-Security-Policy"].split(";")
        )
        assert policy["script-src"] == "'self'", url
        assert policy["style-src"] == "'self'", url
        assert policy["object-src"] == "'none'"
        assert policy["frame-ancestors"] == "'none'"
        assert "unsafe-eval" not in response["Content-Security-Policy"]
        if "html" in response["Content-Type"]:
            body = response.content.decode()
            # No inline script: every <script> the page has names a file.
            for chunk in body.split("<script")[1:]:
                tag = chunk.split(">", 1)[0]
                assert "src=" in tag or "application/json" in tag, f"{url}: inline <script{tag}>"


@pytest.mark.django_db
def test_htmx_is_told_not_to_eval(client):
    client.force_login(UserFactory(username="csp-admin2", roles=[Role.ADMIN]))
    body = client.get(reverse("home")).content.decode()
    assert '"allowEval": false' in body
    assert '"includeIndicatorStyles": false' in body


def failed_logins(client, username, n):
    return [
        client.post(reverse("login"), {"username": username, "password": f"wrong-{i}"})
        for i in range(n)
    ]


@pytest.mark.django_db
def test_repeated_wrong_passwords_lock_the_account_with_a_clear_message():
    UserFactory(username="nadia", roles=[Role.PRIMARY_ANNOTATOR])
    client = Client()
    limit = settings.AXES_FAILURE_LIMIT
    before = failed_logins(client, "nadia", limit - 1)
    assert [r.status_code for r in before] == [200] * (limit - 1)
    assert all("Please enter a correct username and password" in r.content.decode() for r in before)

    locked = failed_logins(client, "nadia", 1)[0]
    assert locked.status_code == 429
    body = locked.content.decode()
    assert 'data-testid="lockout-message"' in body
    assert "Too many failed logins for <strong>nadia</strong>" in body
    assert f"{limit} wrong passwords in a row" in body
    assert "ask the study's admin to lift the lockout" in body

    # Locked means locked: even the right password is refused now.
    right = client.post(reverse("login"), {"username": "nadia", "password": DEFAULT_PASSWORD})
    assert right.status_code == 429
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_a_lockout_is_per_person_and_an_admin_lifts_it():
    UserFactory(username="nadia", roles=[Role.PRIMARY_ANNOTATOR])
    UserFactory(username="omar", roles=[Role.PRIMARY_ANNOTATOR])
    client = Client()
    failed_logins(client, "nadia", settings.AXES_FAILURE_LIMIT)
    # A colleague on the same machine still gets in.
    other = client.post(reverse("login"), {"username": "omar", "password": DEFAULT_PASSWORD})
    assert other.status_code == 302
    client.post(reverse("logout"))

    # The admin sees the lockout in Django admin and deletes it.
    admin = Client()
    admin.force_login(
        UserFactory(username="boss", roles=[Role.ADMIN], is_staff=True, is_superuser=True)
    )
    listing = admin.get("/admin/axes/accessattempt/")
    assert listing.status_code == 200
    assert "nadia" in listing.content.decode()
    from axes.models import AccessAttempt

    attempt = AccessAttempt.objects.get(username="nadia")
    assert attempt.failures_since_start == settings.AXES_FAILURE_LIMIT
    deleted = admin.post(
        f"/admin/axes/accessattempt/{attempt.pk}/delete/", {"post": "yes"}, follow=False
    )
    assert deleted.status_code == 302
    back = client.post(reverse("login"), {"username": "nadia", "password": DEFAULT_PASSWORD})
    assert back.status_code == 302 and back["Location"] == reverse("home")


@pytest.mark.django_db
def test_the_reset_command_also_lifts_a_lockout():
    UserFactory(username="nadia", roles=[Role.PRIMARY_ANNOTATOR])
    client = Client()
    failed_logins(client, "nadia", settings.AXES_FAILURE_LIMIT)
    call_command("axes_reset_username", "nadia", stdout=open(os.devnull, "w"))
    back = client.post(reverse("login"), {"username": "nadia", "password": DEFAULT_PASSWORD})
    assert back.status_code == 302


@pytest.mark.django_db
def test_a_successful_login_clears_earlier_failures():
    UserFactory(username="nadia", roles=[Role.PRIMARY_ANNOTATOR])
    client = Client()
    limit = settings.AXES_FAILURE_LIMIT
    failed_logins(client, "nadia", limit - 1)
    assert (
        client.post(
            reverse("login"), {"username": "nadia", "password": DEFAULT_PASSWORD}
        ).status_code
        == 302
    )
    client.post(reverse("logout"))
    assert [r.status_code for r in failed_logins(client, "nadia", limit - 1)] == [200] * (limit - 1)


@pytest.mark.django_db
def test_sessions_end_after_their_age_and_with_the_browser():
    assert settings.SESSION_COOKIE_AGE <= 12 * 60 * 60
    assert settings.SESSION_EXPIRE_AT_BROWSER_CLOSE
    UserFactory(username="nadia", roles=[Role.PRIMARY_ANNOTATOR])
    client = Client()
    response = client.post(reverse("login"), {"username": "nadia", "password": DEFAULT_PASSWORD})
    cookie = response.cookies[settings.SESSION_COOKIE_NAME]
    assert cookie["max-age"] == "" and cookie["expires"] == ""  # gone when the browser closes
    assert cookie["httponly"]
    assert client.get(reverse("home")).status_code == 200

    session = Session.objects.get(session_key=cookie.value)
    lifetime = session.expire_date - timezone.now()
    assert timedelta(seconds=settings.SESSION_COOKIE_AGE - 60) < lifetime
    assert lifetime <= timedelta(seconds=settings.SESSION_COOKIE_AGE)
    # Activity does not extend it.
    client.get(reverse("home"))
    session.refresh_from_db()
    assert session.expire_date - timezone.now() <= lifetime

    Session.objects.filter(pk=session.pk).update(expire_date=timezone.now() - timedelta(seconds=1))
    expired = client.get(reverse("home"))
    assert expired.status_code == 302
    assert expired["Location"].startswith(reverse("login"))
