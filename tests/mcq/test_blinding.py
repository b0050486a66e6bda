"""Blinding of item review: the references' model families and the judge's model are
provenance. An annotator walking every page, fragment and API response with a flagged
item in the URLconf finds neither; the reviewer's own pages do not show them either."""

import pytest
from django.urls import reverse

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.services import item_assembly
from core.roles import Role
from tests.blinding import scan_responses
from tests.web.conftest import SECRET_MODEL_NAMES, secret_corpus  # noqa: F401
from tests.web.test_blinding import HEADER_VARIANTS, named_patterns, url_arguments
from tests.web.test_generation_blinding import FAMILY_WORD

from .conftest import flag

pytestmark = pytest.mark.django_db


def exposures(body: str) -> list[str]:
    found = [f"model name {name}" for name in SECRET_MODEL_NAMES.values() if name in body]
    found += sorted({f"family {m.group(0)!r}" for m in FAMILY_WORD.finditer(body)})
    return found


def reachable_urls(corpus, user):
    """Every URL of the URLconf whose parameters the shared walk knows. The walk of
    tests/web/test_blinding.py insists on all of them; here a URL another workflow adds
    mid-session without its parameter is left to that test."""
    arguments = url_arguments(corpus, user)
    return {
        reverse(name, kwargs={p: arguments[p] for p in params}): name
        for name, params in named_patterns()
        if all(p in arguments for p in params)
    }


@pytest.fixture
def item(references):
    ReferenceResponse.objects.update(source_family="gemini")
    return flag(
        item_assembly.mcq_item_assemble(reference_id=references["CHAR_01"].pk, selector=False)
    )


def test_an_annotator_reaches_no_family_or_judge_model(client, secret_corpus, item, person):  # noqa: F811
    annotator = person(Role.PRIMARY_ANNOTATOR)
    client.force_login(annotator)
    corpus = {**secret_corpus, "item": item}
    results = scan_responses(
        client,
        reachable_urls(corpus, annotator),
        exposures,
        query_variants=["", "?status=flagged", "?format=json"],
        header_variants=HEADER_VARIANTS,
    )
    mcq_pages = set()
    for (requested, headers), (name, status, found) in results.items():
        assert not found, f"{requested} {headers} ({status}) exposes {found}"
        if name.startswith("mcq"):
            mcq_pages.add(name)
            assert status != 200, f"{requested} answered {status} to an annotator"
    assert {"mcq:queue", "mcq:item", "mcq-api:queue", "mcq:runs", "mcq:screening-runs"} <= (
        mcq_pages
    )


def test_the_screening_run_pages_are_for_admins_and_name_no_judge(client, item, person):
    """The run's page carries tokens and cost: annotators and reviewers are refused it;
    the admin's page itself names no judge model or family."""
    run = item.screenings.get().run
    urls = {
        reverse("mcq:screening-runs"): "mcq:screening-runs",
        reverse("mcq:screening-run", args=[run.pk]): "mcq:screening-run",
    }
    for role in (Role.PRIMARY_ANNOTATOR, Role.ARBITRATOR):
        client.force_login(person(role))
        results = scan_responses(
            client, urls, exposures, query_variants=[""], header_variants=HEADER_VARIANTS
        )
        for (requested, _), (_, status, found) in results.items():
            assert status == 403 and not found, (role, requested, status, found)
    client.force_login(person(Role.ADMIN))
    results = scan_responses(
        client, urls, exposures, query_variants=[""], header_variants=HEADER_VARIANTS
    )
    for (requested, _), (_, status, found) in results.items():
        assert status == 200 and not found, (requested, found)


def test_the_reviewers_pages_show_no_family_either(client, item, person):
    client.force_login(person(Role.ARBITRATOR))
    urls = {
        reverse("mcq:queue"): "mcq:queue",
        reverse("mcq:item", args=[item.pk]): "mcq:item",
        reverse("mcq:queue-csv"): "mcq:queue-csv",
        reverse("mcq-api:queue"): "mcq-api:queue",
        reverse("mcq-api:item", args=[item.pk]): "mcq-api:item",
        reverse("mcq-api:revise-draft", args=[item.pk]): "mcq-api:revise-draft",
    }
    results = scan_responses(
        client, urls, exposures, query_variants=[""], header_variants=HEADER_VARIANTS
    )
    for (requested, _), (_, status, found) in results.items():
        assert status == 200 and not found, (requested, found)
    # The control: the judge's model is stored where the scan would find it.
    assert item.screenings.get().judge_model == SECRET_MODEL_NAMES["claude"]
