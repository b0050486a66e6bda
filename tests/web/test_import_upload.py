"""The admin's upload page and the import API: files become an import job, the job is
queued once committed, and its page polls with htmx until the worker is done."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.corpus.models import Scenario
from annotation.corpus_import.models import ImportJob, ImportJobFile
from core.roles import CORPUS_ADMINS, Role

BROKEN_JSON = b'{"scenarios": {"school_age": [ {"id": "SCN_SCHOOL_AGE_1", '


@pytest.fixture
def eager(settings):
    """Run queued tasks in the request, as the demo does."""
    from heartbench_site.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = True
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


@pytest.fixture
def admin(client_for):
    return client_for(Role.ADMIN)


def upload(name, content):
    return SimpleUploadedFile(name, content, content_type="application/octet-stream")


def test_the_upload_form_takes_several_files(admin):
    body = admin.get(reverse("corpus:import")).content.decode()
    assert 'enctype="multipart/form-data"' in body
    field = body[body.index('type="file"') - 200 : body.index('type="file"') + 200]
    assert "multiple" in field and 'name="files"' in field
    assert "data-drop-zone" in body
    assert re.search(r'<label\s+for="id_files"', body)  # a labelled, focusable input


def test_uploading_the_release_scenarios_imports_them(
    admin, eager, release_dir, django_capture_on_commit_callbacks
):
    content = (release_dir / "scenarios.json").read_bytes()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = admin.post(
            reverse("corpus:import"), {"files": [upload("scenarios.json", content)]}
        )
    assert len(callbacks) == 1, "the job is queued once, after commit"
    job = ImportJob.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("corpus:import-job", args=[job.pk])
    job.refresh_from_db()
    assert job.status == ImportJob.Status.SUCCEEDED, job.errors
    assert Scenario.objects.count() == 64
    page = admin.get(response["Location"]).content.decode()
    counts = page[page.index('data-testid="import-counts"') :]
    row = counts[counts.index('data-kind="scenarios"') :]
    assert '<td class="text-end">64</td>' in row[: row.index("</tr>")]
    assert 'hx-trigger="every 1s"' not in page  # finished: the page stops polling
    assert "scenarios.json" in page


def test_a_broken_file_shows_its_errors_and_imports_nothing(
    admin, eager, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(
            reverse("corpus:import"), {"files": [upload("scenarios.json", BROKEN_JSON)]}
        )
    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.FAILED
    assert job.errors and job.errors[0]["file"] == "scenarios.json"
    assert Scenario.objects.count() == 0
    page = admin.get(response["Location"]).content.decode()
    errors = page[page.index('data-testid="import-errors"') :]
    assert "scenarios.json" in errors
    assert job.errors[0]["message"] in errors or job.errors[0]["message"][:40] in errors


def test_a_pending_job_polls_every_second_and_htmx_gets_only_the_fragment(admin, make_user):
    job = ImportJob.objects.create(created_by=make_user(Role.ADMIN))
    url = reverse("corpus:import-job", args=[job.pk])
    page = admin.get(url).content.decode()
    assert f'hx-get="{url}"' in page and 'hx-trigger="every 1s"' in page
    assert f'href="{url}"' in page  # still works without JavaScript
    fragment = admin.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert fragment.lstrip().startswith('<section id="job-status"')
    assert "<html" not in fragment and 'hx-trigger="every 1s"' in fragment
    job.status = ImportJob.Status.SUCCEEDED
    job.summary = {"counts": {"scenarios": {"created": 64, "updated": 0, "unchanged": 0}}}
    job.save()
    done = admin.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert 'hx-trigger="every 1s"' not in done and "Imported" in done


def test_the_upload_page_lists_recent_jobs(admin, make_user):
    jobs = [ImportJob.objects.create(created_by=make_user(Role.ADMIN)) for _ in range(3)]
    body = admin.get(reverse("corpus:import")).content.decode()
    table = body[body.index('data-testid="import-jobs"') :]
    positions = [table.index(f">Job {job.pk}<") for job in jobs]
    assert positions == sorted(positions, reverse=True)  # newest first


def test_an_empty_upload_is_refused_with_a_message(admin):
    response = admin.post(reverse("corpus:import"), {})
    assert response.status_code == 200
    assert "This field is required" in response.content.decode()
    assert not ImportJob.objects.exists()


@pytest.mark.parametrize("role", sorted(set(Role) - CORPUS_ADMINS), ids=str)
def test_only_admins_may_upload(role, client_for):
    response = client_for(role).post(
        reverse("corpus:import"), {"files": [upload("scenarios.json", b"{}")]}
    )
    assert response.status_code == 403
    assert not ImportJob.objects.exists()


def test_the_import_api_creates_and_queues_a_job(
    make_user, eager, release_dir, django_capture_on_commit_callbacks
):
    client = APIClient()
    client.force_login(make_user(Role.ADMIN))
    content = (release_dir / "scenarios.json").read_bytes()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("corpus-api:import-list"),
            {"files": [upload("scenarios.json", content)]},
            format="multipart",
        )
    assert response.status_code == 202, response.content
    data = response.json()
    assert data["files"] == [{"name": "scenarios.json", "size": len(content)}]
    status = client.get(reverse("corpus-api:import-detail", args=[data["id"]])).json()
    assert status["status"] == "succeeded", status["errors"]
    assert Scenario.objects.count() == 64


def test_the_import_api_refuses_non_admins_and_empty_uploads(make_user):
    client = APIClient()
    client.force_login(make_user(Role.ARBITRATOR))
    url = reverse("corpus-api:import-list")
    refused = client.post(url, {"files": [upload("x.json", b"{}")]}, format="multipart")
    assert refused.status_code == 403
    client.force_login(make_user(Role.ADMIN))
    assert client.post(url, {}, format="multipart").status_code == 400
    assert not ImportJob.objects.exists()


def test_import_pages_issue_a_fixed_number_of_queries(admin, make_user, django_assert_num_queries):
    owner = make_user(Role.ADMIN)
    job = ImportJob.objects.create(created_by=owner)
    for expected_jobs in (1, 15):
        while ImportJob.objects.count() < expected_jobs:
            ImportJob.objects.create(created_by=make_user(Role.ADMIN))
            ImportJobFile.objects.create(job=job, name="f.json", content=b"{}", size=2)
        # session, user, groups + the jobs with their creators and file counts
        with django_assert_num_queries(4):
            admin.get(reverse("corpus:import"))
        # session, user, groups + the job with its creator + its files' names
        with django_assert_num_queries(5):
            admin.get(reverse("corpus:import-job", args=[job.pk]))
