"""Evaluation runs over the API with token-only clients (issue #23): an admin launches a
run against the fake provider server, follows it, lists its predictions, resumes a run
with a failed call (a stale If-Match answers 412), and imports predictions files, a
refused file naming the row and the field and storing nothing. Other roles get 403."""

import io
import json

import pytest

from core.roles import Role
from evaluation.models import EvaluationPrediction, EvaluationRun
from llm.testing.fake_server import FakeProviderServer
from llm.testing.replies import server_error
from tests.evaluation.conftest import build_corpus, fake_env

pytestmark = pytest.mark.django_db
RUNS = "/api/evaluation/runs/"
IMPORT = "/api/evaluation/import/"


@pytest.fixture
def corpus(db):
    return build_corpus()


@pytest.fixture
def fake_model(monkeypatch):
    with FakeProviderServer() as server:
        for name, value in fake_env(server).items():
            monkeypatch.setenv(name, value)
        server.responder = lambda req: {"decision_choice": "B"}
        yield server


@pytest.fixture
def eager_celery():
    from heartbench_site.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


@pytest.fixture
def admin(api_user):
    return api_user(Role.ADMIN, username="eval-admin")


def launch(client, capture, **body):
    with capture(execute=True):
        return client.post(RUNS, {"provider": "fake", "setting": "no_retrieval", **body}, "json")


def upload(name, text):
    f = io.BytesIO(text.encode())
    f.name = name
    return f


@pytest.mark.usefixtures("eager_celery")
def test_launch_follow_and_list_predictions(
    admin, corpus, fake_model, django_capture_on_commit_callbacks
):
    user, client = admin
    ids = [i.question_id for i in corpus["items"][:3]]
    response = launch(
        client,
        django_capture_on_commit_callbacks,
        item_set="ids",
        question_ids=ids,
        item_set_name="pilot 3",
        label="fake model",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    run = EvaluationRun.objects.get()
    assert body["id"] == run.pk and body["created_by"] == "eval-admin"
    # The page's defaults where the script sent none: temperature 0, k 30, BM25.
    assert run.decoding["temperature"] == 0 and run.k == 30 and run.retrieval_method == "bm25"
    assert len(fake_model.requests) == 3

    detail = client.get(f"{RUNS}{run.pk}/")
    assert detail.status_code == 200 and detail["ETag"]
    data = detail.json()
    assert (data["status"], data["total"], data["answered"], data["percent"]) == (
        "finished",
        3,
        3,
        100,
    )
    assert data["item_set"] == "pilot 3" and data["label"] == "fake model"

    page = client.get(f"{RUNS}{run.pk}/predictions/", {"page_size": 2, "ordering": "-question_id"})
    assert page.status_code == 200
    listed = page.json()
    assert listed["count"] == 3 and len(listed["results"]) == 2 and listed["next"]
    assert [r["question_id"] for r in listed["results"]] == sorted(ids, reverse=True)[:2]
    key = {i.question_id: i.correct_answer for i in corpus["items"][:3]}
    for row in listed["results"]:
        assert row["choice"] == "B" and row["correct"] == (key[row["question_id"]] == "B")
        assert "raw_response" not in row and "user_prompt" not in row
    only = client.get(f"{RUNS}{run.pk}/predictions/", {"question_id": ids[0]}).json()
    assert [r["question_id"] for r in only["results"]] == [ids[0]]
    one = client.get(f"{RUNS}{run.pk}/predictions/{only['results'][0]['id']}/").json()
    assert "## Decision options" in one["user_prompt"] and one["raw_response"]
    assert client.get(f"{RUNS}{run.pk}/predictions/", {"status": "nope"}).status_code == 400
    assert client.get(f"{RUNS}999999/predictions/").status_code == 404
    assert client.get(f"{RUNS}{run.pk}/predictions/999999/").status_code == 404

    runs = client.get(RUNS, {"setting": "no_retrieval"}).json()
    assert runs["count"] == 1 and runs["results"][0]["id"] == run.pk
    assert client.get(RUNS, {"setting": "naive_rag"}).json()["count"] == 0
    bad = client.get(RUNS, {"ordering": "provider"})
    assert bad.status_code == 400 and "ordering" in bad.json()


@pytest.mark.usefixtures("eager_celery")
def test_a_launch_refused_names_the_field_and_creates_nothing(
    admin, corpus, fake_model, django_capture_on_commit_callbacks
):
    _, client = admin
    capture = django_capture_on_commit_callbacks
    response = launch(client, capture, provider="")
    assert response.status_code == 400 and "provider" in response.json()["fields"]
    response = launch(client, capture, item_set="ids")
    assert response.json()["fields"]["question_ids"] == [
        "List the question ids, or choose all final items."
    ]
    response = launch(client, capture, setting="telepathy")
    assert response.status_code == 400 and "setting" in response.json()["fields"]
    response = launch(client, capture, k=0)
    assert response.status_code == 400 and "k" in response.json()["fields"]
    response = launch(
        client,
        capture,
        item_set="ids",
        question_ids=[corpus["items"][0].question_id, "SCN_TYPO__CHAR_01"],
    )
    assert response.status_code == 400
    assert response.json()["detail"] == [
        "1 unknown question id: SCN_TYPO__CHAR_01. Nothing was created."
    ]
    assert client.post(RUNS, [1, 2], "json").status_code == 400
    assert not EvaluationRun.objects.exists() and not fake_model.requests


@pytest.mark.usefixtures("eager_celery")
def test_resume_a_run_with_a_failed_call(
    admin, corpus, fake_model, django_capture_on_commit_callbacks
):
    _, client = admin
    target = corpus["items"][1]
    fake_model.responder = lambda req: (
        server_error(503)
        if f"Character ID: {target.character.key}\n" in req.turns()[0][1]
        and f"Scenario: {target.scenario.name}\n" in req.turns()[0][1]
        else {"decision_choice": "A"}
    )
    ids = [i.question_id for i in corpus["items"][:3]]
    run_id = launch(
        client, django_capture_on_commit_callbacks, item_set="ids", question_ids=ids
    ).json()["id"]
    read = client.get(f"{RUNS}{run_id}/")
    assert read.json()["status"] == "finished_with_failures" and read.json()["failed"] == 1
    tag = read["ETag"]

    # A resume based on an older read of the run is refused, and queues nothing.
    EvaluationRun.objects.filter(pk=run_id).update(note="touched")  # not the state: same tag
    assert client.get(f"{RUNS}{run_id}/")["ETag"] == tag
    stale = '"0000"'
    response = client.post(f"{RUNS}{run_id}/resume/", HTTP_IF_MATCH=stale)
    assert response.status_code == 412
    assert EvaluationPrediction.objects.get(run_id=run_id, item=target).status == "failed"

    fake_model.responder = lambda req: {"decision_choice": "C"}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"{RUNS}{run_id}/resume/", HTTP_IF_MATCH=tag)
    assert response.status_code == 200, response.json()
    assert response.json()["queued"] == 1
    run = client.get(f"{RUNS}{run_id}/").json()
    assert (run["status"], run["failed"], run["answered"]) == ("finished", 0, 3)
    assert EvaluationPrediction.objects.get(run_id=run_id, item=target).choice == "C"

    again = client.post(f"{RUNS}{run_id}/resume/")
    assert again.status_code == 400
    assert again.json()["detail"] == [f"Run {run_id} has a stored response for every item."]
    assert client.post(f"{RUNS}999999/resume/").status_code == 404


def test_import_csv_and_json_and_refuse_a_bad_file_whole(admin, corpus):
    _, client = admin
    items = corpus["items"]
    good = f"question_id,decision_choice\n{items[0].question_id},A\n{items[1].question_id},\n"
    response = client.post(
        IMPORT,
        {"file": upload("qwen.csv", good), "label": "qwen", "setting": "naive_rag"},
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["origin"], body["status"], body["label"], body["total"]) == (
        "imported",
        "imported",
        "qwen",
        2,
    )
    assert body["source_file"] == "qwen.csv"
    runs, predictions = EvaluationRun.objects.count(), EvaluationPrediction.objects.count()

    bad_letter = (
        f"question_id,decision_choice\n{items[0].question_id},A\n{items[1].question_id},E\n"
    )
    response = client.post(
        IMPORT,
        {"file": upload("m.csv", bad_letter), "label": "m", "setting": "naive_rag"},
        format="multipart",
    )
    assert response.status_code == 400
    message = "Line 3: decision_choice 'E' is not A, B, C, D or blank."
    assert response.json() == {"detail": [message], "fields": {"file": [message]}}

    unknown = json.dumps(
        {
            "model": "m",
            "setting": "naive_rag",
            "predictions": [
                {"question_id": items[0].question_id, "decision_choice": "A"},
                {"question_id": "SCN_NOPE__CHAR_09", "decision_choice": "B"},
            ],
        }
    )
    response = client.post(IMPORT, {"file": upload("m.json", unknown)}, format="multipart")
    assert response.status_code == 400
    assert response.json()["fields"]["file"] == [
        "1 unknown question id: predictions[1] question_id 'SCN_NOPE__CHAR_09'."
    ]
    twice = f"question_id,answer\n{items[0].question_id},A\n{items[0].question_id},B\n"
    response = client.post(
        IMPORT,
        {"file": upload("t.csv", twice), "label": "t", "setting": "naive_rag"},
        format="multipart",
    )
    assert response.json()["fields"]["file"] == [
        f"Question id listed twice: {items[0].question_id} (line 2 and line 3)."
    ]
    response = client.post(IMPORT, {"file": upload("n.csv", good)}, format="multipart")
    assert response.json()["fields"] == {
        "label": ['Name the model: the file has no "model" and no label was given.']
    }
    response = client.post(IMPORT, {"label": "x"}, format="multipart")
    assert response.status_code == 400 and "file" in response.json()["fields"]
    assert EvaluationRun.objects.count() == runs
    assert EvaluationPrediction.objects.count() == predictions  # refused files store nothing

    ok = json.dumps(
        {"model": "j", "setting": "no_retrieval", "predictions": {items[2].question_id: "d"}}
    )
    response = client.post(IMPORT, {"file": upload("j.json", ok)}, format="multipart")
    assert response.status_code == 201 and response.json()["setting"] == "no_retrieval"
    assert EvaluationPrediction.objects.get(run_id=response.json()["id"]).choice == "D"


@pytest.mark.parametrize("role", [r for r in Role if r is not Role.ADMIN])
def test_only_admins_use_the_evaluation_api(api_user, corpus, role):
    _, client = api_user(role)
    assert client.get(RUNS).status_code == 403
    assert (
        client.post(RUNS, {"provider": "fake", "setting": "naive_rag"}, "json").status_code == 403
    )
    assert client.post(f"{RUNS}1/resume/").status_code == 403
    assert client.get(f"{RUNS}1/predictions/").status_code == 403
    assert client.get(f"{RUNS}1/predictions/1/").status_code == 403
    csv_text = f"question_id,answer\n{corpus['items'][0].question_id},A\n"
    response = client.post(
        IMPORT,
        {"file": upload("x.csv", csv_text), "label": "x", "setting": "naive_rag"},
        format="multipart",
    )
    assert response.status_code == 403
    assert not EvaluationRun.objects.exists()


def test_an_odd_but_readable_json_file_is_imported_and_a_nul_id_refused(admin, corpus):
    _, client = admin
    items = corpus["items"]
    odd = json.dumps(
        {
            "model": "o",
            "setting": "naive_rag",
            "predictions": [
                # The reply as a JSON object rather than its text.
                {"question_id": items[0].question_id, "raw_response": {"decision_choice": "C"}},
            ],
        }
    )
    response = client.post(IMPORT, {"file": upload("o.json", odd)}, format="multipart")
    assert response.status_code == 201, response.json()
    prediction = EvaluationPrediction.objects.get(run_id=response.json()["id"])
    assert (prediction.choice, prediction.parse_path) == ("C", "json")
    nul = json.dumps({"model": "n", "setting": "naive_rag", "predictions": {"Q\u0000X": "A"}})
    response = client.post(IMPORT, {"file": upload("n.json", nul)}, format="multipart")
    assert response.status_code == 400
    assert response.json()["fields"]["file"] == [
        'predictions["Q\\u0000X"]: question_id holds a NUL character.'
    ]
