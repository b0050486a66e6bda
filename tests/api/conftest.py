"""Fixtures of the API tests (issue #23): clients that authenticate with a token only,
never a session, as a script does."""

import pytest
from django.contrib.auth.models import Group
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from core.roles import Role
from tests.factories import UserFactory


@pytest.fixture(autouse=True)
def role_groups(db):
    """The role groups come from a data migration; a transactional test elsewhere in the
    session may have flushed them."""
    for role in Role:
        Group.objects.get_or_create(name=role.value)


def token_client(user) -> APIClient:
    """An API client carrying ``user``'s token and no session cookie."""
    token, _ = Token.objects.get_or_create(user=user)
    client = APIClient(enforce_csrf_checks=True)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def api_as():
    """``api_as(user)``: a token-only client for an existing user."""
    return token_client


@pytest.fixture
def api_user():
    """``api_user(*roles, **fields)``: a new user with those roles and a token client,
    returned as ``(user, client)``."""

    def make(*roles: Role, **fields):
        user = UserFactory(roles=list(roles), **fields)
        return user, token_client(user)

    return make
