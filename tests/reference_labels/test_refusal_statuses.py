"""Issue #24: a selection posted again after it was submitted, or by an expert not on the
audit, is refused with 403/404 and the reason, not the page re-rendered with status 200."""

import pytest
from django.test import Client
from django.urls import reverse

from audit.reference_labels import services
from audit.reference_labels.models import LabelAuditItem, LabelSelection

from .conftest import make_team, small_final_set

pytestmark = pytest.mark.django_db


def client_for(user):
    client = Client()
    client.force_login(user)
    return client


def test_a_submitted_selection_posted_again_is_a_403_and_another_audits_item_a_404(team):
    small_final_set()
    audit = services.label_audit_create(
        created_by=team["admin"],
        experts=team["experts"],
        adjudicator=team["adjudicator"],
        items_per_stratum=2,
        seed=9,
    )
    row = LabelAuditItem.objects.filter(audit=audit).order_by("position").first()
    expert = client_for(team["experts"][0])
    url = reverse("audit:labels:select", args=[row.pk])
    assert expert.post(url, {"choice": "A", "note": "first"}).status_code == 302
    before = list(LabelSelection.objects.values())
    again = expert.post(url, {"choice": "B", "note": "changed"})
    assert again.status_code == 403
    assert "is submitted; it can no longer change." in again.content.decode()
    # An expert of another team is not on this audit: no such item for them.
    outsider = client_for(make_team("other")["experts"][0])
    assert outsider.post(url, {"choice": "B", "note": "x"}).status_code == 404
    draft = reverse("audit:labels:draft", args=[row.pk])
    assert outsider.post(draft, {"choice": "B"}, HTTP_HX_REQUEST="true").status_code == 404
    assert list(LabelSelection.objects.values()) == before
