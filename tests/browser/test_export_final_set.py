"""An admin opens the export page, reads the counts, and downloads the final set: the
zip the browser saves holds the release layouts, the model-facing files and a manifest
whose hashes match."""

import json
import zipfile

import pytest
from django.contrib.auth.models import Group

from adjudication.export.services import verify_manifest
from annotation.corpus_import.importing import import_files
from heartbench_site.base.roles import Role
from tests.corpus_import import as_json, release_files, small_characters
from tests.factories import DEFAULT_PASSWORD, UserFactory

pytestmark = pytest.mark.browser


@pytest.fixture
def admin_username(transactional_db, release_dir):
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    import_files([("characters.json", as_json({"characters": small_characters(11, 2)}))])
    import_files(release_files(release_dir, ("scenarios.json", "ground_truth.json", "mcq.json")))
    return UserFactory(username="admin-export", roles=[Role.ADMIN]).username


def test_admin_reads_the_counts_and_downloads_the_final_set(
    page, live_server, admin_username, tmp_path
):
    page.goto(f"{live_server.url}/export/")
    page.get_by_label("Username").fill(admin_username)
    page.get_by_label("Password").fill(DEFAULT_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/export/")

    assert page.get_by_test_id("export-final").inner_text() == "673"
    assert page.get_by_test_id("export-excluded").inner_text() == "0"
    with page.expect_download() as info:
        page.get_by_role("link", name="Download the final set (673 items, .zip)").click()
    download = info.value
    assert download.suggested_filename == "heartbench-final-set.zip"
    target = tmp_path / download.suggested_filename
    download.save_as(target)

    with zipfile.ZipFile(target) as archive:
        files = {
            n.removeprefix("heartbench-final-set/"): archive.read(n) for n in archive.namelist()
        }
    assert verify_manifest(files) == []
    questions = json.loads(files["release/mcq.json"])["questions"]
    assert len(questions) == 673
    assert "correct_answer" not in files["model_facing/items.json"].decode()
