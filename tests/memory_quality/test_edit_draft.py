"""The senior's memory edit autosaves (core.drafts): only the senior,
only while the memory awaits the edit; the draft is restored and cleared on save."""

import pytest
from django.test import Client
from django.urls import reverse

from audit.memory_quality.models import MemoryCase
from audit.memory_quality.services.review import case_review_decide
from audit.memory_quality.services.runs import audit_run_execute, audit_run_start
from core.drafts import FormDraft
from core.roles import Role

from .conftest import CLEAN, DRIFT, hand_written

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def client_for(user):
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def confirmed(person):
    admin, reviewer = person(Role.ADMIN), person(Role.MEMORY_REVIEWER)
    memory = hand_written(content_full=DRIFT)
    run = audit_run_start(created_by=admin)
    audit_run_execute(run_id=run.pk)
    case = MemoryCase.objects.get(memory=memory)
    return case, reviewer


def test_the_edit_draft_is_the_seniors_while_the_memory_awaits_the_edit(confirmed, person):
    case, reviewer = confirmed
    senior, other_senior = person(Role.ARBITRATOR), person(Role.ARBITRATOR)
    url = reverse("audit:case-edit-draft", args=[case.pk])
    detail = reverse("audit:case-detail", args=[case.pk])
    # Under review, not yet the senior's: no draft.
    assert client_for(senior).post(url, {"content_full": "x"}, **HTMX).status_code == 403
    case_review_decide(case_id=case.pk, reviewer=reviewer, decision="confirmed", reason="")
    body = client_for(reviewer).get(detail).content.decode()
    assert "This cannot be undone" not in body  # the decision form is gone

    saved = client_for(senior).post(
        url, {"content_full": "Half-way rewrite", "note": "wip", "context": "c"}, **HTMX
    )
    assert saved.status_code == 200 and saved.content.decode().startswith("Draft saved ")
    assert "Half-way rewrite" in client_for(senior).get(detail).content.decode()
    assert "Half-way rewrite" not in client_for(other_senior).get(detail).content.decode()
    assert client_for(reviewer).post(url, {"note": "x"}, **HTMX).status_code == 403
    assert client_for(senior).post(reverse("audit:case-edit-draft", args=[999999])).status_code == (
        404
    )

    client_for(senior).post(
        reverse("audit:case-edit", args=[case.pk]),
        {
            "context": case.memory.context,
            "content_summary": case.memory.content_summary,
            "content_full": CLEAN,
            "save": "Save and re-audit",
        },
    )
    assert not FormDraft.objects.filter(user=senior).exists()


def test_the_review_decision_and_the_run_finalize_ask_first(confirmed, person):
    case, reviewer = confirmed
    body = client_for(reviewer).get(reverse("audit:case-detail", args=[case.pk])).content
    assert b'data-confirm="Record your decision on this memory?' in body
    admin = person(Role.ADMIN)
    run = client_for(admin).get(reverse("audit:run-detail", args=[case.run_id])).content
    assert b"(s)" not in run
