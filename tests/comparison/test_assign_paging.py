"""The admin's pair assignment page at a size where rendering every pair would show
(issue #34): one page of pairs with a working next link, a filter applied in the
database whose next link keeps it, leak flags named for the page only, a query count
that does not grow with the pairs, and the assignment itself still leaving out the
pairs that wait for a leak flag."""

import re
from datetime import UTC, datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from adjudication.consensus.views import PAIRS_PER_PAGE
from annotation.candidate_screening.models import LeakFlag
from annotation.comparison.models import ComparisonPair, PairAssignment
from annotation.generation.models import Candidate, GenerationRun
from annotation.generation.services.runs import _latest_prompt
from tests.comparison.helpers import people
from tests.factories import CharacterFactory, ProfileVersionFactory, ScenarioFactory

pytestmark = pytest.mark.django_db


def pairs_of(size: int, admin, *, key="CHAR_51", flagged=(0, 70), adopted=(5,)):
    """``size`` pairs of one character, each on its own scenario (``Trial 0``, ...); the
    pairs at ``flagged`` hold a candidate with an open leak flag, those at ``adopted``
    are routed. Returns the pairs and the open flag."""
    flagged = [i for i in flagged if i < size]
    character = CharacterFactory(key=key)
    version = ProfileVersionFactory(
        character=character, number=1, frozen_at=datetime(2026, 1, 5, tzinfo=UTC)
    )
    # The default prompts (written again if a transactional test flushed them).
    prompt = {s: _latest_prompt(s) for s in ("screening", "reranking", "response")}
    run = GenerationRun.objects.create(
        created_by=admin,
        families=["gpt"],
        screening_prompt=prompt["screening"],
        reranking_prompt=prompt["reranking"],
        response_prompt=prompt["response"],
    )
    pairs = []
    for i in range(size):
        scenario = ScenarioFactory(scenario_id=f"SCN_ASSIGN_{key}_{i:04d}", name=f"Trial {i}")
        pair = ComparisonPair.objects.create(
            character=character,
            scenario=scenario,
            profile_version=version,
            status=ComparisonPair.Status.ADOPTED if i in adopted else "annotating",
        )
        pairs.append(pair)

    def candidate(family, text, scenario=pairs[0].scenario):
        return Candidate.objects.create(
            run=run,
            character=character,
            scenario=scenario,
            family=family,
            model_name=f"model-{family}",
            profile_version=version,
            summary="s",
            final_decision=text,
        )

    clean = [candidate(f, "I stay behind.") for f in ("claude", "gpt", "gemini")]
    leaky = candidate("gpt", "As an AI model I would stay.", pairs[1].scenario)
    flag = LeakFlag.objects.create(candidate=leaky)
    # Three candidates each; a flagged pair's second one is the leaky candidate.
    through = ComparisonPair.candidates.through
    through.objects.bulk_create(
        through(comparisonpair=pair, candidate=c)
        for i, pair in enumerate(pairs)
        for c in ([clean[0], leaky, clean[2]] if i in flagged else clean)
    )
    return pairs, flag


def titles(body: str) -> list[str]:
    return re.findall(r'<tr data-testid="pair-row"><td>([^<]*)</td>', body)


def follow_pages(client, params: dict) -> tuple[list[str], list[str]]:
    """Every page from the first through its Next links: (titles in order, bodies)."""
    url = reverse("comparison:assign")
    body = client.get(url, params).content.decode()
    seen, bodies = titles(body), [body]
    while (link := re.search(r'href="([^"]*)">Next</a>', body)) is not None:
        body = client.get(url + link.group(1).replace("&amp;", "&")).content.decode()
        seen += titles(body)
        bodies.append(body)
    return seen, bodies


def test_the_page_shows_one_page_of_pairs_and_the_next_link_walks_them_all(client):
    cast = people()
    _, flag = pairs_of(120, cast["admin"])
    client.force_login(cast["admin"])
    body = client.get(reverse("comparison:assign")).content.decode()
    assert body.count('data-testid="pair-row"') == PAIRS_PER_PAGE
    assert "120 pairs; 50 a page." in body and "Page 1 of 3" in body
    seen, bodies = follow_pages(client, {})
    assert seen == [f"Character 51 × Trial {i}" for i in range(120)]
    # Each waiting pair names its flag on its own page: Trial 0 on the first, 70 on the second.
    assert [b.count(f"leak flag {flag.pk}</a>") for b in bodies] == [1, 1, 0]


def test_the_filter_selects_in_the_database_and_its_next_link_keeps_it(client):
    cast = people()
    pairs_of(120, cast["admin"])
    client.force_login(cast["admin"])
    seen, bodies = follow_pages(client, {"waits": "yes"})
    assert seen == ["Character 51 × Trial 0", "Character 51 × Trial 70"]
    assert "2 pairs match the filter" in bodies[0]
    seen, bodies = follow_pages(client, {"status": "annotating", "waits": "no"})
    assert len(bodies) == 3 and "117 pairs match the filter" in bodies[0]
    assert seen == [f"Character 51 × Trial {i}" for i in range(120) if i not in (0, 5, 70)]
    seen, _ = follow_pages(client, {"status": "adopted"})
    assert seen == ["Character 51 × Trial 5"]
    body = client.get(reverse("comparison:assign"), {"status": "discarded"}).content.decode()
    assert "No pair matches the filter." in body


def queries_of(client, **params) -> int:
    with CaptureQueriesContext(connection) as captured:
        answer = client.get(reverse("comparison:assign"), params)
    assert answer.status_code == 200
    # No query reads every pair: each one that lists pairs takes a page or counts.
    table = ComparisonPair._meta.db_table
    for query in captured.captured_queries:
        sql = query["sql"]
        if re.match(rf'SELECT .* FROM "{table}"', sql) and "regeneration" not in sql:
            assert re.search(r"LIMIT \d+", sql) or sql.startswith("SELECT COUNT("), sql
    return len(captured.captured_queries)


def test_the_page_costs_the_same_queries_at_ten_and_at_120_pairs(client):
    cast = people()
    client.force_login(cast["admin"])
    pairs_of(10, cast["admin"], key="CHAR_52")
    small = (queries_of(client), queries_of(client, waits="yes"), queries_of(client, page=1))
    pairs_of(110, cast["admin"], key="CHAR_53")
    large = (queries_of(client), queries_of(client, waits="yes"), queries_of(client, page=2))
    assert small == large


def test_assigning_leaves_out_the_waiting_and_routed_pairs(client):
    cast = people()
    pairs, _ = pairs_of(120, cast["admin"])
    client.force_login(cast["admin"])
    answer = client.post(
        reverse("comparison:assign"),
        {"annotators": [a.pk for a in cast["annotators"]], "batch_size": 0},
    )
    assert answer.status_code == 302
    assert PairAssignment.objects.count() == 117 * 3
    left_out = {p.pk for i, p in enumerate(pairs) if i in (0, 5, 70)}
    assert not PairAssignment.objects.filter(pair__in=left_out).exists()
    body = client.get(reverse("comparison:assign"), {"waits": "no"}).content.decode()
    assert re.search(r"Trial 1</td><td>With the annotators</td><td>3</td>", body)
