"""The distinctness table is a stored report (issue 37): a GET never computes a distance;
a real Celery worker computes the table (equal to scipy's distances), a newly saved
profile queues the new table at once (the page shows the old one as older than its
inputs meanwhile), the "Recompute now" button queues it on demand, and the memory
generation launch check never reads a stale table."""

import pytest
from django.test import Client
from django.urls import reverse

from annotation.corpus.distinctness_report import KEY, KIND
from core.reports.models import ReportStatus, StoredReport
from core.roles import Role
from tests.factories import UserFactory
from tests.memory_generation.fixtures_runs import plan_for
from tests.stored_reports import report_state, wait_fresh_page

from .profiles import computed_table, profile, table4_profiles, table_rows
from .table4 import PLANTED, TABLE4, scipy_kendall_distance, scipy_l1

URL = reverse("corpus:distinctness")


def pairs(html: str) -> str:
    return html.split('data-testid="pairs-compared">', 1)[1].split("<", 1)[0]


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_worker_computes_the_table_and_a_new_profile_queues_the_next(
    celery_worker_factory,
):
    table4_profiles()
    client = Client()
    client.force_login(UserFactory(roles=[Role.ADMIN]))

    # Nothing stored: the page shows no table and says it is being computed.
    html = client.get(URL).content.decode()
    assert report_state(html) == "pending" and "being computed now" in html
    assert 'data-testid="distinctness-table"' not in html
    assert StoredReport.objects.get(kind=KIND, key=KEY).result is None

    celery_worker_factory()
    html = wait_fresh_page(client, URL)
    assert pairs(html) == "55" and "Computed " in html and "11 current profiles" in html
    rows = table_rows(html)
    first = rows[0]
    x, y = (TABLE4[k] for k in first["pair"])
    assert first["l1"] == pytest.approx(scipy_l1(x, y), abs=0.005)
    assert first["kendall"] == pytest.approx(scipy_kendall_distance(x, y), abs=0.005)
    computed_at = StoredReport.objects.get(kind=KIND, key=KEY).computed_at

    # A planted near-duplicate is frozen: its save queued the new table; once stored,
    # the pair is flagged first.
    profile("CHAR_12", PLANTED)
    html = wait_fresh_page(client, URL)
    assert pairs(html) == "66"
    assert table_rows(html)[0]["pair"] == ("CHAR_05", "CHAR_12")
    assert table_rows(html)[0]["flagged"]
    assert StoredReport.objects.get(kind=KIND, key=KEY).computed_at > computed_at

    # The button queues a new computation even though nothing changed.
    before = StoredReport.objects.get(kind=KIND, key=KEY).computed_at
    response = client.post(URL)
    assert response.status_code == 302 and response["Location"] == URL
    html = wait_fresh_page(client, URL)
    row = StoredReport.objects.get(kind=KIND, key=KEY)
    assert row.status == ReportStatus.DONE and row.computed_at > before


@pytest.mark.django_db
def test_a_changed_profile_shows_the_old_table_marked_stale(admin_client):
    table4_profiles()
    computed_table()
    html = admin_client.get(URL).content.decode()
    assert report_state(html) == "fresh" and pairs(html) == "55"
    profile("CHAR_12", PLANTED)  # no worker here: nothing computes the new table
    html = admin_client.get(URL).content.decode()
    assert report_state(html) == "stale" and "older than their inputs" in html
    assert "new figures are being computed" in html
    assert pairs(html) == "55" and 'data-testid="near-duplicate"' not in html
    row = StoredReport.objects.get(kind=KIND, key=KEY)
    assert row.status == ReportStatus.PENDING and len(row.result["keys"]) == 11


@pytest.mark.django_db
def test_the_launch_check_flags_a_near_duplicate_the_stored_table_does_not_hold_yet(
    admin_client,
):
    table4_profiles()
    computed_table()  # the stored table: the eleven, none flagged
    plan = plan_for(profile("CHAR_12", PLANTED), {14: 2, 25: 1})
    body = admin_client.get(
        reverse("memory_generation:run-new") + f"?plans={plan.pk}"
    ).content.decode()
    assert 'data-testid="near-duplicates"' in body
    assert "Character 5 and Character 12" in body
    stored = StoredReport.objects.get(kind=KIND, key=KEY).result
    assert "CHAR_12" not in stored["keys"] and not any(stored["near"])


@pytest.mark.parametrize("role", [r for r in Role if r != Role.ADMIN])
@pytest.mark.django_db
def test_only_admins_can_ask_for_a_recomputation(client, role):
    client.force_login(UserFactory(roles=[role]))
    assert client.post(URL).status_code == 403
    assert not StoredReport.objects.filter(kind=KIND).exists()
