"""The export page and its jobs (issue #23): admins only (403 for every other role), the
counts shown before a build, a build started after confirmation and built by the worker,
the jobs listed with who, when, size and SHA-256, progress polled while a build runs,
downloads sent with their checksum, the former download URL kept working."""

import base64
import hashlib
import io
import json
import zipfile

import pytest
from django.test import Client
from django.urls import reverse

from adjudication.export import jobs
from adjudication.export.models import ExportJob
from adjudication.export.selectors import export_home_queues
from adjudication.export.services import build_export
from adjudication.mcq.models import McqItem
from core.roles import Role
from tests.factories import ScenarioFactory, UserFactory

from .conftest import TARGET, make_item

pytestmark = pytest.mark.django_db


def _urls():
    job = ExportJob.objects.create(created_by=None, status=ExportJob.Status.FINISHED)
    return [
        ("get", reverse("export:home")),
        ("get", reverse("export:download")),
        ("get", reverse("export:job-download", args=[job.pk])),
        ("post", reverse("export:start")),
    ]


def _client(*roles, **kwargs):
    client = Client()
    client.force_login(UserFactory(roles=list(roles), **kwargs))
    return client


@pytest.mark.parametrize("role", [r for r in Role if r != Role.ADMIN])
def test_every_other_role_gets_403(secret_corpus, export_root, role):
    client = _client(role)
    for method, url in _urls():
        response = getattr(client, method)(url)
        assert response.status_code == 403, (role, url)
        assert secret_corpus["item"].question_id.encode() not in response.content
    assert ExportJob.objects.count() == 1  # the POST started nothing


def test_anonymous_visitors_are_sent_to_log_in(secret_corpus, export_root):
    for method, url in _urls():
        response = getattr(Client(), method)(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_the_page_shows_the_counts_and_a_confirmed_build_button(secret_corpus, export_root):
    client = _client(Role.ADMIN)
    response = client.get(reverse("export:home"))
    assert response.status_code == 200
    page = response.content.decode()
    assert '<td data-testid="export-final">1</td>' in page
    assert '<td data-testid="export-excluded">4</td>' in page
    assert f'action="{reverse("export:start")}"' in page
    assert 'data-confirm="Build a new export of the final set (1 item)?' in page
    assert "Build the final set (1 item)" in page
    assert "No export has been built yet." in page
    assert "hx-trigger" not in page  # nothing to poll


def test_a_build_is_stored_listed_and_downloaded_with_its_checksum(
    secret_corpus, eager_builds, export_root
):
    admin = UserFactory(username="export-admin", roles=[Role.ADMIN])
    client = Client()
    client.force_login(admin)
    with eager_builds():
        started = client.post(reverse("export:start"), {"kind": "final_set"})
    assert started.status_code == 302 and started["Location"] == reverse("export:home")
    response = client.get(reverse("export:home"))
    job = ExportJob.objects.get()
    assert job.status == ExportJob.Status.FINISHED, job.error
    assert job.created_by == admin and job.finished_at is not None
    assert job.done == job.total == 7 and job.step == "Finished"
    expected = build_export().zip_bytes()
    stored = (export_root / job.file_name).read_bytes()
    assert stored == expected
    assert job.size == len(expected) and job.sha256 == hashlib.sha256(expected).hexdigest()

    page = response.content.decode()
    assert f"Export job {job.pk} is queued" in page
    assert f'data-testid="export-job-{job.pk}"' in page
    assert "export-admin" in page and job.sha256 in page
    download_url = reverse("export:job-download", args=[job.pk])
    assert download_url in page

    download = client.get(download_url)
    assert download.status_code == 200
    assert download["Content-Type"] == "application/zip"
    assert 'filename="heartbench-final-set.zip"' in download["Content-Disposition"]
    body = b"".join(download.streaming_content)
    assert body == expected
    assert download["X-Checksum-SHA256"] == job.sha256
    assert (
        download["Digest"] == "sha-256=" + base64.b64encode(hashlib.sha256(body).digest()).decode()
    )
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        manifest = json.loads(archive.read("heartbench-final-set/manifest.json"))
    assert manifest["counts"]["final_items"] == 1


def test_two_builds_of_unchanged_data_are_byte_identical(secret_corpus, eager_builds):
    client = _client(Role.ADMIN)
    for _ in range(2):
        with eager_builds():
            client.post(reverse("export:start"), {"kind": "final_set"})
    first, second = ExportJob.objects.order_by("pk")
    assert first.file_name != second.file_name
    assert first.sha256 == second.sha256 and first.size == second.size
    assert jobs.job_file(first).read_bytes() == jobs.job_file(second).read_bytes()


def test_starting_while_a_build_runs_returns_the_running_job(secret_corpus, export_root):
    running = ExportJob.objects.create(status=ExportJob.Status.RUNNING, done=2, total=7)
    client = _client(Role.ADMIN)
    response = client.post(reverse("export:start"), {"kind": "final_set"}, follow=True)
    assert ExportJob.objects.get() == running
    page = response.content.decode()
    assert f"Export job {running.pk} is already building this export" in page


def test_an_unknown_kind_is_refused_with_a_message(secret_corpus, export_root):
    client = _client(Role.ADMIN)
    response = client.post(reverse("export:start"), {"kind": "everything"}, follow=True)
    assert not ExportJob.objects.exists()
    assert "&#x27;everything&#x27; is not an export you can build" in response.content.decode()


def test_the_job_list_polls_while_a_build_runs(secret_corpus, export_root):
    job = ExportJob.objects.create(
        status=ExportJob.Status.RUNNING, done=3, total=7, step="Writing the construction record"
    )
    client = _client(Role.ADMIN)
    page = client.get(reverse("export:home")).content.decode()
    assert 'hx-trigger="every 1s"' in page
    assert "Writing the construction record (3/7)" in page
    assert 'aria-valuenow="43"' in page

    fragment = client.get(reverse("export:home"), HTTP_HX_REQUEST="true").content.decode()
    assert fragment.lstrip().startswith('<section id="export-jobs"')
    assert "<html" not in fragment and "Writing the construction record" in fragment

    ExportJob.objects.filter(pk=job.pk).update(status=ExportJob.Status.FAILED, error="Boom")
    fragment = client.get(reverse("export:home"), HTTP_HX_REQUEST="true").content.decode()
    assert "hx-trigger" not in fragment and "Boom" in fragment


def test_a_failed_build_records_its_error(secret_corpus, eager_builds, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(jobs, "build_export", broken)
    client = _client(Role.ADMIN)
    with eager_builds():
        client.post(reverse("export:start"), {"kind": "final_set"})
    job = ExportJob.objects.get()
    assert job.status == ExportJob.Status.FAILED
    assert job.error == "RuntimeError: the disk is full" and not job.file_name
    assert client.get(reverse("export:job-download", args=[job.pk])).status_code == 404


def test_the_former_download_url_redirects_to_the_newest_finished_job(secret_corpus, eager_builds):
    client = _client(Role.ADMIN)
    response = client.get(reverse("export:download"), follow=True)
    assert response.redirect_chain[-1][0] == reverse("export:home")
    assert "No export has been built yet: start a build below." in response.content.decode()

    for _ in range(2):
        with eager_builds():
            client.post(reverse("export:start"), {"kind": "final_set"})
    newest = ExportJob.objects.order_by("-pk").first()
    ExportJob.objects.create(status=ExportJob.Status.RUNNING)  # not finished: not offered
    response = client.get(reverse("export:download"))
    assert response.status_code == 302
    assert response["Location"] == reverse("export:job-download", args=[newest.pk])
    assert b"".join(client.get(response["Location"]).streaming_content) == (
        build_export().zip_bytes()
    )


def test_the_page_issues_a_fixed_number_of_queries(
    secret_corpus, export_root, django_assert_num_queries
):
    ExportJob.objects.create(status=ExportJob.Status.FINISHED, created_by=UserFactory())
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
        ExportJob.objects.create(status=ExportJob.Status.FAILED, created_by=UserFactory())
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
