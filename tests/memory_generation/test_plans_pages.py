"""The plan pages and the plans API: admin only, a constant number of queries whatever
the number of characters, the weights form, a plan computed from the form and shown per
segment and per bin, the top-up button, and the REST endpoints."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.memory_generation import quota
from annotation.memory_generation.models import MemoryPlan, QuotaWeights
from annotation.memory_generation.services.plans import plan_create, weights_current
from core.roles import Role
from tests.factories import CharacterFactory, ProfileVersionFactory, UserFactory
from tests.pipeline_ready import memories_audited

from .test_plans import frozen_character, generate, plan_admin, plan_roles  # noqa: F401

pytestmark = pytest.mark.django_db

INDEX = "memory_generation:index"


@pytest.fixture
def admin_client(client, plan_admin):  # noqa: F811
    client.force_login(plan_admin)
    return client


def text(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def queries(client, url) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def planned_character(key, admin, *, ages=(9, 14, 30)):
    """A frozen character with audited memories, an initial plan and a top-up's worth of
    history behind it, so every part of the pages has rows to read."""
    character = frozen_character(key, ages=ages)
    memories_audited(character)
    (plan,) = plan_create(user=admin, character_keys=[key], target=40)
    return plan


@pytest.mark.parametrize("name", [INDEX, "memory_generation:weights", "memory_generation:plan-new"])
def test_pages_are_for_admins_only(client, plan_roles, name):  # noqa: F811
    url = reverse(name)
    assert client.get(url).status_code == 302  # to the login page
    for role in (Role.ARBITRATOR, Role.MEMORY_REVIEWER, Role.PRIMARY_ANNOTATOR):
        client.force_login(UserFactory(roles=[role]))
        assert client.get(url).status_code == 403
    admin = UserFactory(roles=[Role.ADMIN])
    plan = planned_character("CHAR_01", admin)
    client.force_login(UserFactory(roles=[Role.ARBITRATOR]))
    for detail in ("plan-detail", "plan-top-up"):
        assert client.get(reverse(f"memory_generation:{detail}", args=[plan.pk])).status_code == 403
    assert client.post(reverse("memory_generation:plan-top-up", args=[plan.pk])).status_code == 403


def test_index_and_plan_pages_use_a_constant_number_of_queries(admin_client, plan_admin):  # noqa: F811
    first = planned_character("CHAR_01", plan_admin)
    urls = [reverse(INDEX), reverse("memory_generation:weights")]
    urls.append(reverse("memory_generation:plan-new"))
    before = [queries(admin_client, u) for u in urls]
    detail_before = queries(admin_client, reverse("memory_generation:plan-detail", args=[first.pk]))
    others = [planned_character(k, plan_admin) for k in ("CHAR_02", "CHAR_03")]
    CharacterFactory(key="CHAR_04")  # no profile: a row too
    after = [queries(admin_client, u) for u in urls]
    assert after == before
    last = others[-1]
    assert (
        queries(admin_client, reverse("memory_generation:plan-detail", args=[last.pk]))
        == detail_before
    )
    page = text(admin_client.get(reverse(INDEX)))
    for key in ("CHAR_01", "CHAR_02", "CHAR_03", "CHAR_04"):
        assert f'data-character="{key}"' in page
    assert page.count(">Top up</button>") == 3


def test_index_shows_accepted_per_bin_and_the_latest_plan(admin_client, plan_admin):  # noqa: F811
    plan = planned_character("CHAR_01", plan_admin, ages=(9, 9, 14))
    draft = CharacterFactory(key="CHAR_02")
    ProfileVersionFactory(character=draft, number=1)
    page = text(admin_client.get(reverse(INDEX)))
    row = page.split('data-character="CHAR_01"')[1].split("</tr>")[0]
    assert '<span data-testid="accepted">3</span> / 1,000' in row
    assert re.findall(r'<td class="text-end small">(\d+)</td>', row) == [
        "2",
        "1",
        "0",
        "0",
        "0",
        "0",
        "0",
        "0",
    ]
    assert f"Plan {plan.pk}</a>" in row and "37 to generate" in row
    assert "frozen" in row
    draft_row = page.split('data-character="CHAR_02"')[1].split("</tr>")[0]
    assert "not frozen" in draft_row and "Plan memories" not in draft_row


def test_weights_page_shows_45_numbers_by_bin_and_saves_a_new_version(admin_client, plan_admin):  # noqa: F811
    url = reverse("memory_generation:weights")
    page = text(admin_client.get(url))
    assert 'data-testid="weights-version">v1<' in page
    assert page.count('name="age_') == 45
    assert "Adolescence (ages 12–17)" in page and "Age-30 transition (ages 29–33)" in page
    adolescence = page.split('data-bin="adolescence"')[1].split("</tr>")[0]
    assert "12: <strong>32</strong>" in adolescence
    form = {f"age_{age}": "1" for age in quota.SEGMENT_AGES}
    form["age_30"] = "-2"
    form["note"] = "flat"
    refused = text(admin_client.post(url, form))
    assert "Ensure this value is greater than or equal to 0" in refused
    assert QuotaWeights.objects.count() == 1
    form["age_30"] = "4"
    response = admin_client.post(url, form)
    assert response.status_code == 302
    v2 = QuotaWeights.objects.get(number=2)
    assert v2.weights[30 - 6] == 4.0 and sum(v2.weights) == 48.0 and v2.note == "flat"
    assert v2.created_by == plan_admin
    page = text(admin_client.get(url))
    assert "Saved as quota weights v2" in page and "v2 · " in page


def test_plan_new_computes_plans_and_the_detail_shows_them(admin_client, plan_admin):  # noqa: F811
    frozen_character("CHAR_01", ages=[14] * 4)
    frozen_character("CHAR_02")
    draft = CharacterFactory(key="CHAR_03")
    ProfileVersionFactory(character=draft, number=1)
    url = reverse("memory_generation:plan-new")
    page = text(admin_client.get(url + "?characters=CHAR_02"))
    assert 'value="CHAR_01"' in page and 'value="CHAR_03"' not in page
    assert re.search(r'value="CHAR_02"[^>]*checked', page)
    weights_id = QuotaWeights.objects.get().pk

    response = admin_client.post(
        url, {"characters": ["CHAR_01"], "weights": weights_id, "target": "1000"}
    )
    plan = MemoryPlan.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("memory_generation:plan-detail", args=[plan.pk])
    page = text(admin_client.get(response["Location"]))
    assert "<strong>996</strong> = 1,000 − 4" in page
    assert 'data-testid="quota-total">996<' in page
    assert f'href="/memory-generation/runs/new/?plans={plan.pk}"' in page
    assert "v1</a> — The platform default" in page
    segments = page.split('data-testid="plan-segments"')[1]
    assert segments.count("<tr>") == 46  # header + 45 ages
    assert "14 · Adolescence" in segments
    bins = page.split('data-testid="plan-bins"')[1].split("</table>")[0]
    adolescence = bins.split("Adolescence (12–17)", 1)[1].split("</tr>")[0]
    expected = next(b for b in plan.bins() if b.key == "adolescence")
    assert re.findall(r'<td class="text-end">([\d,]+)</td>', adolescence) == [
        "4",
        str(expected.quota),
        str(expected.quota + 4),
    ]
    # The fullest bin fills its bar: existing and quota widths add up to 100%.
    widths = re.findall(r'style="width: ([\d.]+)%"', adolescence)
    assert sum(float(w) for w in widths) == pytest.approx(100, abs=0.2)

    response = admin_client.post(
        url, {"characters": ["CHAR_01", "CHAR_02"], "weights": weights_id, "target": "4"}
    )
    page = text(response)
    assert response.status_code == 200
    assert "CHAR_01: already has 4 accepted memories (target 4)" in page
    assert MemoryPlan.objects.count() == 1

    response = admin_client.post(
        url, {"characters": ["CHAR_02"], "weights": weights_id, "target": "10"}, follow=False
    )
    second = MemoryPlan.objects.latest("pk")
    assert second.character.key == "CHAR_02" and second.deficit == 10


def test_several_new_plans_are_listed_with_one_launch_link(admin_client, plan_admin):  # noqa: F811
    frozen_character("CHAR_01")
    frozen_character("CHAR_02")
    response = admin_client.post(
        reverse("memory_generation:plan-new"),
        {"characters": ["CHAR_01", "CHAR_02"], "weights": weights_current().pk, "target": "50"},
    )
    ids = sorted(MemoryPlan.objects.values_list("pk", flat=True))
    assert len(ids) == 2
    page = text(admin_client.get(response["Location"]))
    assert f'href="/memory-generation/runs/new/?plans={ids[0]},{ids[1]}"' in page


def test_the_top_up_button_makes_a_top_up_or_says_why_not(admin_client, plan_admin):  # noqa: F811
    plan = planned_character("CHAR_01", plan_admin)
    url = reverse("memory_generation:plan-top-up", args=[plan.pk])
    page = text(admin_client.post(url, {"from": "detail"}, follow=True))
    assert "No memory audit of CHAR_01 was finalized after plan" in page
    assert MemoryPlan.objects.count() == 1
    generate(plan, skip_age=20)
    memories_audited(plan.character)
    response = admin_client.post(url)
    top_up = MemoryPlan.objects.latest("pk")
    assert top_up.kind == MemoryPlan.Kind.TOP_UP and top_up.deficit == 1
    page = text(admin_client.get(response["Location"]))
    assert "Top-up after the audit" in page and "by the weights of <a" in page


# --- API ----------------------------------------------------------------------------------


def test_the_api_is_for_admins_only(client, plan_roles):  # noqa: F811
    url = reverse("memory-generation-api:plan-list")
    assert client.get(url).status_code in (401, 403)
    client.force_login(UserFactory(roles=[Role.ARBITRATOR]))
    assert client.get(url).status_code == 403
    assert (
        client.post(url, {"characters": ["CHAR_01"]}, content_type="application/json").status_code
        == 403
    )
    assert client.get(reverse("memory-generation-api:weights-list")).status_code == 403
    assert MemoryPlan.objects.count() == 0


def test_the_api_plans_tops_up_and_versions_weights(admin_client, plan_admin):  # noqa: F811
    weights_url = reverse("memory-generation-api:weights-list")
    listed = admin_client.get(weights_url).json()
    assert [v["number"] for v in listed] == [1] and len(listed[0]["weights"]) == 45
    bad = admin_client.post(
        weights_url, {"weights": [1] * 44, "note": "short"}, content_type="application/json"
    )
    assert bad.status_code == 400 and "45 entries" in bad.json()["detail"][0]
    made = admin_client.post(
        weights_url, {"weights": [1] * 45, "note": "flat"}, content_type="application/json"
    )
    assert made.status_code == 201 and made.json()["number"] == 2

    char = frozen_character("CHAR_01", ages=[9])
    memories_audited(char)
    plans_url = reverse("memory-generation-api:plan-list")
    refused = admin_client.post(
        plans_url, {"characters": ["CHAR_01", "CHAR_09"]}, content_type="application/json"
    )
    assert refused.status_code == 400
    assert "CHAR_09: no such character." in refused.json()["detail"]
    assert MemoryPlan.objects.count() == 0
    created = admin_client.post(
        plans_url,
        {"characters": ["CHAR_01"], "target": 46, "weights_id": made.json()["id"]},
        content_type="application/json",
    )
    assert created.status_code == 201
    (body,) = created.json()
    assert body["weights_version"] == 2 and body["accepted"] == 1 and body["deficit"] == 45
    assert body["quotas"] == [1] * 45 and body["existing"][9 - 6] == 1
    assert sum(b["quota"] for b in body["bins"]) == 45 and len(body["bins"]) == 8
    detail = admin_client.get(reverse("memory-generation-api:plan-detail", args=[body["id"]]))
    assert detail.json()["kind"] == "initial" and detail.json()["character"] == "CHAR_01"
    assert [p["id"] for p in admin_client.get(plans_url).json()] == [body["id"]]
    missing = admin_client.get(reverse("memory-generation-api:plan-detail", args=[999]))
    assert missing.status_code == 404

    plan = MemoryPlan.objects.get()
    generate(plan, skip_age=33)
    memories_audited(char)
    top_up_url = reverse("memory-generation-api:plan-top-up", args=[plan.pk])
    topped = admin_client.post(top_up_url, {"note": "audit"}, content_type="application/json")
    assert topped.status_code == 201
    assert topped.json()["kind"] == "top_up" and topped.json()["previous"] == plan.pk
    # B.4: the missing memory goes where the (flat) weights put it: the youngest year.
    assert topped.json()["quotas"] == [1] + [0] * 44 and topped.json()["deficit"] == 1
    again = admin_client.post(top_up_url, {}, content_type="application/json")
    assert again.status_code == 400 and "is not the latest plan" in again.json()["detail"][0]
