"""An evaluation run's actions on the one LLM-run framework (issue #33): the run page
offers cancel, resume and retry with the shared buttons; cancelling stops the items not
yet asked and keeps the answers; retry asks only the failed items; every call is on
record with its tokens added to its prediction; the API keeps naming an imported run
``imported``."""

import re

import pytest
from django.urls import reverse

from core.llm_runs.models import RunStatus
from evaluation import services
from evaluation.models import EvaluationError, EvaluationPrediction, Setting
from evaluation.prediction_import import evaluation_run_import
from llm.testing.replies import Reply, server_error

from .test_runs import run_items, user_text

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]
Status = EvaluationPrediction.Status


def buttons(html: str) -> set[str]:
    return set(re.findall(r'data-run-action="(\w+)"', html))


def test_cancel_stops_the_items_not_yet_asked_and_resume_asks_them(
    admin_user, corpus, fake_model, client, django_capture_on_commit_callbacks
):
    answer = Reply(value={"decision_choice": "A"}, tokens_in=50, tokens_out=7)
    fake_model.responder = lambda req: answer
    run = services.evaluation_run_create(
        created_by=admin_user, provider_key="fake", setting=Setting.NO_RETRIEVAL
    )
    client.force_login(admin_user)
    page = reverse("evaluation:run-detail", args=[run.pk])
    assert buttons(client.get(page).content.decode()) == {"cancel"}

    # Cancelled before it ran: every item is cancelled at once, nothing is asked.
    response = client.post(reverse("evaluation:run-cancel", args=[run.pk]), follow=True)
    assert "is cancelling" in response.content.decode()
    run.refresh_from_db()
    assert run.status == RunStatus.CANCELLED and run.finished_at
    assert set(run.predictions.values_list("status", flat=True)) == {Status.CANCELLED}
    assert fake_model.requests == []
    html = client.get(page).content.decode()
    assert buttons(html) == {"resume"} and 'data-status="cancelled"' in html

    # A cancelled run cannot be cancelled again, nor retried; the page says why (htmx).
    response = client.post(reverse("evaluation:run-cancel", args=[run.pk]), HTTP_HX_REQUEST="true")
    assert "only a pending or running run can be cancelled" in response.content.decode()
    with pytest.raises(EvaluationError, match="was cancelled"):
        services.evaluation_run_retry_failed(run_id=run.pk)

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("evaluation:run-resume", args=[run.pk]), follow=True)
    assert "8 items queued again." in response.content.decode()
    run.refresh_from_db()
    assert run.status == RunStatus.FINISHED
    assert set(run.predictions.values_list("status", flat=True)) == {Status.ANSWERED}
    # Each prediction made one call, on record, its tokens on the prediction.
    for p in run.predictions.all():
        (call,) = p.calls.all()
        assert call.ok and call.prompt_hash and call.model == "fake-eval"
        assert (p.tokens_in, p.tokens_out) == (call.tokens_in, call.tokens_out) == (50, 7)
    assert buttons(client.get(page).content.decode()) == set()


def test_retry_asks_only_the_failed_items_again(
    admin_user, corpus, fake_model, client, django_capture_on_commit_callbacks
):
    items = corpus["items"][:3]
    failing = {items[0].character.key}

    def responder(req):
        character = re.search(r"Character ID: (\S+)\n", user_text(req)).group(1)
        return server_error(503) if character in failing else {"decision_choice": "B"}

    fake_model.responder = responder
    run = run_items(
        admin_user, Setting.NO_RETRIEVAL, items, capture=django_capture_on_commit_callbacks
    )
    assert run.status == RunStatus.FINISHED_WITH_FAILURES
    failed = run.predictions.get(status=Status.FAILED)
    assert failed.error_kind == "server_error" and "503" in failed.error_message
    (call,) = failed.calls.all()
    assert not call.ok and call.error_kind == "server_error"

    client.force_login(admin_user)
    page = reverse("evaluation:run-detail", args=[run.pk])
    html = client.get(page).content.decode()
    assert buttons(html) == {"resume", "retry"}
    assert "Retry the failed items (1)" in html
    asked = len(fake_model.requests)
    failing.clear()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("evaluation:run-retry", args=[run.pk]), follow=True)
    assert "1 failed item queued again." in response.content.decode()
    assert len(fake_model.requests) == asked + 1  # the answered items were not asked again
    run.refresh_from_db()
    assert run.status == RunStatus.FINISHED
    failed.refresh_from_db()
    assert (failed.status, failed.choice, failed.error_kind) == (Status.ANSWERED, "B", "")
    assert [c.ok for c in failed.calls.order_by("pk")] == [False, True]
    detail = client.get(reverse("evaluation:prediction-detail", args=[run.pk, failed.pk]))
    assert detail.content.decode().count("data-call=") == 2
    with pytest.raises(EvaluationError, match="no failed items"):
        services.evaluation_run_retry_failed(run_id=run.pk)


def test_an_imported_run_is_finished_offers_no_action_and_the_api_names_it_imported(
    admin_user, corpus, client
):
    item = corpus["items"][0]
    run = evaluation_run_import(
        created_by=admin_user,
        filename="m.csv",
        content=f"question_id,decision_choice\n{item.question_id},A\n".encode(),
        label="m",
        setting=Setting.NAIVE_RAG,
    )
    assert run.status == RunStatus.FINISHED and run.is_imported
    assert not run.predictions.get().calls.exists()
    for refuse in (
        services.evaluation_run_cancel,
        services.evaluation_run_resume,
        services.evaluation_run_retry_failed,
    ):
        with pytest.raises(EvaluationError):
            refuse(run_id=run.pk)
    client.force_login(admin_user)
    page = client.get(reverse("evaluation:run-detail", args=[run.pk]))
    assert buttons(page.content.decode()) == set()

    api = "/api/evaluation/runs/"
    assert client.get(f"{api}{run.pk}/").json()["status"] == "imported"
    assert [r["id"] for r in client.get(api, {"status": "imported"}).json()["results"]] == [run.pk]
    assert client.get(api, {"status": "finished"}).json()["results"] == []


def test_the_api_cancels_and_retries_as_the_buttons_do(
    admin_user, corpus, fake_model, client, django_capture_on_commit_callbacks
):
    fake_model.responder = lambda req: server_error(503)
    capture = django_capture_on_commit_callbacks
    run = run_items(admin_user, Setting.NO_RETRIEVAL, corpus["items"][:2], capture=capture)
    assert run.status == RunStatus.FINISHED_WITH_FAILURES
    client.force_login(admin_user)
    api = f"/api/evaluation/runs/{run.pk}/"
    stale = client.get(api)["ETag"]
    response = client.post(f"{api}cancel/")
    assert response.status_code == 400
    assert "only a pending or running run can be cancelled" in str(response.json()["detail"])

    fake_model.responder = lambda req: {"decision_choice": "D"}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"{api}retry/", HTTP_IF_MATCH=stale)
    assert response.status_code == 200, response.json()
    assert response.json()["queued"] == 2
    assert client.get(api).json()["status"] == "finished"
    assert client.post(f"{api}retry/", HTTP_IF_MATCH=stale).status_code == 412

    pending = services.evaluation_run_create(
        created_by=admin_user, provider_key="fake", setting=Setting.NO_RETRIEVAL
    )
    response = client.post(f"/api/evaluation/runs/{pending.pk}/cancel/")
    assert response.status_code == 200 and response.json()["status"] == "cancelled"
    assert client.post("/api/evaluation/runs/999999/cancel/").status_code == 404
