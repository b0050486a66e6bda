"""API tokens (issue #23): made by their owner, shown once, revocable, replaced as a whole,
and obtained with a password only under the login page's lockout."""

import re

import pytest
from axes.models import AccessAttempt
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from core.roles import Role
from tests.factories import DEFAULT_PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


def me_status(key: str) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client.get(reverse("api-me")).status_code


def shown_key(html: str) -> str:
    keys = re.findall(r'value="([0-9a-f]{40})" data-testid="token-key"', html)
    assert len(keys) == 1, html
    return keys[0]


def test_the_page_shows_a_new_token_once_and_it_acts_as_its_owner():
    user = UserFactory(username="scripter", roles=[Role.ARBITRATOR])
    browser = Client()
    browser.force_login(user)
    page = browser.get(reverse("account-token")).content.decode()
    assert "You have no API token." in page

    made = browser.post(reverse("account-token"), {"action": "create"}).content.decode()
    key = shown_key(made)
    assert Token.objects.get(user=user).key == key
    assert me_status(key) == 200

    again = browser.get(reverse("account-token")).content.decode()
    assert key not in again  # shown once: afterwards only its last four characters
    assert f"…{key[-4:]}" in again


def test_replacing_a_token_stops_the_old_one_and_revoking_stops_it_at_once():
    user = UserFactory(username="rotator", roles=[Role.PRIMARY_ANNOTATOR])
    browser = Client()
    browser.force_login(user)
    first = shown_key(browser.post(reverse("account-token"), {"action": "create"}).content.decode())
    second = shown_key(
        browser.post(reverse("account-token"), {"action": "create"}).content.decode()
    )
    assert first != second
    assert me_status(first) in (401, 403)
    assert me_status(second) == 200

    browser.post(reverse("account-token"), {"action": "revoke"})
    assert not Token.objects.filter(user=user).exists()
    assert me_status(second) in (401, 403)


def test_the_page_needs_a_session_and_its_csrf_token():
    user = UserFactory(username="csrf-user", roles=[Role.ARBITRATOR])
    anonymous = Client()
    assert anonymous.get(reverse("account-token")).status_code == 302
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)
    assert strict.post(reverse("account-token"), {"action": "create"}).status_code == 403
    assert not Token.objects.filter(user=user).exists()


def test_a_script_gets_a_token_with_its_password_and_revokes_it():
    UserFactory(username="pipeline-bot", roles=[Role.ADMIN])
    client = APIClient()
    answer = client.post(
        reverse("api-token"),
        {"username": "pipeline-bot", "password": DEFAULT_PASSWORD},
        format="json",
    )
    assert answer.status_code == 201, answer.content
    key = answer.json()["token"]
    assert me_status(key) == 200

    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.delete(reverse("api-token")).status_code == 204
    assert me_status(key) in (401, 403)


def test_wrong_passwords_lock_the_token_endpoint_as_they_lock_the_login_page(settings):
    UserFactory(username="guessed", roles=[Role.ADMIN])
    client = APIClient()
    url = reverse("api-token")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        wrong = client.post(url, {"username": "guessed", "password": "nope"}, format="json")
        assert wrong.status_code == 400
        assert wrong.json() == {"detail": "Wrong username or password."}
    locking = client.post(url, {"username": "guessed", "password": "nope"}, format="json")
    assert locking.status_code == 429
    # Locked: even the right password gets no token, and the answer is JSON saying why.
    locked = client.post(url, {"username": "guessed", "password": DEFAULT_PASSWORD}, format="json")
    assert locked.status_code == 429
    assert "locked" in locked.json()["detail"]
    assert not Token.objects.filter(user__username="guessed").exists()
    # The same lockout holds on the login page: one record, counted per username and address.
    assert AccessAttempt.objects.filter(username="guessed").count() == 1
    page = Client().post(reverse("login"), {"username": "guessed", "password": DEFAULT_PASSWORD})
    assert page.status_code == 429


def test_a_request_without_credentials_names_what_is_missing():
    answer = APIClient().post(reverse("api-token"), {"username": "x"}, format="json")
    assert answer.status_code == 400
    assert answer.json() == {"detail": "Send your username and password."}


def test_the_admin_lists_tokens_by_owner_never_by_key():
    owner = UserFactory(username="token-owner", roles=[Role.ARBITRATOR])
    key = Token.objects.create(user=owner).key
    admin_user = UserFactory(
        username="site-admin", roles=[Role.ADMIN], is_staff=True, is_superuser=True
    )
    browser = Client()
    browser.force_login(admin_user)
    listing = browser.get("/admin/authtoken/tokenproxy/")
    assert listing.status_code == 200
    body = listing.content.decode()
    assert "token-owner" in body and key not in body


def test_a_baseline_participant_gets_no_token_by_page_or_password():
    participant = UserFactory(username="undergrad-7", roles=[Role.BASELINE_PARTICIPANT])
    browser = Client()
    browser.force_login(participant)
    assert browser.get(reverse("account-token")).status_code == 403
    assert "API token" not in browser.get(reverse("home")).content.decode()
    answer = APIClient().post(
        reverse("api-token"),
        {"username": "undergrad-7", "password": DEFAULT_PASSWORD},
        format="json",
    )
    assert answer.status_code == 403
    assert "baseline participants" in answer.json()["detail"]
    assert not Token.objects.filter(user=participant).exists()


@pytest.mark.parametrize("field", ["username", "password"])
def test_a_control_character_in_the_credentials_is_refused_before_the_database(field):
    UserFactory(username="plain", roles=[Role.ARBITRATOR])
    sent = {"username": "plain", "password": DEFAULT_PASSWORD}
    sent[field] += "\x00"
    answer = APIClient().post(reverse("api-token"), sent, format="json")
    assert answer.status_code == 400
    assert "control character" in answer.json()["detail"]
    assert not Token.objects.exists()
    assert not AccessAttempt.objects.exists()


@pytest.mark.parametrize("body", ["null", "[]", '"annotator1"', "7"])
def test_a_body_that_is_not_an_object_is_refused_with_a_message(body):
    answer = APIClient().post(reverse("api-token"), body, content_type="application/json")
    assert answer.status_code == 400
    assert answer.json() == {"detail": "Send your username and password."}
