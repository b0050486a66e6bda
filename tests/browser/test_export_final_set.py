"""An admin opens the export page, reads the counts, starts a build (after the
confirmation), watches the worker's job finish without reloading, and downloads it: the
zip the browser saves has the SHA-256 the page lists and holds the release layouts, the
model-facing files, the dataset card and a manifest whose hashes match."""

import hashlib
import json
import zipfile

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from adjudication.export.models import ExportJob
from adjudication.export.services import verify_manifest
from annotation.corpus_import.importing import import_files
from core.roles import Role
from tests.corpus_import import as_json, release_files, small_characters
from tests.factories import DEFAULT_PASSWORD, UserFactory

from .confirming import submit_and_confirm

pytestmark = [pytest.mark.browser, pytest.mark.worker]


@pytest.fixture
def admin_username(transactional_db, release_dir):
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    import_files([("characters.json", as_json({"characters": small_characters(11, 2)}))])
    import_files(release_files(release_dir, ("scenarios.json", "ground_truth.json", "mcq.json")))
    return UserFactory(username="admin-export", roles=[Role.ADMIN]).username


def test_admin_builds_follows_and_downloads_the_final_set(
    page, live_server, admin_username, celery_worker_factory, settings, tmp_path
):
    root = tmp_path / "exports"
    settings.EXPORT_ROOT = root
    celery_worker_factory(extra_env={"EXPORT_ROOT": str(root)}, name="export-browser")
    page.goto(f"{live_server.url}/export/")
    page.get_by_label("Username").fill(admin_username)
    page.get_by_label("Password").fill(DEFAULT_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/export/")

    assert page.get_by_test_id("export-final").inner_text() == "673"
    assert page.get_by_test_id("export-excluded").inner_text() == "0"
    expect(page.get_by_text("No export has been built yet.")).to_be_visible()
    submit_and_confirm(page, page.get_by_role("button", name="Build the final set (673 items)"))
    job = ExportJob.objects.get()
    expect(page.get_by_text(f"Export job {job.pk} is queued")).to_be_visible()

    # The list refreshes itself (htmx) until the worker has finished the build.
    row = page.get_by_test_id(f"export-job-{job.pk}")
    row.get_by_text("Finished").wait_for(timeout=120_000)
    job.refresh_from_db()
    assert row.get_by_test_id("export-job-sha256").inner_text() == job.sha256
    assert admin_username in row.inner_text()

    with page.expect_download() as info:
        row.get_by_role("link", name=f"Download job {job.pk}").click()
    download = info.value
    assert download.suggested_filename == "heartbench-final-set.zip"
    target = tmp_path / download.suggested_filename
    download.save_as(target)
    assert hashlib.sha256(target.read_bytes()).hexdigest() == job.sha256

    with zipfile.ZipFile(target) as archive:
        files = {
            n.removeprefix("heartbench-final-set/"): archive.read(n) for n in archive.namelist()
        }
    assert verify_manifest(files) == []
    questions = json.loads(files["release/mcq.json"])["questions"]
    assert len(questions) == 673
    assert "correct_answer" not in files["model_facing/items.json"].decode()
    assert "config_name: model_facing" in files["README.md"].decode()
