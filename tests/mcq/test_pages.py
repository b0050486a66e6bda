"""The admin's assembly-run pages and the item page's fixed query count."""

import pytest
from django.urls import reverse

from adjudication.mcq.models import McqAssemblyRun, McqItem
from adjudication.mcq.services import item_assembly
from adjudication.mcq.versions import revise_item
from core.roles import Role

from .conftest import flag

pytestmark = pytest.mark.django_db


def test_an_admin_starts_a_run_and_follows_its_progress(
    client, references, person, eager_celery, django_capture_on_commit_callbacks
):
    client.force_login(person(Role.ADMIN))
    page = client.get(reverse("mcq:runs")).content.decode()
    assert "7 now" in page and "deterministic fallback" in page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("mcq:runs"),
            {"measure": "tfidf_cosine", "similarity_max": "0.75", "relevance_min": "0.03"},
        )
    run = McqAssemblyRun.objects.get()
    assert response.status_code == 302 and response.url == reverse("mcq:run", args=[run.pk])
    assert run.status == "done" and run.processed == 7
    body = client.get(response.url, HTTP_HX_REQUEST="true").content.decode()
    assert "7 of 7 pairs" in body and "<html" not in body  # the fragment only
    assert McqItem.objects.count() == 7


def test_bad_thresholds_are_refused_and_nothing_starts(client, references, person):
    client.force_login(person(Role.ADMIN))
    response = client.post(
        reverse("mcq:runs"),
        {"measure": "tfidf_cosine", "similarity_max": "0.2", "relevance_min": "0.5"},
    )
    assert "below the similarity threshold" in response.content.decode()
    assert not McqAssemblyRun.objects.exists()


def test_an_arbitrator_cannot_start_a_run(client, person):
    client.force_login(person(Role.ARBITRATOR))
    assert client.get(reverse("mcq:runs")).status_code == 403


def test_the_item_page_runs_constant_queries(client, references, person, django_assert_num_queries):
    reviewer = person(Role.ARBITRATOR)
    item = flag(
        item_assembly.mcq_item_assemble(reference_id=references["CHAR_01"].pk, selector=False)
    )
    client.force_login(reviewer)
    url = reverse("mcq:item", args=[item.pk])
    client.get(url)
    with django_assert_num_queries(13) as few:  # 11, the revise draft, the recall audit
        client.get(url)
    for n in range(3):
        item.refresh_from_db()
        revise_item(
            item,
            user=reviewer,
            origin="review",
            options=[
                {"label": o.label, "content": f"{o.content} ({n})"}
                for o in item.options.order_by("label")
            ],
        )
        item.refresh_from_db()
        flag(item)
    with django_assert_num_queries(len(few.captured_queries)):
        assert "Version 4" in client.get(url).content.decode()


def test_an_admin_screens_a_waiting_item_now(
    client, references, person, judge, eager_celery, django_capture_on_commit_callbacks
):
    from llm.testing.replies import json_reply

    from .conftest import verdict

    item = item_assembly.mcq_item_assemble(
        reference_id=references["CHAR_01"].pk, selector=False, dispatch=False
    )
    client.force_login(person(Role.ADMIN))
    page = client.get(reverse("mcq:item", args=[item.pk])).content.decode()
    assert "awaits the LLM screen" in page and "Screen now" in page
    judge.enqueue(json_reply(verdict(item)))
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("mcq:screen", args=[item.pk]))
    item.refresh_from_db()
    assert item.status == McqItem.Status.FINAL and len(judge.requests) == 1
    # Once screened, asking again is refused with a message and calls nobody.
    response = client.post(reverse("mcq:screen", args=[item.pk]), follow=True)
    assert "is not awaiting screening" in response.content.decode()
    assert len(judge.requests) == 1
