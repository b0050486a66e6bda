"""Export jobs over REST with tokens only (issue #23): admins list jobs, start a build
(201, or 200 with the build of that kind already under way), follow its progress and
download the stored zip with its SHA-256 in the headers; every other role gets 403."""

import base64
import hashlib

import pytest
from django.urls import reverse

from adjudication.export.models import ExportJob
from adjudication.export.services import build_export
from core.roles import Role
from tests.export import conftest as export_fixtures

# The export tests' fixtures: a small corpus, a tmp EXPORT_ROOT, builds run in-process.
secret_corpus = export_fixtures.secret_corpus
export_root = export_fixtures.export_root
eager_builds = export_fixtures.eager_builds

pytestmark = pytest.mark.django_db
JOBS = reverse("export-api:jobs")


def job_url(pk):
    return reverse("export-api:job", args=[pk])


def download_url(pk):
    return reverse("export-api:job-download", args=[pk])


@pytest.mark.parametrize("role", [r for r in Role if r != Role.ADMIN])
def test_every_other_role_gets_403(api_user, export_root, role):
    job = ExportJob.objects.create(status=ExportJob.Status.FINISHED)
    _, client = api_user(role)
    assert client.get(JOBS).status_code == 403
    assert client.post(JOBS, {"kind": "final_set"}, format="json").status_code == 403
    assert client.get(job_url(job.pk)).status_code == 403
    assert client.get(download_url(job.pk)).status_code == 403
    assert ExportJob.objects.count() == 1


def test_without_a_token_nothing_is_answered(client, export_root):
    assert client.get(JOBS).status_code in (401, 403)


def test_an_admin_builds_follows_and_downloads_an_export(
    secret_corpus, api_user, eager_builds, export_root
):
    admin, client = api_user(Role.ADMIN, username="export-script")
    with eager_builds():
        started = client.post(JOBS, {"kind": "final_set"}, format="json")
    assert started.status_code == 201
    assert started.data["kind"] == "final_set" and started.data["created_by"] == "export-script"
    assert started["ETag"]
    pk = started.data["id"]

    detail = client.get(job_url(pk))
    assert detail.status_code == 200
    job = ExportJob.objects.get(pk=pk)
    assert detail.data["status"] == "finished" and detail.data["percent"] == 100
    assert detail.data["done"] == detail.data["total"] == 7
    assert detail.data["sha256"] == job.sha256 and detail.data["size"] == job.size
    assert detail.data["download_url"].endswith(download_url(pk))
    assert detail["ETag"] != started["ETag"]  # the build moved on

    download = client.get(download_url(pk))
    assert download.status_code == 200
    body = b"".join(download.streaming_content)
    assert body == build_export().zip_bytes()
    digest = hashlib.sha256(body)
    assert download["X-Checksum-SHA256"] == digest.hexdigest() == job.sha256
    assert download["Digest"] == "sha-256=" + base64.b64encode(digest.digest()).decode()
    assert 'filename="heartbench-final-set.zip"' in download["Content-Disposition"]


def test_starting_again_while_a_build_runs_answers_the_running_job(api_user, export_root):
    _, client = api_user(Role.ADMIN)
    first = client.post(JOBS, {"kind": "final_set"}, format="json")  # no worker: stays queued
    assert first.status_code == 201 and first.data["status"] == "queued"
    again = client.post(JOBS, {}, format="json")
    assert again.status_code == 200 and again.data["id"] == first.data["id"]
    assert ExportJob.objects.count() == 1

    not_yet = client.get(download_url(first.data["id"]))
    assert not_yet.status_code == 409
    assert not_yet.data["detail"] == (
        f"Export job {first.data['id']} is queued: download it once finished."
    )
    assert client.get(job_url(first.data["id"])).data["download_url"] is None


def test_an_unknown_kind_answers_400_naming_the_field(api_user, export_root):
    _, client = api_user(Role.ADMIN)
    response = client.post(JOBS, {"kind": "everything"}, format="json")
    assert response.status_code == 400
    assert response.data["fields"]["kind"][0].startswith(
        "'everything' is not an export you can build"
    )
    assert not ExportJob.objects.exists()
    listed = client.post(JOBS, [{"kind": "final_set"}], format="json")
    assert listed.status_code == 400 and "kind" in listed.data["detail"][0]
    assert client.post(JOBS, {"kind": ["final_set"]}, format="json").status_code == 400


def test_an_unknown_job_answers_404(api_user, export_root):
    _, client = api_user(Role.ADMIN)
    assert client.get(job_url(9999)).status_code == 404
    assert client.get(download_url(9999)).status_code == 404


def test_a_finished_job_whose_file_is_gone_answers_404(api_user, export_root):
    job = ExportJob.objects.create(
        status=ExportJob.Status.FINISHED, file_name="final_set-1.zip", sha256="0" * 64
    )
    _, client = api_user(Role.ADMIN)
    response = client.get(download_url(job.pk))
    assert response.status_code == 404
    assert "no longer stored" in response.data["detail"]


def test_the_list_is_paginated_filtered_and_ordered(api_user, export_root):
    admin, client = api_user(Role.ADMIN, username="lister")
    done = [
        ExportJob.objects.create(status=ExportJob.Status.FINISHED, size=n * 10, created_by=admin)
        for n in range(3)
    ]
    failed = ExportJob.objects.create(status=ExportJob.Status.FAILED, error="Boom")
    response = client.get(JOBS, {"page_size": 2})
    assert response.status_code == 200
    assert response.data["count"] == 4 and len(response.data["results"]) == 2
    assert response.data["next"]
    assert [r["id"] for r in response.data["results"]] == [failed.pk, done[2].pk]  # newest first

    finished = client.get(JOBS, {"status": "finished", "ordering": "-size"}).data
    assert [r["id"] for r in finished["results"]] == [j.pk for j in reversed(done)]
    mine = client.get(JOBS, {"created_by": "lister"}).data
    assert mine["count"] == 3
    assert client.get(JOBS, {"ordering": "error"}).status_code == 400
    assert client.get(JOBS, {"status": "lost"}).status_code == 400
