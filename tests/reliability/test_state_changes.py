"""Every state change is a POST with a CSRF token (issue #12).

The walk covers the whole URLconf on the demo's fully populated database, so a view
added later is covered without anyone listing it. Two properties:

- a GET (plain, htmx, JSON) changes no row of any table, whoever sends it;
- a POST without the CSRF token is refused (403) by every view that accepts POSTs, and
  changes nothing either.
"""

from uuid import uuid4

import pytest
from django.test import Client
from django.urls import NoReverseMatch, reverse

from annotation.comparison.models import ComparisonPair, PairAssignment
from annotation.corpus.models import Character, Memory, Scenario
from annotation.corpus_import.models import ImportJob
from annotation.generation.models import GenerationRun, GenerationUnit
from audit.memory_quality.models import MemoryCase
from core.roles import Role
from tests.factories import UserFactory
from tests.web.test_blinding import named_patterns, url_arguments

from .conftest import changed_tables, table_fingerprints, written_tables

HEADER_VARIANTS = [{}, {"HTTP_HX_REQUEST": "true"}, {"HTTP_ACCEPT": "application/json"}]


def every_url(corpus, user) -> dict[str, str]:
    """{path: view name}. tests/web/test_blinding.py insists every parameter has a value;
    a parameter added since gets a placeholder of its converter's kind here."""
    arguments = url_arguments(corpus, user)
    urls = {}
    for name, params in named_patterns():
        for placeholder in (1, uuid4(), "x"):
            try:
                kwargs = {p: arguments.get(p, placeholder) for p in params}
                urls[reverse(name, kwargs=kwargs)] = name
                break
            except NoReverseMatch:
                continue
    return urls


def demo_corpus(user) -> dict:
    """Real objects of the demo for every URL parameter the walk fills."""
    assignment = PairAssignment.objects.filter(annotator=user).first() or (
        PairAssignment.objects.order_by("pk").first()
    )
    character = Character.objects.order_by("key").first()
    job = ImportJob.objects.order_by("pk").first() or ImportJob.objects.create(created_by=user)
    return {
        "character": character,
        "memory": Memory.objects.filter(character=character).order_by("pk").first(),
        "scenario": Scenario.objects.order_by("scenario_id").first(),
        "job": job,
        "run": GenerationRun.objects.order_by("pk").first(),
        "unit": GenerationUnit.objects.order_by("pk").first(),
        "assignment": assignment,
        "pair": ComparisonPair.objects.order_by("pk").first(),
        "case": MemoryCase.objects.order_by("pk").first(),
    }


@pytest.fixture
def everyone(demo_built, db):
    """One person holding every role, staff and superuser: every view lets them in (on
    the demo built once for the module; each test's own rows are rolled back)."""
    person = UserFactory(username="all-roles", roles=list(Role), is_staff=True, is_superuser=True)
    # The demo's own annotator assignment, so the comparison pages render for real.
    PairAssignment.objects.filter(pk=PairAssignment.objects.order_by("pk").first().pk).update(
        annotator=person
    )
    return person


def test_no_get_changes_the_database(everyone):
    client = Client()
    client.force_login(everyone)
    urls = every_url(demo_corpus(everyone), everyone)
    assert len(urls) > 60
    before = table_fingerprints()
    writes = written_tables()
    statuses = {}
    for path, name in urls.items():
        for headers in HEADER_VARIANTS:
            response = client.get(path, **headers)
            statuses[name] = response.status_code
            assert response.status_code < 500, f"GET {path} {headers}: {response.status_code}"
            now = written_tables()
            assert now == writes, f"GET {path} {headers} wrote to {changed_tables(writes, now)}"
    assert not changed_tables(before, table_fingerprints())
    # The walk reached real pages, not a wall of 403/404s (URLs whose parameters are
    # placeholders may 404).
    assert sum(1 for s in statuses.values() if s == 200) > 60, statuses


def test_a_post_without_the_csrf_token_is_refused_and_changes_nothing(everyone):
    client = Client(enforce_csrf_checks=True)
    client.force_login(everyone)
    urls = every_url(demo_corpus(everyone), everyone)
    before = table_fingerprints()
    writes = written_tables()
    accepting_post = 0
    for path, name in urls.items():
        if name == "healthz":
            continue
        response = client.post(path, {"anything": "1"})
        if name == "api-token":
            # Authenticated by the password in the body, not by the session cookie, so
            # CSRF does not apply; without a username and password it refuses.
            assert response.status_code == 400, f"POST {path}: {response.status_code}"
            assert written_tables() == writes, f"POST {path} wrote rows"
            continue
        assert response.status_code in (403, 405), f"POST {path} ({name}): {response.status_code}"
        if response.status_code == 403:
            accepting_post += 1
            body = response.content.decode()
            assert "CSRF" in body, f"POST {path} refused, but not for its missing CSRF token"
        assert written_tables() == writes, f"POST {path} wrote rows"
    assert not changed_tables(before, table_fingerprints())
    assert accepting_post > 20

    # The control, so the checks above can see a change: a draft saved with the token.
    assignment = PairAssignment.objects.filter(annotator=everyone).first()
    assert client.get(f"/compare/{assignment.public_id}/").status_code == 200
    response = client.post(
        f"/compare/{assignment.public_id}/draft/",
        {"selection_rationale": "typed so far"},
        HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value,
    )
    assert response.status_code == 302
    assert changed_tables(before, table_fingerprints()) == ["annotation_comparisondraft"]
    assert changed_tables(writes, written_tables()) == ["annotation_comparisondraft"]
