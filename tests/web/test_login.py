"""The login page: a styled form, focus on the username, a clear message on failure."""

from django.urls import reverse

from core.roles import Role
from tests.factories import DEFAULT_PASSWORD


def test_login_page_has_an_autofocused_username_field(client, db):
    body = client.get(reverse("login")).content.decode()
    assert "Log in to heartbench" in body
    username = body[body.index('name="username"') - 200 : body.index('name="username"') + 200]
    assert "autofocus" in username
    assert 'class="form-control' in body or "form-control" in username
    assert 'type="password"' in body


def test_a_wrong_password_gets_a_clear_message(client, make_user):
    make_user(Role.ARBITRATOR, username="senior")
    response = client.post(reverse("login"), {"username": "senior", "password": "nope"})
    assert response.status_code == 200
    body = response.content.decode()
    assert 'data-testid="login-error"' in body
    assert "Please enter a correct username and password" in body


def test_logging_in_lands_on_home_or_next(client, make_user):
    make_user(Role.ARBITRATOR, username="senior")
    response = client.post(reverse("login"), {"username": "senior", "password": DEFAULT_PASSWORD})
    assert response["Location"] == reverse("home")
    client.logout()
    target = reverse("corpus:scenario-list")
    response = client.post(
        reverse("login"),
        {"username": "senior", "password": DEFAULT_PASSWORD, "next": target},
    )
    assert response["Location"] == target


def test_login_does_not_follow_a_next_to_another_host(client, make_user):
    make_user(Role.ARBITRATOR, username="senior")
    response = client.post(
        reverse("login"),
        {"username": "senior", "password": DEFAULT_PASSWORD, "next": "https://evil.example/"},
    )
    assert response["Location"] == reverse("home")
