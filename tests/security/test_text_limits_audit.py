"""Text limits over HTTP in the audits (issue #24 points 2-3): the reference-label audit's
draft (which stored 'draft\\x00note') and selection, page and API; the memory-quality
reviewer's decision and the senior's edit draft, page and API. Each refusal names the
field and the limit (or the control character) and stores nothing."""

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse

from audit.memory_quality.models import MemoryCase, OverrideAgreement
from audit.memory_quality.services import review
from audit.memory_quality.services.runs import audit_run_execute, audit_run_start
from audit.reference_labels import services
from audit.reference_labels.models import LabelAuditError, LabelAuditItem, LabelSelection
from core.drafts import FormDraft
from core.roles import Role
from core.text_rules import NOTE, TEXT
from tests.api.conftest import token_client
from tests.factories import CharacterFactory, UserFactory
from tests.memory_quality.conftest import CLEAN, DRIFT, hand_written
from tests.reference_labels.conftest import make_team, small_final_set

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def role_groups(db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)


def session(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- Reference-label audit ----------------------------------------------------------------


@pytest.fixture
def audit():
    team = make_team()
    small_final_set(characters=1, stages=("school_age",), per_stratum=3)
    made = services.label_audit_create(
        created_by=team["admin"],
        experts=team["experts"],
        adjudicator=team["adjudicator"],
        items_per_stratum=2,
        seed=11,
    )
    first = LabelAuditItem.objects.filter(audit=made).order_by("position").first()
    return team, first


def selections(row):
    return list(LabelSelection.objects.filter(audit_item=row).values_list("choice", "note"))


def test_the_label_audit_draft_page_refuses_nul_and_saves_nothing(audit):
    team, row = audit
    expert = session(team["experts"][0])
    before = selections(row)
    url = reverse("audit:labels:draft", args=[row.pk])
    answer = expert.post(url, {"choice": "A", "note": "draft\x00note"}, **HTMX)
    assert answer.status_code == 200
    assert answer.content.decode().startswith(
        "Not saved: Note contains a control character (NUL) at character 6"
    )
    long = expert.post(url, {"choice": "A", "note": "x" * (NOTE + 1)}, **HTMX)
    assert long.content.decode() == (
        "Not saved: Note is limited to 4,000 characters; this one has 4,001."
    )
    assert selections(row) == before


def test_the_label_audit_draft_api_refuses_nul_and_over_long_notes(audit):
    team, row = audit
    client = token_client(team["experts"][0])
    before = selections(row)
    url = reverse("audit-api:labels-api:draft", args=[row.pk])
    nul = client.put(url, {"choice": "A", "note": "draft\x00note"}, format="json")
    assert nul.status_code == 400
    assert "Note contains a control character (NUL)" in nul.json()["fields"]["note"][0]
    long = client.put(url, {"note": "x" * (NOTE + 1)}, format="json")
    assert long.status_code == 400
    assert "Note is limited to 4,000 characters" in long.json()["fields"]["note"][0]
    assert selections(row) == before
    assert client.put(url, {"choice": "A", "note": "tab\tok"}, format="json").status_code == 200


def test_a_selection_note_over_the_limit_is_refused_on_page_api_and_service(audit):
    team, row = audit
    expert = team["experts"][0]
    page = session(expert).post(
        reverse("audit:labels:select", args=[row.pk]), {"choice": "A", "note": "x" * (NOTE + 1)}
    )
    assert page.status_code in (200, 400)
    assert "Note (optional) is limited to 4,000 characters" in page.content.decode()
    api = token_client(expert).post(
        reverse("audit-api:labels-api:selection", args=[row.pk]),
        {"choice": "A", "note": "x" * (NOTE + 1)},
        format="json",
    )
    assert api.status_code == 400
    with pytest.raises(LabelAuditError, match="Note contains a control character"):
        services.label_selection_draft_save(
            audit_item_id=row.pk, expert=expert, choice="A", note="draft\x00note"
        )
    assert not LabelSelection.objects.filter(audit_item=row, submitted_at__isnull=False).exists()
    assert not LabelSelection.objects.filter(note__startswith="draft").exists()


# --- Memory-quality audit -----------------------------------------------------------------


@pytest.fixture
def audited():
    char = CharacterFactory(key="CHAR_01")
    hand_written(char, sequence=1, content_full=CLEAN + " Years later I understood it all.")
    hand_written(char, sequence=2, event_age=20, content_full=DRIFT)
    run = audit_run_start(created_by=UserFactory(roles=[Role.ADMIN]))
    audit_run_execute(run_id=run.pk, dispatch_repairs=False)
    MemoryCase.objects.filter(run=run).update(status=MemoryCase.Status.REVIEW)
    return MemoryCase.objects.filter(run=run).order_by("memory__sequence").first()


def test_a_false_positive_reason_over_the_limit_is_refused_on_page_and_api(audited):
    reviewer = UserFactory(roles=[Role.MEMORY_REVIEWER])
    body = {"decision": "false_positive", "reason": "x" * (NOTE + 1)}
    api = token_client(reviewer).post(
        reverse("audit-api:case-decide", args=[audited.pk]), body, format="json"
    )
    assert api.status_code == 400
    assert "Reason is limited to 4,000 characters" in api.json()["fields"]["reason"][0]
    page = session(reviewer).post(reverse("audit:case-decide", args=[audited.pk]), body)
    assert page.status_code in (200, 400)
    assert "Reason is limited to 4,000 characters" in page.content.decode()
    with pytest.raises(review.AuditError, match="Reason contains a control character"):
        review.case_review_decide(
            case_id=audited.pk, reviewer=reviewer, decision="false_positive", reason="a\x00"
        )
    audited.refresh_from_db()
    assert audited.status == MemoryCase.Status.REVIEW and not audited.decision_reason
    assert not OverrideAgreement.objects.exists()


def test_the_senior_edit_draft_refuses_an_over_long_narrative(audited):
    MemoryCase.objects.filter(pk=audited.pk).update(status=MemoryCase.Status.SENIOR)
    senior = UserFactory(roles=[Role.ARBITRATOR])
    url = reverse("audit:case-edit-draft", args=[audited.pk])
    answer = session(senior).post(url, {"content_full": "x" * (TEXT + 1)}, **HTMX)
    assert answer.status_code == 200
    assert answer.content.decode() == (
        "Not saved: Full account is limited to 20,000 characters; this one has 20,001."
    )
    assert not FormDraft.objects.exists()
