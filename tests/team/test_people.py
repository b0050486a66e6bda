"""Roles and deactivation from a person's team page."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token

from core.roles import Role, user_roles
from tests.factories import DEFAULT_PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


def logs_in(username: str) -> bool:
    """Through the login form, as a person would (django-axes needs the request)."""
    response = Client().post(reverse("login"), {"username": username, "password": DEFAULT_PASSWORD})
    return response.status_code == 302 and response["Location"] == reverse("home")


def fresh(user):
    return get_user_model().objects.get(pk=user.pk)


def test_the_admin_changes_a_persons_roles(admin_client):
    person = UserFactory(username="sam", roles=[Role.PRIMARY_ANNOTATOR])
    response = admin_client.post(
        reverse("team:person", args=[person.pk]),
        {"roles": [Role.ARBITRATOR.value, Role.SCENARIO_REVIEWER.value]},
    )
    assert response.status_code == 302
    assert user_roles(fresh(person)) == {Role.ARBITRATOR, Role.SCENARIO_REVIEWER}


def test_an_admin_cannot_take_away_their_own_admin_role_or_deactivate_themselves(
    admin, admin_client
):
    response = admin_client.post(
        reverse("team:person", args=[admin.pk]), {"roles": [Role.ARBITRATOR.value]}
    )
    assert b"cannot take away your own admin role" in response.content
    assert Role.ADMIN in user_roles(fresh(admin))
    admin_client.post(reverse("team:person-deactivate", args=[admin.pk]))
    assert fresh(admin).is_active


def test_a_deactivated_person_cannot_log_in_or_use_their_session_or_token(admin_client):
    person = UserFactory(username="leaving", roles=[Role.PRIMARY_ANNOTATOR])
    assert logs_in("leaving")
    token = Token.objects.create(user=person)
    session = Client()
    session.force_login(person)
    assert session.get(reverse("home")).status_code == 200

    response = admin_client.post(reverse("team:person-deactivate", args=[person.pk]))
    assert response.status_code == 302
    assert not fresh(person).is_active
    assert not logs_in("leaving")
    assert session.get(reverse("home")).status_code == 302  # back to the login page
    api = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert api.get(reverse("api-me")).status_code in (401, 403)
    page = admin_client.get(reverse("team:team")).content.decode()
    assert 'data-username="leaving"' in page and "deactivated" in page

    admin_client.post(reverse("team:person-reactivate", args=[person.pk]))
    assert logs_in("leaving")


def test_nobody_but_an_admin_reaches_the_team_actions():
    person = UserFactory(username="target", roles=[Role.ARBITRATOR])
    arbitrator = Client()
    arbitrator.force_login(UserFactory(username="arb", roles=[Role.ARBITRATOR]))
    assert arbitrator.post(reverse("team:person-deactivate", args=[person.pk])).status_code == 403
    assert arbitrator.get(reverse("team:team")).status_code == 403
    assert fresh(person).is_active
