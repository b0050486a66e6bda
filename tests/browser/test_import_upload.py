"""An admin uploads the release's scenarios.json through the page; a real Celery worker
imports it while the job page polls with htmx until it shows the summary."""

import pytest
from django.contrib.auth.models import Group

from annotation.corpus.models import Scenario
from annotation.corpus_import.models import ImportJob
from core.roles import Role
from tests.factories import DEFAULT_PASSWORD, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.worker]


@pytest.fixture
def admin_username(transactional_db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    return UserFactory(username="admin-upload", roles=[Role.ADMIN]).username


def test_upload_the_release_scenarios_and_watch_the_job_finish(
    page, live_server, admin_username, celery_worker_process, release_dir
):
    page.goto(f"{live_server.url}/corpus/import/")
    page.get_by_label("Username").fill(admin_username)
    page.get_by_label("Password").fill(DEFAULT_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/corpus/import/")

    page.get_by_label("Corpus files").set_input_files(str(release_dir / "scenarios.json"))
    assert "scenarios.json" in page.locator("[data-drop-zone-files]").inner_text()
    page.get_by_role("button", name="Import").click()
    page.wait_for_url(f"{live_server.url}/corpus/import/*/")

    # No reload: htmx replaces the status section until the worker has finished.
    status = page.locator("#job-status [data-status]")
    status.and_(page.locator('[data-status="succeeded"]')).wait_for(timeout=60_000)
    counts = page.get_by_test_id("import-counts")
    assert "64" in counts.locator('[data-kind="scenarios"]').inner_text()
    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.SUCCEEDED
    assert Scenario.objects.count() == 64
