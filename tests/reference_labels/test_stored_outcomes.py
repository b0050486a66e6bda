"""A label audit's outcomes as a stored report (issue #34), computed by a real Celery
worker over Redis: the outcomes page never computes them; an expert's new selection marks
the stored figures stale (still shown), and after the worker ran they are fresh, equal to
the hand-computed table and to statsmodels' Fleiss' κ on the same selections."""

import numpy as np
import pytest
from django.test import Client
from django.urls import reverse
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from audit.reference_labels import services, stored_reports
from audit.reference_labels.models import LabelAuditItem
from core.reports.models import ReportStatus, StoredReport
from tests.conftest import _stop_celery_worker
from tests.stored_reports import report_state, wait_fresh

from .test_outcomes import EXPECTED, letter, played  # noqa: F401 (fixture)

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def shown(client, audit) -> tuple[str, dict, dict]:
    """The page's state, and the outcome counts and κ the API serves."""
    body = client.get(reverse("audit:labels:outcomes", args=[audit.pk])).content.decode()
    api = client.get(reverse("audit-api:labels-api:outcomes", args=[audit.pk])).json()
    return (
        report_state(body),
        {r["key"]: (r["n"], round(r["percent"], 6)) for r in api["rows"]},
        api,
    )


def kappa_of(letters):
    complete = [["ABCD".index(c) for c in row] for row in letters if None not in row]
    return sm_fleiss_kappa(aggregate_raters(np.array(complete), n_cat=4)[0], method="fleiss")


def test_nothing_stored_the_page_says_pending_and_computes_nothing(played, team):  # noqa: F811
    audit, _ = played
    client = Client()
    client.force_login(team["adjudicator"])
    body = client.get(reverse("audit:labels:outcomes", args=[audit.pk])).content.decode()
    assert report_state(body) == "pending" and 'data-testid="outcome-table"' not in body
    row = StoredReport.objects.get(kind=stored_reports.KIND, key=str(audit.pk))
    assert row.result is None and row.status == ReportStatus.PENDING


def test_a_new_selection_marks_the_outcomes_stale_then_the_worker_refreshes_them(
    played,  # noqa: F811
    team,
    celery_worker_factory,
):
    audit, letters = played
    client = Client()
    client.force_login(team["adjudicator"])
    assert shown(client, audit)[0] == "pending"
    worker = celery_worker_factory()
    wait_fresh(stored_reports.KIND, str(audit.pk))
    page_state, counts, api = shown(client, audit)
    assert page_state == "fresh" and counts == EXPECTED
    assert api["fleiss_kappa"] == pytest.approx(kappa_of(letters), abs=1e-12)
    assert api["kappa_items"] == 8

    # The third expert submits on the ninth item: stale, the old figures still served
    # (by the page and the API alike: no worker runs until both were read).
    _stop_celery_worker(worker)
    ninth = LabelAuditItem.objects.filter(audit=audit).order_by("position")[8]
    key = ninth.item_version.correct_answer
    services.label_selection_submit(audit_item_id=ninth.pk, expert=team["experts"][2], choice=key)
    letters[8][2] = letter(key, "K")
    page_state, counts, _ = shown(client, audit)
    assert page_state == "stale" and counts == EXPECTED

    celery_worker_factory()
    wait_fresh(stored_reports.KIND, str(audit.pk))
    page_state, counts, api = shown(client, audit)
    assert page_state == "fresh"
    # By hand: the ninth item is now 2 of 3 on the key, waiting for the adjudicator.
    expected = EXPECTED | {
        "agree_2": (4, 40.0),
        "awaiting_selection": (1, 10.0),
        "adjudicated_entered": (6, 60.0),
        "awaiting_adjudication": (2, 20.0),
    }
    assert counts == expected
    assert api["kappa_items"] == 9
    assert api["fleiss_kappa"] == pytest.approx(kappa_of(letters), abs=1e-12)
    csv = client.get(reverse("audit:labels:outcomes-csv", args=[audit.pk])).content.decode()
    assert "Two of three selected the key (2/3),4,40.0" in csv
