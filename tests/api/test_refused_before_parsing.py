"""A person whose roles do not reach an endpoint is refused (403) before the body is read:
the answer names the missing access, whatever the body's media type, so a participant
posting JSON to an upload-only import endpoint learns nothing about what it parses
(docs/api/index.md, "Conventions": every endpoint checks the role first). Beyond seed 000: the
platform's access rule (App. J: participants take no part in construction)."""

import pytest
from django.conf import settings
from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.corpus_import.models import ImportJob
from core.roles import Role
from evaluation.models import EvaluationRun
from tests.api.conftest import token_client
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

IMPORT_ENDPOINTS = ["corpus-api:import-list", "evaluation-api:import"]
ROLES = [Role.BASELINE_PARTICIPANT, Role.PRIMARY_ANNOTATOR]


def session_client(user, *, with_csrf_token: bool) -> APIClient:
    """A signed-in browser session with CSRF checks on, as a page's script would call:
    with the page's CSRF token in the header and the cookie, or without any."""
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(user)
    if with_csrf_token:
        secret = get_token(HttpRequest())
        client.cookies[settings.CSRF_COOKIE_NAME] = secret
        client.credentials(HTTP_X_CSRFTOKEN=secret)
    return client


@pytest.mark.parametrize("name", IMPORT_ENDPOINTS)
@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("how", ["token", "session", "session with CSRF token"])
def test_a_json_post_by_someone_without_the_role_is_403(name, role, how):
    user = UserFactory(username=f"outsider-{role.value}", roles=[role])
    if how == "token":
        client = token_client(user)
    else:
        client = session_client(user, with_csrf_token=how != "session")
    url = reverse(name)
    for body, kind in (({"file": "x", "label": "m"}, "json"), ("not json at all", "json")):
        answer = client.post(url, body, format=kind)
        assert answer.status_code == 403, (how, body, answer.status_code, answer.content)
        assert "detail" in answer.json()
    raw = client.generic("POST", url, b"<xml/>", content_type="application/xml")
    assert raw.status_code == 403, raw.content
    assert not ImportJob.objects.exists() and not EvaluationRun.objects.exists()
