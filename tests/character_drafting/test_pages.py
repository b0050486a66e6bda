"""The admin's drafting pages and API: admins only, the design is checked before it is
launched, the job page's query count does not grow with its drafts, and every drafting
model is in the Django admin."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.character_drafting import design
from annotation.character_drafting.models import CharacterDraft, DraftingJob
from annotation.character_drafting.services import execution, jobs
from core.roles import Role
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def login(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def finished_job(drafting_admin, drafting_provider):
    job = jobs.drafting_job_create(
        user=drafting_admin,
        plan=[design.anchored("CHAR_05", "E", "high")],
        design=DraftingJob.Design.CUSTOM,
    )
    for draft in job.drafts.all():
        execution.character_draft_execute(draft_id=draft.pk)
    return job


def page_urls(job):
    draft = job.drafts.get()
    return [
        reverse("drafting:job-list"),
        reverse("drafting:job-new"),
        reverse("drafting:job-detail", kwargs={"job_id": job.pk}),
        reverse("drafting:draft-detail", kwargs={"job_id": job.pk, "id": draft.pk}),
        reverse("drafting:redraft-list"),
        reverse("drafting:redraft-new", kwargs={"key": "CHAR_05"}),
        reverse("drafting:prompt-list"),
        reverse("drafting:prompt-new"),
        reverse("drafting-api:job-list"),
        reverse("drafting-api:job-detail", kwargs={"job_id": job.pk}),
    ]


def test_only_admins_open_the_drafting_pages_and_api(finished_job, drafting_admin):
    annotator = UserFactory(username="annotator", roles=[Role.PRIMARY_ANNOTATOR])
    senior = UserFactory(username="senior-2", roles=[Role.ARBITRATOR])
    for url in page_urls(finished_job):
        assert login(drafting_admin).get(url).status_code == 200, url
        assert login(annotator).get(url).status_code == 403, url
        assert login(senior).get(url).status_code == 403, url
        anonymous = Client().get(url)
        assert anonymous.status_code in (302, 401, 403), url
        if not url.startswith("/api/"):
            assert anonymous["Location"].startswith(reverse("login")), url
    retry = reverse("drafting:job-retry", kwargs={"job_id": finished_job.pk})
    assert login(annotator).post(retry).status_code == 403


def test_the_job_page_shows_each_draft_with_its_version_and_the_draft_page_its_prompt(
    finished_job, drafting_admin
):
    client = login(drafting_admin)
    body = client.get(reverse("drafting:job-detail", kwargs={"job_id": finished_job.pk})).content
    assert b'data-key="CHAR_05"' in body and b"Character 5 v1" in body and b"E high" in body
    draft = finished_job.drafts.get()
    body = client.get(
        reverse("drafting:draft-detail", kwargs={"job_id": finished_job.pk, "id": draft.pk})
    ).content.decode()
    assert "Character key: CHAR_05" in body and "fake-drafter" in body
    assert "core_patterns" in body
    api = client.get(reverse("drafting-api:job-detail", kwargs={"job_id": finished_job.pk})).json()
    call = api["drafts"][0]["calls"][0]
    assert api["drafts"][0]["profile_version"] == 1 and "CHAR_05" in call["user"]


def test_the_design_is_checked_then_launched_only_as_shown(drafting_admin, drafting_provider):
    client = login(drafting_admin)
    url = reverse("drafting:job-new")
    form = {"design": "custom", "custom_design": "CHAR_12: E low\nCHAR_13: neutral", "model": ""}
    preview = client.post(url, {**form, "preview": "1"})
    body = preview.content.decode()
    assert 'data-key="CHAR_12"' in body and 'data-key="CHAR_13"' in body
    assert 'name="launch"' in body and not DraftingJob.objects.exists()
    digest = preview.context["form"]["confirmed_plan"].value()
    # A launch whose plan was not the one shown is refused.
    changed = client.post(
        url, {**form, "custom_design": "CHAR_12: E high", "confirmed_plan": digest, "launch": "1"}
    )
    assert "The plan changed since it was checked" in changed.content.decode()
    assert not DraftingJob.objects.exists()
    launched = client.post(url, {**form, "confirmed_plan": digest, "launch": "1"})
    job = DraftingJob.objects.get()
    assert launched.status_code == 302 and launched["Location"] == reverse(
        "drafting:job-detail", kwargs={"job_id": job.pk}
    )
    assert sorted(job.drafts.values_list("char_key", flat=True)) == ["CHAR_12", "CHAR_13"]


def test_a_bad_custom_line_is_shown_and_nothing_is_created(drafting_admin, drafting_provider):
    response = login(drafting_admin).post(
        reverse("drafting:job-new"),
        {"design": "custom", "custom_design": "CHAR_12: sideways", "preview": "1"},
    )
    assert "Line 1" in response.content.decode() and not DraftingJob.objects.exists()


def test_without_a_provider_the_page_says_how_to_configure_one(
    drafting_admin, settings, monkeypatch
):
    settings.HEARTBENCH_DRAFTING_PROVIDER = None
    monkeypatch.delenv("HEARTBENCH_DRAFTING_KIND", raising=False)
    monkeypatch.delenv("HEARTBENCH_DRAFTING_BASE_URL", raising=False)
    body = login(drafting_admin).get(reverse("drafting:job-new")).content.decode()
    assert "No drafting model is configured" in body and "HEARTBENCH_DRAFTING_KIND" in body


def _add_drafts(job, count, start=0):
    CharacterDraft.objects.bulk_create(
        [
            CharacterDraft(
                job=job,
                char_key=f"CHAR_{40 + start + n:02d}",
                planned=design.anchored(f"CHAR_{40 + start + n:02d}", "O", "low").as_dict(),
                status=CharacterDraft.Status.FAILED,
                problems=["big_five.O must be exactly 0.10"],
            )
            for n in range(count)
        ]
    )


def test_the_job_page_issues_the_same_queries_for_one_draft_or_many(
    finished_job, drafting_admin, django_assert_num_queries
):
    client = login(drafting_admin)
    url = reverse("drafting:job-detail", kwargs={"job_id": finished_job.pk})
    client.get(url)
    for htmx in ({}, {"HTTP_HX_REQUEST": "true"}):
        with CaptureQueriesContext(connection) as one:
            client.get(url, **htmx)
        _add_drafts(finished_job, 9, start=len(htmx) * 10)
        with django_assert_num_queries(len(one)):
            body = client.get(url, **htmx).content.decode()
        assert "Retry failed drafts (9)" in body or "Retry failed drafts (18)" in body
    assert body.count("data-draft=") == 19


def test_the_drafting_models_are_in_the_django_admin(finished_job, admin_client):
    draft = finished_job.drafts.get()
    for name, obj in [
        ("draftingjob", finished_job),
        ("characterdraft", draft),
        ("draftingcall", draft.calls.get()),
        ("draftingprompt", finished_job.prompt),
    ]:
        assert admin_client.get(reverse(f"admin:annotation_{name}_changelist")).status_code == 200
        change = reverse(f"admin:annotation_{name}_change", args=[obj.pk])
        assert admin_client.get(change).status_code == 200, name
