"""The export page and its zip download: admins only (403 for every other role), the
counts shown before download, a fixed number of queries, the zip the bundle builds."""

import io
import json
import zipfile

import pytest
from django.test import Client
from django.urls import reverse

from adjudication.export.selectors import export_home_queues
from adjudication.export.services import build_export
from adjudication.mcq.models import McqItem
from heartbench_site.base.roles import Role
from tests.factories import ScenarioFactory, UserFactory

from .conftest import TARGET, make_item

pytestmark = pytest.mark.django_db
URLS = ("export:home", "export:download")


def _client(*roles, **kwargs):
    client = Client()
    client.force_login(UserFactory(roles=list(roles), **kwargs))
    return client


@pytest.mark.parametrize("role", [r for r in Role if r != Role.ADMIN])
def test_every_other_role_gets_403(secret_corpus, role):
    client = _client(role)
    for name in URLS:
        response = client.get(reverse(name))
        assert response.status_code == 403, (role, name)
        assert secret_corpus["item"].question_id.encode() not in response.content


def test_anonymous_visitors_are_sent_to_log_in(secret_corpus):
    for name in URLS:
        response = Client().get(reverse(name))
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_the_page_shows_the_counts_before_download(secret_corpus):
    client = _client(Role.ADMIN)
    response = client.get(reverse("export:home"))
    assert response.status_code == 200
    page = response.content.decode()
    assert '<td data-testid="export-final">1</td>' in page
    assert '<td data-testid="export-excluded">4</td>' in page
    assert reverse("export:download") in page
    assert "Download the final set (1 items, .zip)" in page


def test_the_download_is_the_bundle_zip(secret_corpus):
    superuser = _client(is_superuser=True, is_staff=True)  # superusers hold the admin role
    response = superuser.get(reverse("export:download"))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert 'filename="heartbench-final-set.zip"' in response["Content-Disposition"]
    assert response.content == build_export().zip_bytes()
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        manifest = json.loads(archive.read("heartbench-final-set/manifest.json"))
    assert manifest["counts"]["final_items"] == 1


def test_the_page_issues_a_fixed_number_of_queries(secret_corpus, django_assert_num_queries):
    client = _client(Role.ADMIN)
    client.get(reverse("export:home"))  # session and role caches warm

    def measure():
        with django_assert_num_queries(expected) as captured:
            client.get(reverse("export:home"))
        return captured

    expected = len(_queries(client))
    for n in range(10):
        scenario = ScenarioFactory(scenario_id=f"SCN_SCHOOL_AGE_{80 + n}")
        make_item(
            f"Q_{TARGET}_SCN_SCHOOL_AGE_{80 + n}",
            character=secret_corpus["item"].character,
            scenario=scenario,
            status=McqItem.Status.FINAL,
        )
    measure()


def _queries(client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        client.get(reverse("export:home"))
    return captured.captured_queries


def test_the_home_card_counts_final_items_for_admins_only(secret_corpus):
    admin = UserFactory(roles=[Role.ADMIN])
    card = export_home_queues(user=admin)["final_set_export"]
    assert card["count"] == 1 and card["url"] == reverse("export:home")
    assert "1 item in the final set" in card["label"]
    assert export_home_queues(user=UserFactory(roles=[Role.ARBITRATOR])) == {}
