"""The memory audit queue and its cases API at a size where counting and joining across
every open case would show (issue #34): one page of cases with a working next link that
keeps the status, each case's flags and repair attempts right, no memory's full text
read, and the same number of queries at 10 and at 120 open cases."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from audit.memory_quality.models import AuditRun, MemoryCase, MemoryFlag, RepairAttempt
from audit.memory_quality.services.configuration import audit_settings_current
from audit.memory_quality.views import CASES_PER_PAGE
from core.roles import Role
from tests.comparison.helpers import ensure_groups
from tests.factories import CharacterFactory, MemoryFactory, UserFactory

pytestmark = pytest.mark.django_db


def open_cases(size: int, *, key="CHAR_71", attempts=(0, 60)):
    """``size`` cases awaiting review, one per memory (``Summary 0``, ... in queue order),
    each with one current flag; the cases at ``attempts`` have two repair attempts."""
    character = CharacterFactory(key=key)
    run = AuditRun.objects.create(settings_version=audit_settings_current())
    cases = []
    for i in range(size):
        memory = MemoryFactory(
            character=character, sequence=i + 1, event_age=10, content_summary=f"Summary {i}"
        )
        case = MemoryCase.objects.create(
            run=run, memory=memory, character=character, status=MemoryCase.Status.REVIEW
        )
        MemoryFlag.objects.create(
            case=case, criterion=1, field="content_full", detail="d", audit_pass="initial"
        )
        cases.append(case)
    for i in attempts:
        for number in (1, 2):
            RepairAttempt.objects.create(
                case=cases[i],
                number=number,
                criteria=[1],
                fields=["content_full"],
                system_prompt="s",
                user_prompt="u",
            )
    return cases


def reviewer():
    ensure_groups()
    return UserFactory(roles=[Role.MEMORY_REVIEWER])


def rows(body: str) -> list[tuple[str, str]]:
    """(summary, repair attempts) of each row of the queue page."""
    found = re.findall(
        r'<tr data-case="\d+">\s*<td><a [^>]*>([^<]*)</a></td>.*?<td>\d+</td>\s*'
        r'<td class="small">.*?</td>\s*<td>(\d+)</td>',
        body,
        re.S,
    )
    return found


def test_the_queue_shows_one_page_and_the_next_link_walks_every_case(client):
    open_cases(120)
    client.force_login(reviewer())
    url = reverse("audit:queue")
    body = client.get(url, {"status": "review"}).content.decode()
    assert body.count("<tr data-case=") == CASES_PER_PAGE
    seen = rows(body)
    while (link := re.search(r'href="([^"]*)">Next</a>', body)) is not None:
        assert "status=review" in link.group(1)  # the next page keeps the tab
        body = client.get(url + link.group(1).replace("&amp;", "&")).content.decode()
        seen += rows(body)
    assert [s for s, _ in seen] == [f"Summary {i}" for i in range(120)]
    # Repair attempts counted per case, on whichever page the case is.
    assert [n for _, n in seen] == ["2" if i in (0, 60) else "0" for i in range(120)]
    assert body.count("<tr data-case=") == 20 and "Page 3 of 3" in body


def api_for(user) -> APIClient:
    token, _ = Token.objects.get_or_create(user=user)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return api


def test_the_cases_api_pages_with_flags_and_attempts():
    cases = open_cases(120)
    api = api_for(reviewer())
    first = api.get(reverse("audit-api:case-list")).json()
    assert first["count"] == 120 and len(first["results"]) == 50 and first["next"]
    assert first["results"][0]["memory_id"] == cases[0].memory.memory_id
    assert first["results"][0]["repair_attempts"] == 2
    assert first["results"][0]["current_flags"][0]["field"] == "content_full"
    second = api.get(first["next"]).json()
    assert [r["id"] for r in second["results"]] == [c.pk for c in cases[50:100]]
    assert [r["repair_attempts"] for r in second["results"]][10] == 2


def queries_of(client, url, **params) -> int:
    with CaptureQueriesContext(connection) as captured:
        answer = client.get(url, params)
    assert answer.status_code == 200
    table = MemoryCase._meta.db_table
    for query in captured.captured_queries:
        sql = query["sql"]
        # No memory's full text is read for a list.
        assert '"content_full"' not in sql, sql
        # No query reads every open case: each one takes a page or only counts.
        if re.match(rf'SELECT .* FROM "{table}"', sql):
            counts = "COUNT(" in sql.split(" FROM ")[0]
            assert re.search(r"LIMIT \d+", sql) or counts, sql
    return len(captured.captured_queries)


def test_the_queue_and_api_cost_the_same_queries_at_ten_and_at_120_cases(client):
    person = reviewer()
    client.force_login(person)
    api = api_for(person)

    def measure():
        return (
            queries_of(client, reverse("audit:queue"), status="review"),
            queries_of(client, reverse("audit:queue"), status="senior"),
            queries_of(api, reverse("audit-api:case-list")),
            queries_of(
                api, reverse("audit-api:case-list"), ordering="-event_age", page_size=5, page=2
            ),
        )

    open_cases(10, key="CHAR_72", attempts=(0,))
    small = measure()
    open_cases(110, key="CHAR_73")
    large = measure()
    assert small == large
