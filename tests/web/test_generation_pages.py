"""The admin's generation pages: launch a run for all pairs or a subset, watch its
progress fragment (htmx polling), cancel it, retry only its failed units, read a unit's
call records, and version the prompts. Fixed query counts for the list and detail."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.generation.models import (
    Candidate,
    GenerationRun,
    GenerationUnit,
    LlmCallRecord,
    PromptVersion,
)
from core.roles import Role
from tests.factories import ProfileVersionFactory

from .conftest import SECRET_MODEL_NAMES, fresh_character, frozen_character

POLLING = 'hx-trigger="every 1s"'


@pytest.fixture
def admin(client_for):
    return client_for(Role.ADMIN)


def launch(client, callbacks, **data):
    with callbacks(execute=True):
        return client.post(reverse("corpus:generation-new"), {"launch": "Launch run", **data})


def text(response) -> str:
    return response.content.decode()


# --- launch -----------------------------------------------------------------------------


def test_the_launch_form_counts_every_pair_by_default(admin, offline_generation, generation_corpus):
    body = text(admin.get(reverse("corpus:generation-new")))
    assert 'data-testid="unit-count">12 units<' in body  # 2 characters × 2 scenarios × 3
    assert "2 characters × 2 scenarios = 4 pairs" in body
    for family in ("claude", "gpt", "gemini"):
        assert f'name="families" value="{family}"' in body
    assert 'name="characters"' in body and 'name="scenarios"' in body
    # htmx re-counts on change; the plain button does the same without JavaScript.
    form = body[body.index('<form id="generation-run-form"') :]
    form = form[: form.index(">")]
    assert (
        'action="/corpus/generation/new/"' in form and 'hx-post="/corpus/generation/new/"' in form
    )
    assert 'name="estimate"' in body
    assert "no provider configured" not in body


def test_a_family_without_a_provider_is_marked(admin, generation_corpus, settings):
    settings.HEARTBENCH_GENERATION_FAMILIES = {}
    body = text(admin.get(reverse("corpus:generation-new")))
    assert body.count("(no provider configured)") == 3
    assert "No provider is configured for Claude, GPT, Gemini" in body


def test_the_estimate_is_an_htmx_fragment_and_creates_nothing(
    admin, offline_generation, generation_corpus
):
    character = generation_corpus["characters"][0]
    response = admin.post(
        reverse("corpus:generation-new"),
        {"estimate": "1", "families": ["gpt"], "characters": [character.key]},
        HTTP_HX_REQUEST="true",
    )
    body = text(response).strip()
    assert body.startswith('<section id="unit-estimate"') and "<html" not in body
    assert 'data-testid="unit-count">2 units<' in body  # 1 character × 2 scenarios × 1
    # Without htmx the same button re-renders the whole form with the count.
    page = text(
        admin.post(reverse("corpus:generation-new"), {"estimate": "1", "families": ["gpt"]})
    )
    assert "<html" in page and 'data-testid="unit-count">4 units<' in page
    assert 'value="gpt"  id="id_families_1" checked' in page
    assert GenerationRun.objects.count() == 0


def test_the_estimate_warns_about_characters_without_a_frozen_profile(
    admin, offline_generation, generation_corpus
):
    draft = fresh_character()
    ProfileVersionFactory(character=draft, number=1)
    body = text(admin.get(reverse("corpus:generation-new")))
    assert 'data-testid="unit-count">18 units<' in body
    assert "2 of the 6 pairs are not ready for generation" in body
    assert f'data-gate="profile_frozen" data-subject="{draft.key}">' in body


def test_launching_a_subset_creates_its_units_and_runs_them(
    admin, offline_generation, generation_corpus, django_capture_on_commit_callbacks
):
    character = generation_corpus["characters"][0]
    scenario = generation_corpus["scenarios"][1]
    response = launch(
        admin,
        django_capture_on_commit_callbacks,
        families=["gpt", "gemini"],
        characters=[character.key],
        scenarios=[scenario.scenario_id],
        note="pilot subset",
    )
    run = GenerationRun.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("corpus:generation-detail", args=[run.pk])
    assert run.families == ["gpt", "gemini"] and run.note == "pilot subset"
    assert run.pair_filter == {"characters": [character.key], "scenarios": [scenario.scenario_id]}
    units = GenerationUnit.objects.filter(run=run)
    assert sorted(units.values_list("family", flat=True)) == ["gemini", "gpt"]
    assert {(u.character_id, u.scenario_id) for u in units} == {(character.pk, scenario.pk)}
    # Eager Celery with the offline demo provider: the run finished in the request.
    run.refresh_from_db()
    assert run.status == GenerationRun.Status.FINISHED
    assert Candidate.objects.filter(run=run).count() == 2
    body = text(admin.get(response["Location"]))
    assert 'data-status="finished"' in body and POLLING not in body
    assert 'data-testid="no-failed-units"' in body
    assert "Cancel run" not in body and "Retry failed units" not in body


def test_launching_every_pair(
    admin, offline_generation, generation_corpus, django_capture_on_commit_callbacks
):
    launch(admin, django_capture_on_commit_callbacks, families=["claude"])
    run = GenerationRun.objects.get()
    assert run.pair_filter == {}
    assert run.units.count() == 4


def test_a_refused_launch_shows_the_reason_and_creates_nothing(
    admin, offline_generation, generation_corpus, django_capture_on_commit_callbacks
):
    draft = fresh_character()
    ProfileVersionFactory(character=draft, number=1)
    response = launch(
        admin,
        django_capture_on_commit_callbacks,
        families=["claude"],
        characters=[draft.key, generation_corpus["characters"][0].key],
    )
    assert response.status_code == 200
    body = text(response)
    assert "alert" in body and f"{draft.key}: no frozen profile version" in body
    assert GenerationRun.objects.count() == GenerationUnit.objects.count() == 0


def test_a_launch_without_a_provider_is_refused(
    admin, generation_corpus, settings, django_capture_on_commit_callbacks
):
    settings.HEARTBENCH_GENERATION_FAMILIES = {}
    body = text(launch(admin, django_capture_on_commit_callbacks, families=["gemini"]))
    assert "No provider is configured for gemini" in body
    assert GenerationRun.objects.count() == 0


def test_a_launch_needs_a_family(admin, offline_generation, generation_corpus):
    response = admin.post(reverse("corpus:generation-new"), {"launch": "Launch run"})
    assert response.status_code == 200 and "This field is required" in text(response)
    assert "Choose at least one family to count the units" in text(response)
    assert GenerationRun.objects.count() == 0


# --- progress -------------------------------------------------------------------------


MIXED = ("succeeded", "failed", "screening", "pending")


def test_the_progress_fragment_counts_per_family_and_stage(admin, generation_corpus, make_run):
    run = make_run(generation_corpus["characters"], generation_corpus["scenarios"], statuses=MIXED)
    response = admin.get(reverse("corpus:generation-detail", args=[run.pk]), HTTP_HX_REQUEST="true")
    body = text(response).strip()
    assert body.startswith('<section id="run-progress"') and "<html" not in body
    assert POLLING in body and f'hx-get="/corpus/generation/{run.pk}/"' in body
    # 12 units: 3 succeeded, 3 failed, 3 screening, 3 waiting.
    assert "6 of 12 units done: 3 succeeded, 3 failed, 0 cancelled; 3 running, 3 waiting" in body
    totals = body[body.index('data-testid="run-totals"') :]
    assert '<td data-stage="screening">3 / 3 / 3</td>' in totals  # done / running / failed
    assert '<td data-stage="response">3 / 0 / 0</td>' in totals
    assert 'data-testid="run-tokens">12,000 / 2,400<' in body
    assert 'data-testid="run-cost">$0.1500<' in body
    for family in ("claude", "gpt", "gemini"):
        assert f'data-family="{family}"' in body
    failed = body[body.index('data-testid="failed-units"') :]
    assert failed.count("<tr data-unit=") == 3
    assert "HTTP 429" in failed and "rate_limited" in failed
    assert "Cancel run" in body and "Retry failed units (3)" in body


def test_the_whole_page_shows_the_runs_settings(admin, generation_corpus, make_run):
    run = make_run(generation_corpus["characters"][:1], generation_corpus["scenarios"])
    body = text(admin.get(reverse("corpus:generation-detail", args=[run.pk])))
    assert "<html" in body and 'id="run-progress"' in body
    assert SECRET_MODEL_NAMES["claude"] in body  # the admin sees provenance
    assert "screening v3 · re-ranking v3 · response v3" in body


@pytest.mark.parametrize(
    "status", ["finished", "finished_with_failures", "cancelled"], ids=lambda s: s
)
def test_a_finished_run_stops_polling(status, admin, generation_corpus, make_run):
    run = make_run(
        generation_corpus["characters"][:1],
        generation_corpus["scenarios"][:1],
        statuses=("succeeded", "failed"),
        run_status=status,
    )
    body = text(
        admin.get(reverse("corpus:generation-detail", args=[run.pk]), HTTP_HX_REQUEST="true")
    )
    assert POLLING not in body and 'data-polling="false"' in body
    assert "Cancel run" not in body
    assert ("Retry failed units" in body) == (status != "cancelled")


def test_failed_units_are_paginated(admin, generation_corpus, make_run):
    characters = generation_corpus["characters"] + [frozen_character() for _ in range(3)]
    scenarios = generation_corpus["scenarios"]
    run = make_run(characters, scenarios, statuses=("failed",))  # 5 × 2 × 3 = 30
    first = text(admin.get(reverse("corpus:generation-detail", args=[run.pk])))
    assert first.count("<tr data-unit=") == 25 and "Page 1 of 2" in first
    second = admin.get(reverse("corpus:generation-detail", args=[run.pk]) + "?page=2")
    body = text(second)
    assert body.count("<tr data-unit=") == 5
    assert f'hx-get="/corpus/generation/{run.pk}/?page=2"' in body  # the poll keeps the page


def test_the_unit_page_shows_its_call_records(admin, generation_corpus, make_run):
    run = make_run(generation_corpus["characters"][:1], generation_corpus["scenarios"][:1])
    unit = run.units.get(family="gpt")
    body = text(admin.get(reverse("corpus:generation-unit", args=[run.pk, unit.pk])))
    calls = body[body.index('data-testid="call-records"') :]
    assert calls.count("<details>") == 3  # request, raw response, parsed: collapsed
    assert "zqx request body" in calls and "raw response" in calls
    assert SECRET_MODEL_NAMES["gpt"] in calls
    assert "I stay and water the plants." in body  # the candidate it wrote
    other_run = make_run(generation_corpus["characters"][:1], generation_corpus["scenarios"][:1])
    wrong = reverse("corpus:generation-unit", args=[other_run.pk, unit.pk])
    assert admin.get(wrong).status_code == 404


# --- cancel and retry -----------------------------------------------------------------


def test_cancel_stops_the_waiting_units(admin, generation_corpus, make_run):
    run = make_run(generation_corpus["characters"], generation_corpus["scenarios"], statuses=MIXED)
    response = admin.post(reverse("corpus:generation-cancel", args=[run.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("corpus:generation-detail", args=[run.pk])
    run.refresh_from_db()
    assert run.status == GenerationRun.Status.CANCELLING  # 3 units are still screening
    assert not run.units.filter(status="pending").exists()
    assert run.units.filter(status="cancelled").count() == 3
    page = text(admin.get(response["Location"]))
    assert "is cancelling" in page and 'data-status="cancelling"' in page
    assert POLLING in page  # still polling until the in-flight units stop


def test_cancel_through_htmx_returns_the_fragment(admin, generation_corpus, make_run):
    run = make_run(
        generation_corpus["characters"][:1], generation_corpus["scenarios"], statuses=("pending",)
    )
    response = admin.post(
        reverse("corpus:generation-cancel", args=[run.pk]), HTTP_HX_REQUEST="true"
    )
    body = text(response).strip()
    assert response.status_code == 200 and body.startswith('<section id="run-progress"')
    assert 'data-status="cancelled"' in body and POLLING not in body
    # A second cancel is refused with the service's reason, inside the fragment.
    again = text(
        admin.post(reverse("corpus:generation-cancel", args=[run.pk]), HTTP_HX_REQUEST="true")
    )
    assert "only a pending or running run can be cancelled" in again


def test_cancel_and_retry_need_a_post(admin, generation_corpus, make_run):
    run = make_run(generation_corpus["characters"][:1], generation_corpus["scenarios"][:1])
    for name in ("corpus:generation-cancel", "corpus:generation-retry"):
        assert admin.get(reverse(name, args=[run.pk])).status_code == 405
        assert admin.post(reverse(name, args=[run.pk + 1000])).status_code == 404


def test_retry_reruns_only_the_failed_units(
    admin, offline_generation, generation_corpus, make_run, django_capture_on_commit_callbacks
):
    run = make_run(
        generation_corpus["characters"],
        generation_corpus["scenarios"],
        statuses=("succeeded", "failed"),
        run_status=GenerationRun.Status.FINISHED_WITH_FAILURES,
    )
    succeeded = {u.pk: u.updated_at for u in run.units.filter(status="succeeded")}
    failed = set(run.units.filter(status="failed").values_list("pk", flat=True))
    before = Candidate.objects.count()
    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(reverse("corpus:generation-retry", args=[run.pk]))
    assert response.status_code == 302
    run.refresh_from_db()
    assert run.status == GenerationRun.Status.FINISHED
    assert Candidate.objects.count() == before + len(failed)
    assert set(Candidate.objects.filter(run=run).values_list("unit_id", flat=True)) == (
        failed | set(succeeded)
    )
    for unit in run.units.filter(pk__in=succeeded):
        assert unit.updated_at == succeeded[unit.pk], "a succeeded unit was touched"
    assert LlmCallRecord.objects.filter(unit_id__in=succeeded).count() == len(succeeded)


def test_retry_without_failed_units_is_refused(admin, generation_corpus, make_run):
    run = make_run(
        generation_corpus["characters"][:1],
        generation_corpus["scenarios"][:1],
        run_status=GenerationRun.Status.FINISHED,
    )
    response = admin.post(reverse("corpus:generation-retry", args=[run.pk]), follow=True)
    assert "has no failed units to retry" in text(response)
    run.refresh_from_db()
    assert run.status == GenerationRun.Status.FINISHED


# --- list and home --------------------------------------------------------------------


def test_the_run_list_shows_status_and_progress(admin, generation_corpus, make_run):
    run = make_run(generation_corpus["characters"], generation_corpus["scenarios"], statuses=MIXED)
    body = text(admin.get(reverse("corpus:generation-list")))
    row = body[body.index(f'<tr data-run="{run.pk}">') :]
    row = row[: row.index("</tr>")]
    assert 'data-status="running"' in row and ">50%<" in row and "6 / 12" in row
    assert run.created_by.username in row


def test_the_admin_home_links_the_runs_and_counts_the_running_ones(
    admin, generation_corpus, make_run
):
    body = text(admin.get(reverse("home")))
    assert f'href="{reverse("corpus:generation-list")}"' in body
    assert 'data-testid="running-runs"' not in body
    make_run(generation_corpus["characters"][:1], generation_corpus["scenarios"][:1])
    make_run(generation_corpus["characters"][:1], generation_corpus["scenarios"][:1])
    make_run(
        generation_corpus["characters"][:1],
        generation_corpus["scenarios"][:1],
        run_status="finished",
    )
    assert 'data-testid="running-runs">2 running<' in text(admin.get(reverse("home")))


# --- prompts --------------------------------------------------------------------------


def test_the_prompt_page_shows_each_stages_current_version(admin, default_prompts):
    body = text(admin.get(reverse("corpus:prompt-list")))
    for stage in ("screening", "reranking", "response"):
        section = body[body.index(f'data-stage="{stage}"') :]
        assert "Current: v3" in section[:2000]
        assert f'href="{reverse("corpus:prompt-new", args=[stage])}"' in section


def test_a_new_prompt_version_is_prefilled_and_saved_as_the_next_number(admin, default_prompts):
    current = PromptVersion.objects.get(stage="response", number=3)
    url = reverse("corpus:prompt-new", args=["response"])
    form = text(admin.get(url))
    assert "Saving creates v4" in form
    assert current.user_template.splitlines()[0].replace("'", "&#x27;") in form
    response = admin.post(
        url,
        {
            "system_template": current.system_template + "\nAlways answer in English.",
            "user_template": current.user_template,
            "note": "English only",
        },
    )
    assert response.status_code == 302 and response["Location"] == reverse("corpus:prompt-list")
    v4 = PromptVersion.objects.get(stage="response", number=4)
    assert v4.system_template.endswith("Always answer in English.")
    assert v4.note == "English only"
    assert PromptVersion.objects.get(pk=current.pk).system_template == current.system_template
    assert "Current: v4" in text(admin.get(reverse("corpus:prompt-list")))


def test_a_prompt_with_an_unknown_placeholder_is_refused(admin, default_prompts):
    url = reverse("corpus:prompt-new", args=["screening"])
    response = admin.post(url, {"system_template": "Screen.", "user_template": "{nonsense}"})
    assert response.status_code == 200
    assert "Unknown placeholder {nonsense}" in text(response)
    assert PromptVersion.objects.filter(stage="screening").count() == 3


def test_an_unknown_stage_is_404(admin, default_prompts):
    assert admin.get(reverse("corpus:prompt-new", args=["tasting"])).status_code == 404


# --- query counts ---------------------------------------------------------------------


def count_queries(client, url, **headers):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        assert client.get(url, **headers).status_code == 200
    return len(captured)


def test_the_run_list_issues_a_fixed_number_of_queries(admin, generation_corpus, make_run):
    url = reverse("corpus:generation-list")
    make_run(generation_corpus["characters"][:1], generation_corpus["scenarios"][:1])
    few = count_queries(admin, url)
    for _ in range(4):
        make_run(generation_corpus["characters"], generation_corpus["scenarios"], statuses=MIXED)
    assert count_queries(admin, url) == few


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "fragment"])
def test_the_run_page_issues_a_fixed_number_of_queries(htmx, admin, generation_corpus, make_run):
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    small = make_run(
        generation_corpus["characters"][:1], generation_corpus["scenarios"][:1], statuses=MIXED
    )
    characters = generation_corpus["characters"] + [frozen_character(1) for _ in range(3)]
    large = make_run(characters, generation_corpus["scenarios"], statuses=MIXED)
    few = count_queries(admin, reverse("corpus:generation-detail", args=[small.pk]), **headers)
    many = count_queries(admin, reverse("corpus:generation-detail", args=[large.pk]), **headers)
    assert few == many


def test_the_unit_page_issues_a_fixed_number_of_queries(admin, generation_corpus, make_run):
    run = make_run(generation_corpus["characters"][:1], generation_corpus["scenarios"][:1])
    unit = run.units.first()
    url = reverse("corpus:generation-unit", args=[run.pk, unit.pk])
    few = count_queries(admin, url)
    for _ in range(5):
        LlmCallRecord.objects.create(
            unit=unit, stage="response", provider="gpt", model="m", prompt_hash="1", ok=True
        )
    assert count_queries(admin, url) == few


# --- API ------------------------------------------------------------------------------


@pytest.fixture
def api_admin(make_user):
    client = APIClient()
    client.force_authenticate(make_user(Role.ADMIN))
    return client


def test_the_api_launches_a_run_and_reports_its_progress(
    api_admin, offline_generation, generation_corpus, django_capture_on_commit_callbacks
):
    character = generation_corpus["characters"][1]
    with django_capture_on_commit_callbacks(execute=True):
        response = api_admin.post(
            reverse("generation-api:run-list"),
            {"families": ["claude"], "characters": [character.key], "note": "api"},
            format="json",
        )
    assert response.status_code == 201, response.content
    run_id = response.json()["id"]
    detail = api_admin.get(reverse("generation-api:run-detail", args=[run_id])).json()
    assert detail["status"] == "finished"
    assert detail["pair_filter"] == {"characters": [character.key]}
    progress = detail["progress"]
    assert progress["total"] == progress["finished"] == 2
    assert progress["by_family"]["claude"]["succeeded"] == 2
    assert progress["by_stage"]["response"]["done"] == 2
    listing = api_admin.get(reverse("generation-api:run-list")).json()
    assert listing["results"][0]["id"] == run_id and listing["results"][0]["units_done"] == 2
    units = api_admin.get(reverse("generation-api:unit-list", args=[run_id]), {"status": "failed"})
    assert units.json()["count"] == 0
    refused = api_admin.post(reverse("generation-api:run-cancel", args=[run_id]))
    assert refused.status_code == 409 and "cancelled" in refused.json()["detail"]


def test_the_api_refuses_a_bad_launch_and_creates_nothing(
    api_admin, offline_generation, generation_corpus
):
    response = api_admin.post(
        reverse("generation-api:run-list"),
        {"families": ["gpt"], "characters": ["CHAR_98"]},
        format="json",
    )
    assert response.status_code == 400
    assert "Unknown character CHAR_98." in response.json()["fields"]["characters"]
    response = api_admin.post(reverse("generation-api:run-list"), {"families": ["mistral"]})
    assert response.status_code == 400 and "families" in response.json()["fields"]
    assert GenerationRun.objects.count() == 0


def test_the_api_cancels_and_retries(
    api_admin, offline_generation, generation_corpus, make_run, django_capture_on_commit_callbacks
):
    run = make_run(
        generation_corpus["characters"][:1],
        generation_corpus["scenarios"],
        statuses=("failed", "succeeded"),
        run_status="finished_with_failures",
    )
    failed = api_admin.get(reverse("generation-api:unit-list", args=[run.pk]), {"status": "failed"})
    assert failed.json()["count"] == 3
    assert {u["error_kind"] for u in failed.json()["results"]} == {"rate_limited"}
    with django_capture_on_commit_callbacks(execute=True):
        response = api_admin.post(reverse("generation-api:run-retry", args=[run.pk]))
    assert response.status_code == 200 and response.json()["status"] == "running"
    # The queued units ran when the request's transaction committed.
    detail = api_admin.get(reverse("generation-api:run-detail", args=[run.pk])).json()
    assert detail["status"] == "finished"
    assert detail["progress"]["by_status"]["failed"] == 0
    pending = make_run(
        generation_corpus["characters"][:1], generation_corpus["scenarios"], statuses=("pending",)
    )
    response = api_admin.post(reverse("generation-api:run-cancel", args=[pending.pk]))
    assert response.status_code == 200 and response.json()["status"] == "cancelled"
