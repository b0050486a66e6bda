"""The audit's pages and API: who may reach what (403 for other roles), blinding for
baseline participants, htmx fragments, CSV, and a fixed number of queries per page."""

import pytest
from django.test import Client
from django.urls import reverse

from audit.memory_quality.models import MemoryCase
from audit.memory_quality.services.review import case_review_decide
from audit.memory_quality.services.runs import audit_run_execute, audit_run_start
from core.roles import Role
from tests.factories import CharacterFactory

from .conftest import CLEAN, DRIFT, hand_written

pytestmark = pytest.mark.django_db

SECRET_NARRATIVE = "Zqx audit secret: the tin lantern went out years later in the orchard."


@pytest.fixture
def client_for(person):
    def make(*roles):
        client = Client()
        client.force_login(person(*roles))
        return client

    return make


@pytest.fixture
def audited(admin_user, django_capture_on_commit_callbacks):
    """A finished run with one case awaiting review and one awaiting the senior."""
    char = CharacterFactory(key="CHAR_01")
    hand_written(char, sequence=1, content_full=SECRET_NARRATIVE + " " + CLEAN)
    hand_written(char, sequence=2, event_age=20, content_full=DRIFT)
    run = audit_run_start(created_by=admin_user)
    audit_run_execute(run_id=run.pk)
    review, senior = MemoryCase.objects.filter(run=run).order_by("memory__sequence")
    reviewer = admin_user.__class__.objects.create(username="rev-fixture")
    from django.contrib.auth.models import Group

    reviewer.groups.add(Group.objects.get(name=Role.MEMORY_REVIEWER.value))
    case_review_decide(case_id=senior.pk, reviewer=reviewer, decision="confirmed", reason="")
    return {"run": run, "review": review, "senior": senior}


def urls(audited):
    run, case = audited["run"], audited["review"]
    return {
        "queue": reverse("audit:queue"),
        "case": reverse("audit:case-detail", args=[case.pk]),
        "runs": reverse("audit:run-list"),
        "run": reverse("audit:run-detail", args=[run.pk]),
        "outcomes": reverse("audit:outcomes", args=[run.pk]),
        "csv": reverse("audit:outcomes-csv", args=[run.pk]),
        "settings": reverse("audit:settings"),
        "api-runs": reverse("audit-api:run-list"),
        "api-run": reverse("audit-api:run-detail", args=[run.pk]),
        "api-cases": reverse("audit-api:case-list"),
    }


READERS = {"queue", "case", "api-cases", "outcomes", "csv"}
ACCESS = {
    Role.MEMORY_REVIEWER: READERS,
    Role.ARBITRATOR: READERS,
    Role.ADMIN: READERS | {"runs", "run", "settings", "api-runs", "api-run"},
}


@pytest.mark.parametrize("role", list(Role), ids=str)
def test_each_role_reaches_only_its_audit_pages(role, client_for, audited):
    client = client_for(role)
    allowed = ACCESS.get(role, set())
    for name, url in urls(audited).items():
        status = client.get(url).status_code
        assert (status == 200) == (name in allowed), f"{role} {name}: {status}"
        if name not in allowed:
            assert status == 403, f"{role} {name}: {status}"


def test_writes_are_refused_to_other_roles(client_for, audited):
    case, senior = audited["review"], audited["senior"]
    for role in (Role.ARBITRATOR, Role.ADMIN, Role.PRIMARY_ANNOTATOR):
        response = client_for(role).post(
            reverse("audit:case-decide", args=[case.pk]), {"decision": "confirmed"}
        )
        assert response.status_code == 403
    for role in (Role.MEMORY_REVIEWER, Role.ADMIN):
        response = client_for(role).post(
            reverse("audit:case-edit", args=[senior.pk]),
            {"context": "a", "content_summary": "b", "content_full": "c"},
        )
        assert response.status_code == 403
    for role in (Role.MEMORY_REVIEWER, Role.ARBITRATOR):
        assert client_for(role).post(reverse("audit:run-list")).status_code == 403
        assert client_for(role).post(reverse("audit:settings"), {}).status_code == 403
    assert MemoryCase.objects.get(pk=case.pk).status == MemoryCase.Status.REVIEW


def test_baseline_participants_get_nothing_from_audit_urls(client_for, audited):
    client = client_for(Role.BASELINE_PARTICIPANT)
    memory = audited["review"].memory
    for name, url in urls(audited).items():
        for response in (client.get(url), client.get(url, HTTP_HX_REQUEST="true")):
            body = response.content.decode()
            assert response.status_code == 403, name
            for secret in ("Zqx audit secret", memory.memory_id, "CHAR_01", "years later"):
                assert secret not in body, (name, secret)
    posts = [
        reverse("audit:case-decide", args=[audited["review"].pk]),
        reverse("audit:case-edit", args=[audited["senior"].pk]),
        reverse("audit:run-finalize", args=[audited["run"].pk]),
    ]
    for url in posts:
        assert client.post(url, {"decision": "false_positive", "reason": "x"}).status_code == 403


def test_the_case_page_highlights_the_evidence_and_shows_the_decision_form(client_for, audited):
    body = (
        client_for(Role.MEMORY_REVIEWER)
        .get(reverse("audit:case-detail", args=[audited["review"].pk]))
        .content.decode()
    )
    assert (
        '<mark class="hb-evidence" title="1. Perspective drift (omniscient narrator)" '
        'data-testid="evidence">years later</mark>' in body
    )
    assert 'id="decision-form"' in body
    senior_page = (
        client_for(Role.ARBITRATOR)
        .get(reverse("audit:case-detail", args=[audited["senior"].pk]))
        .content.decode()
    )
    assert 'id="edit-form"' in senior_page and 'id="decision-form"' not in senior_page


def test_the_diff_preview_is_an_htmx_fragment(client_for, audited):
    senior = audited["senior"]
    memory = senior.memory
    data = {
        "context": memory.context,
        "content_summary": memory.content_summary,
        "content_full": CLEAN,
        "preview": "1",
    }
    client = client_for(Role.ARBITRATOR)
    fragment = client.post(
        reverse("audit:case-edit", args=[senior.pk]), data, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert fragment.lstrip().startswith("<table") and "<del" in fragment
    assert "<html" not in fragment
    page = client.post(reverse("audit:case-edit", args=[senior.pk]), data).content.decode()
    assert 'data-testid="memory-diff"' in page and "<html" in page
    senior.refresh_from_db()
    assert senior.status == MemoryCase.Status.SENIOR  # a preview saves nothing


def test_the_run_page_polls_while_running_and_the_csv_has_the_outcomes(client_for, audited):
    client = client_for(Role.ADMIN)
    run = audited["run"]
    fragment = client.get(reverse("audit:run-detail", args=[run.pk]), HTTP_HX_REQUEST="true")
    body = fragment.content.decode()
    assert 'id="audit-progress"' in body and "<html" not in body
    assert "100%" in body and 'hx-trigger="every 1s"' not in body
    csv_text = client.get(reverse("audit:outcomes-csv", args=[run.pk])).content.decode()
    lines = csv_text.splitlines()
    assert lines[0].startswith("character,memories,passed_initial,passed_after_rewriting")
    assert lines[1] == "CHAR_01,2,0,0,2,0,0,2"
    assert "overall,2,0,0,2,0,0,2" in lines


def test_the_admin_starts_a_run_and_saves_a_settings_version(
    client_for, admin_user, django_capture_on_commit_callbacks, settings
):
    from heartbench_site.celery import app

    hand_written(content_full=DRIFT)
    client = client_for(Role.ADMIN)
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(reverse("audit:run-list"), {"note": "from the page"})
    finally:
        app.conf.task_always_eager = previous
    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    assert "Finished" in page and 'data-testid="outcome-table"' in page
    form = client.get(reverse("audit:settings")).context["form"]
    data = {k: v for k, v in form.initial.items() if not isinstance(v, list | dict)}
    data.update(
        note="lower the duplicate threshold",
        duplicate_threshold="0.8",
        enabled_criteria=["1", "2", "3", "4", "5", "6"],
    )
    response = client.post(reverse("audit:settings"), data)
    assert response.status_code == 302, response.context["form"].errors
    from audit.memory_quality.models import AuditSettings

    latest = AuditSettings.objects.order_by("-number").first()
    assert latest.number == 2 and latest.duplicate_threshold == 0.8
    assert latest.omniscient_patterns == AuditSettings.objects.get(number=1).omniscient_patterns


def grow(n, start):
    char = CharacterFactory(key=f"CHAR_{start:02d}")
    for i in range(n):
        hand_written(
            char,
            sequence=start * 100 + i,
            event_age=6 + i,
            content_full=DRIFT + f" ({i})" * (i + 1),
        )


@pytest.mark.parametrize(
    ("role", "name"),
    [
        (Role.MEMORY_REVIEWER, "queue"),
        (Role.MEMORY_REVIEWER, "case"),
        (Role.ADMIN, "runs"),
        (Role.ADMIN, "run"),
        (Role.ADMIN, "outcomes"),
        (Role.ADMIN, "api-cases"),
    ],
)
def test_pages_issue_a_fixed_number_of_queries(
    role, name, client_for, admin_user, django_assert_max_num_queries
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def measure():
        run = audit_run_start(created_by=admin_user)
        audit_run_execute(run_id=run.pk)
        case = MemoryCase.objects.filter(run=run).order_by("pk").first()
        url = {
            "queue": reverse("audit:queue") + "?status=review",
            "case": reverse("audit:case-detail", args=[case.pk]),
            "runs": reverse("audit:run-list"),
            "run": reverse("audit:run-detail", args=[run.pk]),
            "outcomes": reverse("audit:outcomes", args=[run.pk]),
            "api-cases": reverse("audit-api:case-list") + "?status=review",
        }[name]
        client = client_for(role)
        client.get(url)
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        return len(queries)

    grow(2, 1)
    small = measure()
    grow(12, 2)
    assert measure() == small
