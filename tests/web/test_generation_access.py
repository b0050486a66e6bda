"""Every generation page and endpoint admits the admin role only: 200 for an admin, 403
for every other role (and for a person holding all of them), a login redirect (pages) or
401/403 (API) for anonymous callers; refused writes change nothing."""

import pytest
from django.urls import reverse

from annotation.generation.models import GenerationRun, GenerationUnit, PromptVersion
from core.roles import Role


@pytest.fixture
def run(generation_corpus, make_run):
    return make_run(
        generation_corpus["characters"][:1],
        generation_corpus["scenarios"][:1],
        statuses=("failed", "pending", "succeeded"),
    )


def pages(run):
    unit = run.units.first()
    return [
        reverse("corpus:generation-list"),
        reverse("corpus:generation-new"),
        reverse("corpus:generation-detail", args=[run.pk]),
        reverse("corpus:generation-unit", args=[run.pk, unit.pk]),
        reverse("corpus:prompt-list"),
        *[reverse("corpus:prompt-new", args=[s]) for s in ("screening", "reranking", "response")],
    ]


def endpoints(run):
    return [
        reverse("generation-api:run-list"),
        reverse("generation-api:run-detail", args=[run.pk]),
        reverse("generation-api:unit-list", args=[run.pk]),
    ]


def writes(run):
    """(url, data) of every POST a refused caller might try."""
    return [
        (reverse("corpus:generation-new"), {"launch": "1", "families": ["gpt"]}),
        (reverse("corpus:generation-new"), {"estimate": "1", "families": ["gpt"]}),
        (reverse("corpus:generation-cancel", args=[run.pk]), {}),
        (reverse("corpus:generation-retry", args=[run.pk]), {}),
        (
            reverse("corpus:prompt-new", args=["response"]),
            {"system_template": "s", "user_template": "u"},
        ),
        (reverse("generation-api:run-list"), {"families": ["gpt"]}),
        (reverse("generation-api:run-cancel", args=[run.pk]), {}),
        (reverse("generation-api:run-retry", args=[run.pk]), {}),
    ]


def snapshot():
    return (
        list(GenerationRun.objects.values_list("pk", "status")),
        list(GenerationUnit.objects.order_by("pk").values_list("pk", "status")),
        PromptVersion.objects.count(),
    )


@pytest.mark.parametrize("role", list(Role), ids=str)
def test_only_the_admin_reaches_the_generation_pages(role, client_for, run, offline_generation):
    client = client_for(role)
    expected = 200 if role == Role.ADMIN else 403
    for url in pages(run) + endpoints(run):
        assert client.get(url).status_code == expected, f"{role} GET {url}"


@pytest.mark.parametrize("role", [r for r in Role if r != Role.ADMIN], ids=str)
def test_other_roles_cannot_write(role, client_for, run):
    client = client_for(role)
    before = snapshot()
    for url, data in writes(run):
        assert client.post(url, data).status_code == 403, f"{role} POST {url}"
    assert snapshot() == before


def test_all_other_roles_together_are_refused_too(client_for, run):
    client = client_for(*[r for r in Role if r != Role.ADMIN])
    for url in pages(run) + endpoints(run):
        assert client.get(url).status_code == 403, url
    for url, data in writes(run):
        assert client.post(url, data).status_code == 403, url


def test_a_superuser_is_an_admin_here(client_for, run):
    client = client_for(is_superuser=True, is_staff=True)
    for url in pages(run) + endpoints(run):
        assert client.get(url).status_code == 200, url


def test_anonymous_callers_are_sent_to_log_in_or_refused(client, run):
    for url in pages(run):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith(
            reverse("login") + "?next="
        ), url
    for url in endpoints(run):
        assert client.get(url).status_code in (401, 403), url
    before = snapshot()
    for url, data in writes(run):
        assert client.post(url, data).status_code in (302, 401, 403), url
    assert snapshot() == before


def test_a_refused_role_cannot_tell_existing_from_missing_runs(client_for, run):
    client = client_for(Role.PRIMARY_ANNOTATOR)
    for name in ("corpus:generation-detail", "generation-api:run-detail"):
        present = client.get(reverse(name, args=[run.pk]))
        missing = client.get(reverse(name, args=[run.pk + 1000]))
        assert present.status_code == missing.status_code == 403, name


def test_the_schema_lists_the_generation_api_for_admins_only(client_for, run):
    admin_schema = client_for(Role.ADMIN).get(reverse("api-schema")).content.decode()
    assert "/api/generation/runs/" in admin_schema and "ModelFamily" in admin_schema
    reader_schema = client_for(Role.ARBITRATOR).get(reverse("api-schema")).content.decode()
    assert "/api/corpus/characters/" in reader_schema
    assert "/api/generation/" not in reader_schema and "ModelFamily" not in reader_schema


def test_navigation_shows_generation_to_admins_only(client_for):
    link = f'href="{reverse("corpus:generation-list")}"'
    assert link in client_for(Role.ADMIN).get(reverse("home")).content.decode()
    for role in (Role.PRIMARY_ANNOTATOR, Role.ARBITRATOR, Role.BASELINE_PARTICIPANT):
        assert link not in client_for(role).get(reverse("home")).content.decode(), role
