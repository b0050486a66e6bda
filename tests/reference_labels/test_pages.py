"""The label audit's pages: who reaches what, forms that name what is wrong, a
constant number of queries per list page, and the CSV."""

import csv
import io
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from audit.reference_labels import services
from audit.reference_labels import stored_reports as label_reports
from audit.reference_labels.models import LabelAudit, LabelAuditItem, LabelSelection
from core.roles import Role
from tests.comparison.helpers import assign, judge, make_pair
from tests.factories import UserFactory
from tests.stored_reports import computed

from .conftest import make_team, small_final_set

pytestmark = pytest.mark.django_db


def client_for(user):
    client = Client()
    client.force_login(user)
    return client


def new_audit(team, k=2):
    return services.label_audit_create(
        created_by=team["admin"],
        experts=team["experts"],
        adjudicator=team["adjudicator"],
        items_per_stratum=k,
        seed=9,
    )


def test_the_admin_sees_who_is_excluded_and_a_refused_form_writes_nothing(team):
    small_final_set()
    tainted = UserFactory(username="tainted", roles=[Role.PRIMARY_ANNOTATOR, Role.AUDIT_EXPERT])
    pair = make_pair(key="CHAR_61")
    others = [UserFactory(username=f"ann-{i}", roles=[Role.PRIMARY_ANNOTATOR]) for i in (1, 2)]
    judge(assign(pair, [tainted, *others], team["admin"])[tainted.pk], family="gpt")
    admin = client_for(team["admin"])

    page = admin.get(reverse("audit:labels:create"))
    assert page.status_code == 200
    body = page.content.decode()
    assert 'data-person="tainted"' in body and "excluded" in body
    assert "comparison judgment" in body

    experts = [tainted, *team["experts"][1:]]
    response = admin.post(
        reverse("audit:labels:create"),
        {
            "experts": [u.pk for u in experts],
            "adjudicator": team["adjudicator"].pk,
            "items_per_stratum": 2,
            "seed": 4,
        },
    )
    assert response.status_code == 200
    assert "Excluded (conflict of interest): tainted took part in construction" in (
        response.content.decode()
    )
    assert not LabelAudit.objects.exists()

    response = admin.post(
        reverse("audit:labels:create"),
        {
            "experts": [u.pk for u in team["experts"]],
            "adjudicator": team["adjudicator"].pk,
            "items_per_stratum": 2,
            "seed": 4,
        },
    )
    audit = LabelAudit.objects.get()
    assert response.status_code == 302 and response.url == reverse(
        "audit:labels:audit", args=[audit.pk]
    )
    assert audit.seed == 4 and audit.items.count() == 8
    detail = admin.get(response.url).content.decode()
    assert "gives the same sample" in detail


def test_an_expert_selects_resumes_and_autosaves(team):
    small_final_set()
    audit = new_audit(team)
    expert = client_for(team["experts"][0])
    rows = list(LabelAuditItem.objects.filter(audit=audit).order_by("position"))
    home = expert.get(reverse("audit:labels:home")).content.decode()
    assert reverse("audit:labels:select", args=[rows[0].pk]) in home

    draft = expert.post(
        reverse("audit:labels:draft", args=[rows[0].pk]),
        {"choice": "A", "note": "Leaning A"},
        HTTP_HX_REQUEST="true",
    )
    assert re.fullmatch(rb"Draft saved \d\d:\d\d: option A, note of 9 characters\.", draft.content)
    page = expert.get(reverse("audit:labels:select", args=[rows[0].pk])).content.decode()
    assert "Leaning A" in page
    assert re.search(r'<input[^>]*value="A"[^>]*checked', page)
    assert not re.search(r'<input[^>]*value="B"[^>]*checked', page)

    refused = expert.post(reverse("audit:labels:select", args=[rows[0].pk]), {"note": "x"})
    assert "Select one of the options A, B, C or D." in refused.content.decode()
    done = expert.post(
        reverse("audit:labels:select", args=[rows[0].pk]), {"choice": "A", "note": "A"}
    )
    assert done.status_code == 302
    assert done.url == reverse("audit:labels:select", args=[rows[1].pk])
    assert LabelSelection.objects.get(audit_item=rows[0], expert=team["experts"][0]).submitted_at
    queue = expert.get(reverse("audit:labels:expert-queue", args=[audit.pk])).content.decode()
    assert "Submitted 1 of 8" in queue
    assert reverse("audit:labels:select", args=[rows[1].pk]) in queue


def test_who_reaches_what(team):
    small_final_set()
    audit = new_audit(team)
    computed(label_reports.KIND, str(audit.pk))  # the plot is drawn from stored figures
    row = LabelAuditItem.objects.filter(audit=audit).first()
    other_team = make_team("other")
    participant = UserFactory(username="p", roles=[Role.BASELINE_PARTICIPANT])
    urls = {
        "audit": reverse("audit:labels:audit", args=[audit.pk]),
        "outcomes": reverse("audit:labels:outcomes", args=[audit.pk]),
        "csv": reverse("audit:labels:outcomes-csv", args=[audit.pk]),
        "plot": reverse(
            "audit:labels:outcomes-plot",
            kwargs={"label_audit_id": audit.pk, "plot": "outcomes", "fmt": "png"},
        ),
        "adjudicate": reverse("audit:labels:adjudicate", args=[row.pk]),
        "create": reverse("audit:labels:create"),
        "mine": reverse("audit:labels:expert-queue", args=[audit.pk]),
        "select": reverse("audit:labels:select", args=[row.pk]),
        "api-outcomes": reverse("audit-api:labels-api:outcomes", args=[audit.pk]),
        "api-item": reverse("audit-api:labels-api:expert-item", args=[row.pk]),
    }
    expected = {
        team["experts"][0]: {
            "mine": 200,
            "select": 200,
            "api-item": 200,
            "audit": 403,
            "outcomes": 403,
            "csv": 403,
            "plot": 403,
            "adjudicate": 403,
            "create": 403,
            "api-outcomes": 403,
        },
        other_team["experts"][0]: {"mine": 404, "select": 404, "api-item": 404},
        team["adjudicator"]: {
            "audit": 200,
            "outcomes": 200,
            "csv": 200,
            "plot": 200,
            "mine": 403,
            "select": 403,
            "create": 403,
            "api-outcomes": 200,
            "api-item": 403,
        },
        other_team["adjudicator"]: {
            "audit": 403,
            "outcomes": 403,
            "csv": 403,
            "plot": 403,
            "adjudicate": 403,
            "api-outcomes": 403,
        },
        team["admin"]: {"audit": 200, "outcomes": 200, "create": 200, "mine": 403},
        participant: dict.fromkeys(urls, 403),
    }
    for user, statuses in expected.items():
        client = client_for(user)
        for name, status in statuses.items():
            assert client.get(urls[name]).status_code == status, (user.username, name)
    # The adjudicator's item page waits until the three selections are in.
    assert client_for(team["adjudicator"]).get(urls["adjudicate"]).status_code == 404


@pytest.mark.parametrize("view", ["expert-queue", "audit", "outcomes", "home"])
def test_list_pages_make_a_constant_number_of_queries(view, team, django_assert_num_queries):
    small_final_set(characters=2, stages=("school_age", "adolescence"), per_stratum=4)
    small = new_audit(team, k=1)
    big = new_audit(team, k=4)
    user = team["adjudicator"] if view in ("audit", "outcomes") else team["experts"][0]
    client = client_for(user)

    def url(audit):
        if view == "home":
            return reverse("audit:labels:home")
        name = {"expert-queue": "audit:labels:expert-queue"}.get(view, f"audit:labels:{view}")
        return reverse(name, args=[audit.pk])

    for audit in (small, big):
        for i, row in enumerate(audit.items.order_by("position")[:3]):
            services.label_selection_submit(
                audit_item_id=row.pk, expert=team["experts"][0], choice="ABCD"[i]
            )
    for audit in (small, big):  # the outcomes page reads stored figures
        computed(label_reports.KIND, str(audit.pk))
    client.get(url(small))  # warm the session and role caches
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url(small)).status_code == 200
    assert big.items.count() == 4 * small.items.count()
    with django_assert_num_queries(len(captured)):
        assert client.get(url(big)).status_code == 200


def test_the_csv_has_the_table_kappa_and_items(team):
    small_final_set()
    audit = new_audit(team)
    row = audit.items.order_by("position").first()
    key = row.item_version.correct_answer
    for expert in team["experts"]:
        services.label_selection_submit(audit_item_id=row.pk, expert=expert, choice=key)
    computed(label_reports.KIND, str(audit.pk))
    response = client_for(team["adjudicator"]).get(
        reverse("audit:labels:outcomes-csv", args=[audit.pk])
    )
    assert response["Content-Type"].startswith("text/csv")
    lines = list(csv.reader(io.StringIO(response.content.decode())))
    assert lines[0] == ["outcome", "items", "percent of sample"]
    table = {line[0]: line[1:] for line in lines[1:14]}
    assert table["Items in the sample"] == ["8", "100.0"]
    assert table["All three experts selected the key (3/3)"] == ["1", "12.5"]
    assert table["Awaiting the experts' selections"] == ["7", "87.5"]
    item_rows = [line for line in lines if line and line[1] == row.item.question_id]
    assert item_rows[0][4:10] == [key, key, key, key, "3", "approved"]
