"""Both reports are computed by a real Celery worker over Redis: the page queues the
computation and shows none, the worker stores the figures, the page then shows them,
equal to scikit-learn on the records written here."""

import pytest
from django.test import Client
from django.urls import reverse
from sklearn.metrics import cohen_kappa_score

from core.roles import Role
from tests.stored_reports import report_state, wait_fresh_page

from .conftest import classifier_records, screener_records

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def kappa_shown(html) -> str:
    row = html.split('data-testid="agreement-overall"', 1)[1].split("</tr>", 1)[0]
    return row.split('data-testid="kappa">', 1)[1].split("<", 1)[0].strip()


def test_the_worker_computes_both_reports(person, audit_run, celery_worker_factory):
    screened = screener_records(person(Role.ARBITRATOR), n=14)
    decided = classifier_records(audit_run, person(Role.MEMORY_REVIEWER), n=16)
    client = Client()
    client.force_login(person(Role.ADMIN))
    urls = (reverse("mcq:screener-agreement"), reverse("audit:classifier-agreement"))
    for url in urls:
        assert report_state(client.get(url).content.decode()) == "pending"
    celery_worker_factory()
    expected = (
        cohen_kappa_score([s[0] for s in screened], [s[1] for s in screened]),
        cohen_kappa_score([d[1] for d in decided], [d[2] for d in decided]),
    )
    for url, kappa in zip(urls, expected, strict=True):
        html = wait_fresh_page(client, url)
        assert kappa_shown(html) == f"{kappa:.3f}".replace("-", "−")
