"""The REST API: corpus reads, filters, token auth, /api/me/, and a valid schema."""

import re

import pytest
import yaml
from django.core.management import call_command
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from core.roles import Role
from tests.factories import CharacterFactory, MemoryFactory, ProfileVersionFactory

from .conftest import SECRET_KEY, SECRETS, fresh_character


@pytest.fixture
def api_for(make_user):
    def make(*roles, **kwargs):
        client = APIClient()
        client.force_login(make_user(*roles, **kwargs))
        return client

    return make


def test_me_returns_username_and_roles(api_for):
    client = api_for(Role.AUDIT_EXPERT, Role.MEMORY_REVIEWER, username="rater-7")
    data = client.get(reverse("api-me")).json()
    assert data == {"username": "rater-7", "roles": ["memory_reviewer", "audit_expert"]}


def test_token_authentication_works(make_user):
    user = make_user(Role.SCENARIO_REVIEWER, username="token-user")
    token = Token.objects.create(user=user)
    client = APIClient()
    assert client.get(reverse("api-me")).status_code in (401, 403)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert client.get(reverse("api-me")).json()["username"] == "token-user"
    assert client.get(reverse("corpus-api:character-list")).status_code == 200
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    refused = client.get(reverse("api-me"))
    # DRF answers 403, not 401, because session auth comes first and sends no challenge.
    assert refused.status_code in (401, 403)
    assert refused.json()["detail"] == "Invalid token."


def test_a_baseline_participants_token_opens_no_corpus(make_user):
    token = Token.objects.create(user=make_user(Role.BASELINE_PARTICIPANT))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert client.get(reverse("corpus-api:character-list")).status_code == 403


def test_character_list_and_detail(api_for, secret_corpus):
    client = api_for(Role.ARBITRATOR)
    data = client.get(reverse("corpus-api:character-list")).json()
    assert data["count"] == 1
    (character,) = data["results"]
    assert character["key"] == SECRET_KEY
    assert character["memory_count"] == 2
    assert character["current_version"]["number"] == 2
    assert character["current_version"]["big_five"]["O"] == pytest.approx(0.8731)
    assert character["current_version"]["is_frozen"] is False

    detail = client.get(reverse("corpus-api:character-detail", args=[SECRET_KEY])).json()
    assert [v["number"] for v in detail["versions"]] == [2, 1]
    newest, frozen = detail["versions"]
    assert newest["description"] == SECRETS["profile description"]
    assert len(newest["core_patterns"]) == 8
    assert frozen["is_frozen"] is True and frozen["frozen_at"].startswith("2026-01-05")
    missing = client.get(reverse("corpus-api:character-detail", args=["CHAR_99"]))
    assert missing.status_code == 404


def test_memories_filter_by_character_and_life_stage(api_for, secret_corpus):
    other = CharacterFactory(key="CHAR_42")
    MemoryFactory(character=other, sequence=1)
    client = api_for(Role.MEMORY_REVIEWER)
    url = reverse("corpus-api:memory-list")
    assert client.get(url).json()["count"] == 3
    mine = client.get(url, {"character": SECRET_KEY}).json()
    assert {m["character"] for m in mine["results"]} == {SECRET_KEY}
    assert mine["count"] == 2
    school = client.get(url, {"character": SECRET_KEY, "life_stage": "school_age"}).json()
    assert [m["memory_id"] for m in school["results"]] == [SECRETS["memory id"]]
    memory = school["results"][0]
    assert memory["content_full"] == SECRETS["memory content_full"]
    assert memory["emotion_signature"] == {
        "primary": "fear",
        "secondary": "loneliness",
        "intensity": 0.7,
    }
    bad = client.get(url, {"life_stage": "retirement"})
    assert bad.status_code == 400 and "life_stage" in bad.json()


def test_memory_detail(api_for, secret_corpus):
    client = api_for(Role.MEMORY_REVIEWER)
    url = reverse("corpus-api:memory-detail", args=[SECRETS["memory id"]])
    assert client.get(url).json()["psych_conclusion"] == SECRETS["psych_conclusion"]


def test_scenarios_filter_by_stage_in_the_four_component_shape(api_for, secret_corpus):
    client = api_for(Role.SCENARIO_REVIEWER)
    url = reverse("corpus-api:scenario-list")
    assert client.get(url).json()["count"] == 2
    (scenario,) = client.get(url, {"stage": "adolescence"}).json()["results"]
    assert scenario["id"] == "SCN_ADOLESCENCE_1"
    assert set(scenario["setting"]) == {"location", "time", "atmosphere"}
    assert set(scenario["trigger_event"]) == {"sender", "message_content", "action_required"}
    assert client.get(url, {"stage": "old_age"}).status_code == 400
    detail = client.get(reverse("corpus-api:scenario-detail", args=["SCN_SCHOOL_AGE_0"]))
    assert detail.json()["context_text"] == secret_corpus["scenario"].context_text


def test_import_job_status_for_admins(api_for, secret_corpus):
    client = api_for(Role.ADMIN)
    job = secret_corpus["job"]
    listing = client.get(reverse("corpus-api:import-list")).json()
    assert listing["results"][0]["id"] == job.pk
    assert listing["results"][0]["file_count"] == 1
    data = client.get(reverse("corpus-api:import-detail", args=[job.pk])).json()
    assert data["status"] == "failed"
    assert data["files"] == [{"name": "characters.json", "size": 2}]
    assert data["errors"][0]["field"] == "big_five.O"


def _grow(n):
    for _ in range(n):
        character = fresh_character()
        ProfileVersionFactory(character=character, number=1)
        ProfileVersionFactory(character=character, number=2)
        MemoryFactory(character=character, sequence=1)


@pytest.mark.parametrize(
    ("name", "queries"),
    [
        # session, user, groups; then count + rows (+ the versions prefetch)
        ("corpus-api:character-list", 3 + 3),
        ("corpus-api:memory-list", 3 + 2),
        ("corpus-api:scenario-list", 3 + 2),
        ("corpus-api:import-list", 3 + 2),
    ],
)
def test_list_endpoints_issue_a_fixed_number_of_queries(
    name, queries, api_for, secret_corpus, django_assert_num_queries
):
    client = api_for(Role.ADMIN)
    _grow(1)
    with django_assert_num_queries(queries):
        assert client.get(reverse(name)).status_code == 200
    _grow(19)
    with django_assert_num_queries(queries):
        assert client.get(reverse(name)).status_code == 200


def test_schema_is_valid_without_warnings(tmp_path):
    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    schema = yaml.safe_load(out.read_text())
    paths = schema["paths"]
    for path in (
        "/api/me/",
        "/api/corpus/characters/",
        "/api/corpus/characters/{key}/",
        "/api/corpus/memories/",
        "/api/corpus/scenarios/",
        "/api/corpus/imports/",
        "/api/corpus/imports/{job_id}/",
    ):
        assert path in paths, path
    memory_params = {p["name"] for p in paths["/api/corpus/memories/"]["get"]["parameters"]}
    assert {"character", "life_stage", "page"} <= memory_params
    assert "multipart/form-data" in paths["/api/corpus/imports/"]["post"]["requestBody"]["content"]


def test_schema_view_serves_the_schema(api_for):
    response = api_for(Role.ADMIN).get(reverse("api-schema"), HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    assert "/api/corpus/characters/" in response.json()["paths"]


def test_swagger_ui_loads_only_local_assets(api_for):
    body = api_for(Role.ADMIN).get(reverse("api-docs")).content.decode()
    assert "swagger-ui" in body.lower()
    urls = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)["']""", body)
    assert urls, "the docs page references no assets"
    for url in urls:
        assert not re.match(r"^(https?:)?//", url), url
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in body
    assert not re.search(r"""["'](https?:)?//[^"']*(unpkg|jsdelivr|cdnjs)""", body)


def test_a_character_without_memories_counts_zero(api_for, db):
    ProfileVersionFactory(character=CharacterFactory(key="CHAR_05"), number=1)
    (character,) = (
        api_for(Role.ARBITRATOR).get(reverse("corpus-api:character-list")).json()["results"]
    )
    assert character["memory_count"] == 0
