"""The admin pages: launching from the form (ids and CSV subsets), constant query counts
on the lists, resume, import, role checks, the home card."""

import io
import json

import pytest
from django.urls import reverse

from core.roles import Role
from evaluation import selectors, services
from evaluation.models import EvaluationRun
from evaluation.selectors import evaluation_home_queues
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]


def launch(client, capture, **data):
    form = {
        "provider": "fake",
        "setting": "no_retrieval",
        "item_set": "all",
        "retrieval_method": "bm25",
        "k": 30,
        "temperature": "0",
        "max_tokens": 4096,
        **data,
    }
    with capture(execute=True):
        return client.post(reverse("evaluation:run-list"), form)


@pytest.fixture
def fake_answers(fake_model):
    fake_model.responder = lambda req: {"decision_choice": "B"}
    return fake_model


def test_launch_a_subset_by_ids_and_by_csv(
    client, admin_user, corpus, fake_answers, django_capture_on_commit_callbacks
):
    client.force_login(admin_user)
    ids = [i.question_id for i in corpus["items"][:2]]
    response = launch(
        client,
        django_capture_on_commit_callbacks,
        item_set="ids",
        question_ids="\n".join(ids),
        item_set_name="pilot 2",
        label="fake model",
    )
    run = EvaluationRun.objects.get()
    assert response.status_code == 302 and response.url == reverse(
        "evaluation:run-detail", args=[run.pk]
    )
    assert run.item_set == "pilot 2" and run.label == "fake model" and run.status == "finished"
    assert sorted(run.predictions.values_list("item__question_id", flat=True)) == sorted(ids)

    upload = io.BytesIO(("question_id\n" + ids[0] + "\n").encode())
    upload.name = "subset.csv"
    launch(client, django_capture_on_commit_callbacks, item_set="csv", item_csv=upload)
    assert EvaluationRun.objects.latest("pk").predictions.count() == 1


def test_a_bad_id_list_is_rejected_and_creates_nothing(
    client, admin_user, corpus, fake_answers, django_capture_on_commit_callbacks
):
    client.force_login(admin_user)
    response = launch(
        client,
        django_capture_on_commit_callbacks,
        item_set="ids",
        question_ids=f"{corpus['items'][0].question_id}\nSCN_TYPO__CHAR_01",
    )
    assert response.status_code == 200
    assert "1 unknown question id: SCN_TYPO__CHAR_01" in response.content.decode()
    assert not EvaluationRun.objects.exists()


def test_list_and_detail_pages_use_a_constant_number_of_queries(
    client,
    admin_user,
    corpus,
    fake_answers,
    django_capture_on_commit_callbacks,
    django_assert_num_queries,
):
    client.force_login(admin_user)
    launch(client, django_capture_on_commit_callbacks)
    run = EvaluationRun.objects.get()

    def count(url):
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url).status_code == 200
        return len(ctx.captured_queries)

    list_url = reverse("evaluation:run-list")
    detail_url = reverse("evaluation:run-detail", args=[run.pk])
    before = (count(list_url), count(detail_url))
    for _ in range(3):
        launch(client, django_capture_on_commit_callbacks)
    with django_assert_num_queries(before[0]):
        client.get(list_url)
    with django_assert_num_queries(before[1]):
        client.get(detail_url)
    page = client.get(detail_url).content.decode()
    assert "8 of 8 items done: 8 answered" in page
    listed = [r.pk for r in selectors.run_list()]
    assert listed == sorted(listed, reverse=True)  # latest first


def test_prediction_detail_and_csv(
    client, admin_user, corpus, fake_answers, django_capture_on_commit_callbacks
):
    client.force_login(admin_user)
    launch(client, django_capture_on_commit_callbacks)
    run = EvaluationRun.objects.get()
    p = run.predictions.first()
    html = client.get(reverse("evaluation:prediction-detail", args=[run.pk, p.pk])).content.decode()
    assert "## Decision options" in html and "Raw response" in html
    csv_text = client.get(reverse("evaluation:run-csv", args=[run.pk])).content.decode()
    assert csv_text.startswith("question_id,decision_choice,status,parse_path,correct")
    assert csv_text.count("\n") == 9


def test_import_page_rejects_a_broken_file_and_accepts_a_good_one(client, admin_user, corpus):
    client.force_login(admin_user)
    bad = io.BytesIO(
        b'{"model": "m", "setting": "naive_rag", "predictions": [{"decision_choice": "A"}]}'
    )
    bad.name = "m.json"
    response = client.post(reverse("evaluation:import"), {"file": bad})
    assert "predictions[0] has no question_id." in response.content.decode()
    assert not EvaluationRun.objects.exists()
    good = io.BytesIO(
        json.dumps(
            {
                "model": "m",
                "setting": "naive_rag",
                "predictions": {corpus["items"][0].question_id: "A"},
            }
        ).encode()
    )
    good.name = "m.json"
    response = client.post(reverse("evaluation:import"), {"file": good})
    assert response.status_code == 302
    run = EvaluationRun.objects.get()
    # An imported run never ran: it is finished, and its origin says it was imported.
    assert (run.status, run.origin) == ("finished", "imported")


@pytest.mark.parametrize("role", [r for r in Role if r is not Role.ADMIN])
def test_only_admins_reach_the_pages(client, role, role_groups, corpus):
    client.force_login(UserFactory(roles=[role]))
    for name in (
        "evaluation:run-list",
        "evaluation:analysis",
        "evaluation:import",
        "evaluation:analysis-csv",
    ):
        assert client.get(reverse(name)).status_code in (302, 403)
    assert client.get("/api/evaluation/runs/").status_code == 403
    assert evaluation_home_queues(user=UserFactory(roles=[role])) == {}


def test_home_card_and_api(
    client, admin_user, corpus, fake_model, django_capture_on_commit_callbacks
):
    fake_model.responder = lambda req: {"decision_choice": "A"}
    run = services.evaluation_run_create(
        created_by=admin_user, provider_key="fake", setting="no_retrieval"
    )
    card = evaluation_home_queues(user=admin_user)["evaluation_runs"]
    assert card["count"] == 1 and card["url"] == reverse("evaluation:run-list")
    with django_capture_on_commit_callbacks(execute=True):
        services.evaluation_run_start(run_id=run.pk)
    assert evaluation_home_queues(user=admin_user)["evaluation_runs"]["count"] == 0
    client.force_login(admin_user)
    data = client.get(f"/api/evaluation/runs/{run.pk}/").json()
    assert data["status"] == "finished" and data["percent"] == 100 and data["answered"] == 8
