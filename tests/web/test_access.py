"""Every page and endpoint admits exactly the roles that may reach it: 200 for them,
403 for every other role, a login redirect (pages) or 403 (API) for anonymous callers."""

import pytest
from django.urls import reverse

from core.roles import CORPUS_ADMINS, CORPUS_READERS, Role

from .conftest import SECRET_KEY

ALL_ROLES = frozenset(Role)


def pages(corpus):
    memory, scenario, job = corpus["memory"], corpus["scenario"], corpus["job"]
    return [
        (reverse("home"), ALL_ROLES),
        (reverse("corpus:character-list"), CORPUS_READERS),
        (reverse("corpus:character-detail", args=[SECRET_KEY]), CORPUS_READERS),
        (reverse("corpus:memory-detail", args=[memory.memory_id]), CORPUS_READERS),
        (reverse("corpus:scenario-list"), CORPUS_READERS),
        (reverse("corpus:scenario-detail", args=[scenario.scenario_id]), CORPUS_READERS),
        (reverse("corpus:import"), CORPUS_ADMINS),
        (reverse("corpus:import-job", args=[job.pk]), CORPUS_ADMINS),
    ]


def endpoints(corpus):
    memory, scenario, job = corpus["memory"], corpus["scenario"], corpus["job"]
    return [
        (reverse("api-me"), ALL_ROLES),
        (reverse("api-schema"), CORPUS_READERS),
        (reverse("api-docs"), CORPUS_READERS),
        (reverse("corpus-api:character-list"), CORPUS_READERS),
        (reverse("corpus-api:character-detail", args=[SECRET_KEY]), CORPUS_READERS),
        (reverse("corpus-api:memory-list"), CORPUS_READERS),
        (reverse("corpus-api:memory-detail", args=[memory.memory_id]), CORPUS_READERS),
        (reverse("corpus-api:scenario-list"), CORPUS_READERS),
        (reverse("corpus-api:scenario-detail", args=[scenario.scenario_id]), CORPUS_READERS),
        (reverse("corpus-api:import-list"), CORPUS_ADMINS),
        (reverse("corpus-api:import-detail", args=[job.pk]), CORPUS_ADMINS),
    ]


@pytest.mark.parametrize("role", list(Role), ids=str)
def test_each_role_reaches_exactly_its_pages(role, client_for, secret_corpus):
    client = client_for(role)
    for url, allowed in pages(secret_corpus) + endpoints(secret_corpus):
        response = client.get(url)
        expected = 200 if role in allowed else 403
        assert response.status_code == expected, f"{role} GET {url}"


def test_a_user_without_any_role_reaches_only_home_and_me(client_for, secret_corpus):
    client = client_for()
    for url, allowed in pages(secret_corpus) + endpoints(secret_corpus):
        expected = 200 if allowed == ALL_ROLES else 403
        assert client.get(url).status_code == expected, url
    assert "no role yet" in client.get(reverse("home")).content.decode()


def test_a_superuser_is_an_admin_and_holds_no_working_role(client_for, secret_corpus):
    client = client_for(is_superuser=True, is_staff=True)
    for url, allowed in pages(secret_corpus) + endpoints(secret_corpus):
        expected = 200 if Role.ADMIN in allowed else 403
        assert client.get(url).status_code == expected, url
    home = client.get(reverse("home")).content.decode()
    assert "Human baseline" not in home
    assert "Blinded three-candidate comparison" not in home


def test_anonymous_pages_redirect_to_the_login_page(client, secret_corpus):
    for url, _ in pages(secret_corpus):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("login") + "?next="), url


def test_anonymous_api_calls_are_refused(client, secret_corpus):
    for url, _ in endpoints(secret_corpus):
        assert client.get(url).status_code in (401, 403), url


def test_the_403_page_says_why(client_for, secret_corpus):
    response = client_for(Role.BASELINE_PARTICIPANT).get(reverse("corpus:character-list"))
    assert response.status_code == 403
    body = response.content.decode()
    assert "Your roles do not include access to this page" in body
    assert "Baseline participant" in body  # the roles the person does hold


def test_the_404_page_is_the_sites_own(client_for, secret_corpus):
    client = client_for(Role.ARBITRATOR)
    response = client.get(reverse("corpus:character-detail", args=["CHAR_99"]))
    assert response.status_code == 404
    assert "404 · Not found" in response.content.decode()
    assert client.get("/no/such/page/").status_code == 404


def test_a_refused_role_cannot_tell_existing_from_missing_records(client_for, secret_corpus):
    client = client_for(Role.BASELINE_PARTICIPANT)
    for name in ("corpus:character-detail", "corpus-api:character-detail"):
        present = client.get(reverse(name, args=[SECRET_KEY]))
        missing = client.get(reverse(name, args=["CHAR_99"]))
        assert present.status_code == missing.status_code == 403, name


def test_the_corpus_api_is_read_only(client_for, secret_corpus):
    url = reverse("corpus-api:character-list")
    assert client_for(Role.ARBITRATOR).post(url, {"key": "CHAR_50"}).status_code == 405
    assert client_for(Role.BASELINE_PARTICIPANT).post(url, {"key": "CHAR_50"}).status_code == 403
