"""MCQ screening as a run of the one LLM-run framework (issue #33): every judge call is
stored with its tokens and cost, a run cancels, resumes and retries through the one
state machine, a unit never screens a version its item has left, and the admin's run
page offers the one set of buttons. The judge is the fake provider server over HTTP."""

from decimal import Decimal

import pytest
from django.urls import reverse

from adjudication.mcq import screening as mcq_screening
from adjudication.mcq.models import McqError, McqItem, McqScreening, McqScreeningRun
from adjudication.mcq.services import item_assembly, item_screening, screening_runs
from adjudication.mcq.versions import revise_item
from core.roles import Role
from llm.testing.replies import json_reply, text_reply

from .conftest import verdict
from .test_worker import honest_judge

pytestmark = pytest.mark.django_db
Unit = McqScreening.Status
Run = McqScreeningRun.Status


@pytest.fixture
def items(references):
    """Two complete items awaiting screening."""
    made = [
        item_assembly.mcq_item_assemble(
            reference_id=references[key].pk, selector=False, dispatch=False
        )
        for key in ("CHAR_01", "CHAR_05")
    ]
    assert [i.status for i in made] == [McqItem.Status.SCREENING] * 2
    return made


def distractor(item):
    return next(o.label for o in item.options.order_by("label") if not o.is_correct)


def test_every_judge_call_is_stored_with_its_tokens_and_cost(items, judge, monkeypatch):
    monkeypatch.setenv("HEARTBENCH_MCQ_SCREENER_PRICE_IN", "3")
    monkeypatch.setenv("HEARTBENCH_MCQ_SCREENER_PRICE_OUT", "15")
    item = items[0]
    inconsistent = verdict(item, best=distractor(item), review=False)
    judge.enqueue(
        json_reply(inconsistent, tokens_in=1000, tokens_out=200),
        json_reply(verdict(item), tokens_in=1100, tokens_out=300),
    )
    screening = item_screening.mcq_screening_run(item_id=item.pk)

    assert screening.outcome == McqScreening.Outcome.PASSED and screening.status == Unit.DONE
    calls = list(screening.calls.order_by("attempt"))
    assert [c.attempt for c in calls] == [1, 2]
    assert calls[0].ok and "R1 passes only" in " ".join(calls[0].problems)
    assert calls[1].ok and calls[1].problems == [] and calls[1].model == "fake-judge"
    assert calls[1].prompt_hash and calls[1].raw_response and calls[1].latency_s > 0
    assert (screening.tokens_in, screening.tokens_out) == (2100, 500)
    assert screening.cost_usd == (Decimal(2100) * 3 + Decimal(500) * 15) / Decimal(1_000_000)
    run = screening.run
    assert run.status == Run.FINISHED and run.finished_at and run.screenings.count() == 1


def test_a_cancelled_run_resumes_only_what_still_awaits_its_screening(
    items, judge, person, eager_celery, django_capture_on_commit_callbacks
):
    fake = judge
    fake.responder = honest_judge
    admin = person(Role.ADMIN)
    run = screening_runs.screening_run_for_everything_awaiting(user=admin)  # not sent yet
    assert run.status == Run.RUNNING and run.created_by == admin
    assert set(run.screenings.values_list("status", flat=True)) == {Unit.PENDING}
    with pytest.raises(McqError, match="cancelled run can be resumed"):
        screening_runs.screening_run_resume(run_id=run.pk)

    screening_runs.screening_run_cancel(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == Run.CANCELLED
    assert set(run.screenings.values_list("status", flat=True)) == {Unit.CANCELLED}
    assert set(McqItem.objects.values_list("status", flat=True)) == {McqItem.Status.SCREENING}
    # A message sent before the cancel, arriving now, screens nothing.
    first = run.screenings.order_by("pk").first()
    assert item_screening.mcq_screening_unit_execute(screening_id=first.pk).status == (
        Unit.CANCELLED
    )
    assert fake.requests == []

    # The first item is screened by another run meanwhile: the resume leaves it alone.
    with django_capture_on_commit_callbacks(execute=True):
        other = item_screening.mcq_screening_request(item_id=items[0].pk, user=admin)
    other.refresh_from_db()
    assert other.status == Run.FINISHED and len(fake.requests) == 1
    with django_capture_on_commit_callbacks(execute=True):
        screening_runs.screening_run_resume(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == Run.FINISHED
    states = dict(run.screenings.values_list("item_id", "status"))
    assert states == {items[0].pk: Unit.CANCELLED, items[1].pk: Unit.DONE}
    assert set(McqItem.objects.values_list("status", flat=True)) == {McqItem.Status.FINAL}
    assert len(fake.requests) == 2  # one screening per version, never two
    assert McqScreening.objects.filter(outcome=McqScreening.Outcome.PASSED).count() == 2


def test_a_technical_failure_fails_the_unit_and_a_retry_screens_it_again(
    items, judge, eager_celery, django_capture_on_commit_callbacks
):
    item = items[0]
    judge.enqueue(*[text_reply("Sure, it looks fine.")] * mcq_screening.MAX_SCREENING_ATTEMPTS)
    screening = item_screening.mcq_screening_run(item_id=item.pk)
    run = screening.run
    run.refresh_from_db()
    item.refresh_from_db()
    assert screening.status == Unit.FAILED
    assert screening.outcome == McqScreening.Outcome.TECHNICAL_FAILURE
    assert screening.error_kind and "3 attempts" in screening.error_message
    assert len(screening.attempt_errors) == screening.calls.count() == 3
    assert run.status == Run.FINISHED_WITH_FAILURES and item.status == McqItem.Status.FLAGGED

    judge.enqueue(json_reply(verdict(item)))
    with django_capture_on_commit_callbacks(execute=True):
        screening_runs.screening_run_retry(run_id=run.pk)
    screening.refresh_from_db()
    run.refresh_from_db()
    item.refresh_from_db()
    assert screening.status == Unit.DONE and screening.outcome == McqScreening.Outcome.PASSED
    assert screening.error_kind == screening.error_message == "" and screening.attempts == 1
    assert screening.calls.count() == 4  # the failed calls stay on record
    assert run.status == Run.FINISHED and item.status == McqItem.Status.FINAL
    with pytest.raises(McqError, match="finished with failures can be retried"):
        screening_runs.screening_run_retry(run_id=run.pk)


def test_a_unit_whose_item_changed_is_cancelled_and_says_why(items, judge, person):
    item = items[0]
    run = item_screening.mcq_screening_request(item_id=item.pk, user=person(Role.ADMIN))
    revise_item(
        item,
        user=person(),
        origin="review",
        note="clearer wording",
        options=[
            {"label": o.label, "content": f"{o.content} Really."}
            for o in item.options.order_by("label")
        ],
    )
    unit = item_screening.mcq_screening_unit_execute(screening_id=run.screenings.get().pk)
    assert unit.status == Unit.CANCELLED and unit.error_kind == "item_changed"
    assert "version 2" in unit.error_message and judge.requests == []
    run.refresh_from_db()
    assert run.status == Run.FINISHED
    item.refresh_from_db()
    assert item.status == McqItem.Status.SCREENING and item.version == 2


def test_no_judge_refuses_screen_now_and_an_assembly_run_opens_no_screening_run(references, person):
    admin = person(Role.ADMIN)
    with pytest.raises(McqError, match="No screening model is configured"):
        screening_runs.screening_run_for_everything_awaiting(user=admin)
    run = item_assembly.mcq_assembly_run_start(started_by=admin, dispatch=False)
    item_assembly.mcq_assembly_run_execute(run_id=run.pk)
    assert not McqScreeningRun.objects.exists()
    # "Screen now" still queues the item's screening, which waits for a judge.
    item = McqItem.objects.filter(status=McqItem.Status.SCREENING).first()
    assert item_screening.mcq_screening_request(item_id=item.pk) is None
    assert item_screening.mcq_screening_run(item_id=item.pk) is None
    item.refresh_from_db()
    assert item.status == McqItem.Status.SCREENING and not McqScreeningRun.objects.exists()


def test_an_assembly_run_screens_its_items_as_one_run(references, judge, person):
    run = item_assembly.mcq_assembly_run_start(started_by=person(Role.ADMIN), dispatch=False)
    run = item_assembly.mcq_assembly_run_execute(run_id=run.pk)
    screening_run = McqScreeningRun.objects.get()
    assert screening_run.assembly_run == run and screening_run.status == Run.RUNNING
    assert screening_run.screenings.count() == run.assembled
    assert set(screening_run.screenings.values_list("item__status", flat=True)) == {"screening"}


def test_the_admin_run_page_offers_the_one_set_of_buttons(
    client, items, judge, person, eager_celery, django_capture_on_commit_callbacks
):
    judge.responder = honest_judge
    client.force_login(person(Role.ADMIN))
    listing = client.get(reverse("mcq:screening-runs")).content.decode()
    assert "2 items await screening" in listing and 'data-testid="screen-awaiting"' in listing
    response = client.post(reverse("mcq:screening-runs"))  # queued after commit: not yet run
    run = McqScreeningRun.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("mcq:screening-run", args=[run.pk])

    page = client.get(response.url).content.decode()
    assert 'id="run-cancel"' in page and 'data-run-action="cancel"' in page
    assert 'data-status="running"' in page and "Q_CHAR_01_SCN_SCHOOL_AGE_1" in page
    fragment = client.post(
        reverse("mcq:screening-run-cancel", args=[run.pk]), HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "<html" not in fragment and 'data-status="cancelled"' in fragment
    assert 'id="run-resume"' in fragment and 'id="run-cancel"' not in fragment
    refused = client.post(
        reverse("mcq:screening-run-retry", args=[run.pk]), HTTP_HX_REQUEST="true"
    ).content.decode()
    assert 'data-testid="run-action-error"' in refused and "can be retried" in refused

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("mcq:screening-run-resume", args=[run.pk]))
    assert response.status_code == 302
    page = client.get(response.url).content.decode()
    assert 'data-status="finished"' in page and 'id="run-resume"' not in page
    assert 'data-testid="run-tokens"' in page and "2 judge calls" in page
    item_page = client.get(reverse("mcq:item", args=[items[0].pk])).content.decode()
    assert reverse("mcq:screening-run", args=[run.pk]) in item_page


def test_only_admins_reach_the_screening_run_pages(client, items, person):
    run = McqScreeningRun.objects.create(note="a run")
    for role in (Role.ARBITRATOR, Role.PRIMARY_ANNOTATOR):
        client.force_login(person(role))
        for name, args in (
            ("mcq:screening-runs", []),
            ("mcq:screening-run", [run.pk]),
        ):
            assert client.get(reverse(name, args=args)).status_code == 403
        for action in ("cancel", "resume", "retry"):
            url = reverse(f"mcq:screening-run-{action}", args=[run.pk])
            assert client.post(url).status_code == 403
    run.refresh_from_db()
    assert run.status == Run.PENDING
