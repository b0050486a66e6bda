"""The human baseline's administration over the API (issue #23): admins only, the pages'
forms and services with their messages, lists that page, filter and order, ETags on the
study, idempotent submits. Token-only clients throughout, as a script."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from core.roles import Role
from humanbaseline import services
from humanbaseline.models import (
    BaselineStudy,
    BestModelChoice,
    ImportedPrediction,
    ItemResponse,
    ItemSourceFamily,
    Participation,
    SubsetSelection,
)
from tests.humanbaseline.conftest import build_items, elapse, enrol, make_study

from .conftest import token_client

pytestmark = pytest.mark.django_db

QUOTAS = {"quota_gemini": 2, "quota_claude": 2, "quota_gpt": 2, "quota_expert_rewrite": 0}
PASSWORD = "a long passphrase for the study 9"


def api(name, *args):
    return reverse(f"baseline-api:{name}", args=args)


@pytest.fixture
def admin(api_user):
    return api_user(Role.ADMIN)[1]


@pytest.fixture
def study():
    study, _, _ = make_study(n_items=6, n_practice=2)
    return study


def every_url(study, selection_id):
    return [
        api("sources"),
        api("families"),
        api("predictions"),
        api("selection-list"),
        api("selection-detail", selection_id),
        api("selection-items", selection_id),
        api("study-list"),
        api("study-detail", study.pk),
        api("study-status", study.pk),
        api("study-items", study.pk),
        api("participants", study.pk),
        api("time", study.pk),
        api("best-model", study.pk),
        api("report", study.pk),
    ]


def finish(participation):
    for response in ItemResponse.objects.filter(participation=participation).select_related(
        "study_item__item"
    ):
        response.choice = response.study_item.item.correct_answer
        response.save(update_fields=["choice"])
    return services.baseline_finalize(participation=participation)


def test_only_admins_may_call_it_and_a_participant_gets_403_everywhere(study, api_user, admin):
    urls = every_url(study, study.selection_id)
    for url in urls:
        code = admin.get(url).status_code
        assert code in (200, 404, 405), (url, code)  # no report yet: 404; status: POST only
    others = [r for r in Role if r is not Role.ADMIN]
    participant = enrol(study, "in-the-study").user
    callers = [api_user(role)[1] for role in others] + [token_client(participant)]
    browser = Client()
    browser.force_login(participant)
    for client in [*callers, browser]:
        for url in urls:
            assert client.get(url).status_code == 403, url
            assert client.post(url, {}, format="json").status_code == 403, url
    assert Client().get(api("study-list")).status_code == 403  # anonymous


def test_missing_records_are_404(admin):
    assert admin.get(api("study-detail", 999999)).json() == {"detail": "No such study."}
    assert admin.get(api("selection-detail", 999999)).status_code == 404
    assert admin.get(api("participants", 999999)).status_code == 404
    assert admin.post(api("report", 999999), {}, format="json").status_code == 404


def test_a_selection_runs_the_form_and_the_ilp_with_the_pages_messages(admin, role_groups):
    build_items(4, 3)
    half = admin.post(api("selection-list"), {"seed": 1, **QUOTAS, "cell_min": 1}, format="json")
    assert half.status_code == 400
    assert half.json()["fields"] == {  # the half left blank is named
        "cell_max": [
            "Set both the minimum and the maximum of 'items per character × life-stage "
            "cell', or neither."
        ]
    }
    zero = {k: 0 for k in QUOTAS}
    body = admin.post(api("selection-list"), {"seed": 1, **zero}, format="json").json()
    assert body["detail"] == ["Every quota is 0: give at least one source a quota."]
    unknown = admin.post(
        api("selection-list"),
        {"seed": 1, **QUOTAS, "held_out_scenarios": ["SCN_NOPE"]},
        format="json",
    )
    assert unknown.status_code == 400
    assert unknown.json()["detail"] == [
        "No scenario 'SCN_NOPE'; name held-out scenarios by their scenario_id."
    ]
    negative = admin.post(api("selection-list"), {"seed": -1, **QUOTAS}, format="json")
    assert negative.json()["fields"] == {
        "seed": ["Ensure this value is greater than or equal to 0."]
    }
    assert admin.post(api("selection-list"), [1, 2], format="json").status_code == 400
    assert not SubsetSelection.objects.exists()

    # Too large: recorded, infeasible, with the largest feasible study proposed.
    large = admin.post(
        api("selection-list"), {"seed": 11, **QUOTAS, "quota_gpt": 50}, format="json"
    )
    assert large.status_code == 201
    assert not large.json()["feasible"] and large.json()["proposal"]["total"] > 0
    assert (
        "Constraint 'items per answer-key source': source gpt has only 4 eligible items; "
        "its quota is 50." in large.json()["problems"]
    )
    made = admin.post(api("selection-list"), {"seed": 3, **QUOTAS}, format="multipart")
    assert made.status_code == 201 and made.json()["feasible"] and made.json()["n_items"] == 6
    detail = admin.get(api("selection-detail", made.json()["id"])).json()
    assert detail["tables"]["overall"]["n"] == 6
    assert set(detail["tables"]["sources"]) == {"gemini", "claude", "gpt"}

    listed = admin.get(api("selection-list"), {"feasible": "false"}).json()
    assert [s["id"] for s in listed["results"]] == [large.json()["id"]]
    by_seed = admin.get(api("selection-list"), {"ordering": "seed"}).json()["results"]
    assert [s["seed"] for s in by_seed] == [3, 11]
    bad = admin.get(api("selection-list"), {"ordering": "problems"})
    assert bad.status_code == 400 and "ordering" in bad.json()
    items = admin.get(api("selection-items", made.json()["id"]), {"family": "gpt"}).json()
    assert items["count"] == 2 and {i["family"] for i in items["results"]} == {"gpt"}


def test_sources_by_csv_reject_a_bad_file_whole(admin, role_groups):
    items = build_items(4, 3)
    bad = "question_id,family\n" + f"{items[0].question_id},claude\nQ_NONE,gpt\n"
    response = admin.post(
        api("families"),
        {"file": SimpleUploadedFile("s.csv", bad.encode(), "text/csv")},
        format="multipart",
    )
    assert response.status_code == 400
    assert response.json()["detail"] == ["Line 3: no item with question_id 'Q_NONE'."]
    assert not ItemSourceFamily.objects.exists()
    missing = admin.post(api("families"), {}, format="multipart")
    assert missing.status_code == 400 and missing.json()["fields"]["file"] == [
        "This field is required."
    ]
    good = f"question_id,family\n{items[0].question_id},Expert rewrite\n"
    response = admin.post(
        api("families"),
        {"file": SimpleUploadedFile("s.csv", good.encode(), "text/csv")},
        format="multipart",
    )
    assert response.json() == {"count": 1, "message": "1 item families set from s.csv."}
    listed = admin.get(api("families"), {"family": "expert_rewrite"}).json()
    assert [r["question_id"] for r in listed["results"]] == [items[0].question_id]
    assert admin.get(api("sources")).json()["counts"]["expert_rewrite"] == 1


def test_predictions_upload_and_list(admin, role_groups):
    items = build_items(4, 3)
    bad = f"question_id,m1\n{items[0].question_id},E\n"
    response = admin.post(
        api("predictions"),
        {"file": SimpleUploadedFile("p.csv", bad.encode(), "text/csv")},
        format="multipart",
    )
    assert response.json()["detail"] == ["Line 2, column 'm1': 'E' is not A, B, C or D."]
    good = f"question_id,m1,m2\n{items[0].question_id},A,\n{items[1].question_id},b,C\n"
    response = admin.post(
        api("predictions"),
        {"file": SimpleUploadedFile("p.csv", good.encode(), "text/csv")},
        format="multipart",
    )
    assert response.status_code == 200 and response.json()["count"] == 4
    assert ImportedPrediction.objects.count() == 4
    m2 = admin.get(api("predictions"), {"model_label": "m2", "ordering": "question_id"}).json()
    assert [(r["question_id"], r["letter"]) for r in m2["results"]] == [
        (items[0].question_id, ""),
        (items[1].question_id, "C"),
    ]


def test_a_study_is_created_with_the_forms_and_services_checks(admin, role_groups, api_user):
    items = build_items(4, 4)
    made = admin.post(
        api("selection-list"),
        {"seed": 3, **QUOTAS, "held_out_scenarios": "SCN_SCHOOL_AGE_4"},
        format="json",
    )
    selection = made.json()
    in_subset = admin.get(api("selection-items", selection["id"])).json()["results"][0]
    body = {
        "name": "S",
        "selection": selection["id"],
        "consent_version": "v1",
        "consent_text": "You may stop at any time.",
        "briefing": "Read and choose.",
        "retrieval_method": "bm25",
        "k": 30,
    }
    missing = admin.post(api("study-list"), {**body, "consent_text": ""}, format="json")
    assert missing.status_code == 400
    assert missing.json()["fields"] == {"consent_text": ["This field is required."]}
    in_the_subset = admin.post(
        api("study-list"),
        {**body, "practice_question_ids": [in_subset["question_id"]]},
        format="json",
    )
    assert in_the_subset.status_code == 400
    assert in_the_subset.json()["detail"] == [
        f"Practice item {in_subset['question_id']!r} is in the subset; practice items must not be."
    ]
    none = admin.post(api("study-list"), body, format="json").json()
    assert none["detail"] == [
        "Name at least one practice item (question_id), or give a number of practice "
        "items to pick from scenarios outside the subset."
    ]
    assert not BaselineStudy.objects.exists()

    practice = [i.question_id for i in items if i.scenario.scenario_id == "SCN_SCHOOL_AGE_4"]
    created = admin.post(
        api("study-list"), {**body, "practice_question_ids": practice[:2]}, format="json"
    )
    assert created.status_code == 201
    study = created.json()
    assert (study["n_items"], study["n_practice"]) == (6, 2)
    assert study["invitation_url"].startswith("http://testserver/baseline/join/")
    assert study["best_model"] is None and study["report_status"] is None
    same = admin.post(
        api("study-list"), {**body, "practice_question_ids": practice[:2]}, format="json"
    )
    assert same.status_code == 200 and same.json()["id"] == study["id"]
    assert BaselineStudy.objects.count() == 1
    practice_rows = admin.get(api("study-items", study["id"]), {"is_practice": "true"}).json()
    assert sorted(r["question_id"] for r in practice_rows["results"]) == sorted(practice[:2])
    listed = admin.get(api("study-list"), {"status": "open"}).json()["results"]
    assert [(s["id"], s["n_participants"]) for s in listed] == [(study["id"], 0)]


def test_the_status_write_honours_if_match_and_is_idempotent(admin, study):
    tag = admin.get(api("study-detail", study.pk))["ETag"]
    bad = admin.post(api("study-status", study.pk), {"status": "paused"}, format="json")
    assert bad.status_code == 400 and "status" in bad.json()
    same = admin.post(
        api("study-status", study.pk), {"status": "open"}, format="json", HTTP_IF_MATCH=tag
    )
    assert same.status_code == 200 and same["ETag"] == tag
    closed = admin.post(
        api("study-status", study.pk), {"status": "closed"}, format="json", HTTP_IF_MATCH=tag
    )
    assert closed.status_code == 200 and closed["ETag"] != tag
    stale = admin.post(
        api("study-status", study.pk), {"status": "open"}, format="json", HTTP_IF_MATCH=tag
    )
    assert stale.status_code == 412
    study.refresh_from_db()
    assert study.status == "closed"
    assert admin.get(api("study-list"), {"status": "closed"}).json()["count"] == 1


def test_participants_are_made_once_and_listed_with_progress(admin, study):
    url = api("participants", study.pk)
    weak = admin.post(url, {"username": "p1", "password": "123"}, format="json")
    assert weak.status_code == 400 and "This password is too short" in weak.json()["detail"][0]
    no_password = admin.post(url, {"username": "p1"}, format="json")
    assert no_password.json()["fields"] == {"password": ["This field is required."]}
    first = admin.post(url, {"username": "p1", "password": PASSWORD}, format="json")
    assert first.status_code == 201
    again = admin.post(url, {"username": "p1", "password": PASSWORD}, format="json")
    assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
    other = admin.post(url, {"username": "p1", "password": PASSWORD + "x"}, format="json")
    assert other.status_code == 400
    assert other.json()["detail"] == ["The username 'p1' is taken; choose another."]
    assert Participation.objects.filter(study=study).count() == 1

    done = finish(enrol(study, "p2"))
    enrol(study, "p3", start=False)
    rows = admin.get(url, {"ordering": "-username"}).json()["results"]
    assert [(r["username"], r["status"], r["n_answered"], r["n_items"]) for r in rows] == [
        ("p3", "consented", 0, 6),
        ("p2", "finalized", 6, 6),
        ("p1", "invited", 0, 6),
    ]
    assert rows[1]["n_sessions"] == 1 and rows[1]["finalized_at"] is not None
    finalized = admin.get(url, {"status": "finalized"}).json()
    assert [r["id"] for r in finalized["results"]] == [done.pk]
    paged = admin.get(url, {"page_size": 2, "ordering": "username"}).json()
    assert paged["count"] == 3 and len(paged["results"]) == 2 and paged["next"]
    assert admin.get(url, {"status": "lost"}).status_code == 400


def test_time_on_task_has_the_csv_columns(admin, study):
    p = enrol(study, "timer")
    elapse(p, 60)
    services.time_record(participation=p, position=2, seconds="40.5", report_id="r1")
    rows = admin.get(api("time", study.pk), {"participant": "timer", "kind": "item"}).json()
    assert rows["count"] == 6
    second = next(r for r in rows["results"] if r["position"] == 2)
    assert second["seconds"] == 40.5 and second["question_id"].startswith("Q_")
    assert set(second) == {
        "kind",
        "participant",
        "position",
        "question_id",
        "start",
        "end",
        "seconds",
    }
    longest = admin.get(api("time", study.pk), {"ordering": "-seconds"}).json()["results"][0]
    assert longest["seconds"] == 40.5


def test_the_best_model_needs_a_reason_after_answers_and_a_repeat_adds_nothing(admin, study):
    url = api("best-model", study.pk)
    both = admin.post(url, {"model_label": "m", "runs": [1]}, format="json")
    assert both.status_code == 400 and "runs" in both.json()["fields"]  # no such run
    neither = admin.post(url, {}, format="json")
    assert neither.json()["detail"] == ["Choose at least one evaluation run or name the model."]
    first = admin.post(url, {"model_label": "model-a"}, format="json")
    assert first.status_code == 201
    repeat = admin.post(url, {"model_label": "model-a"}, format="json")
    assert repeat.status_code == 200 and repeat.json()["id"] == first.json()["id"]
    finish(enrol(study, "answered"))
    tag = admin.get(api("study-detail", study.pk))["ETag"]
    no_reason = admin.post(url, {"model_label": "model-b"}, format="json", HTTP_IF_MATCH=tag)
    assert no_reason.json()["detail"] == [
        "Once participants have answered, the best model changes only with a reason: "
        "give one (the report shows it)."
    ]
    changed = admin.post(
        url, {"model_label": "model-b", "reason": "typo"}, format="json", HTTP_IF_MATCH=tag
    )
    assert changed.status_code == 201 and changed.json()["after_answers"] is True
    stale = admin.post(
        url, {"model_label": "model-c", "reason": "x"}, format="json", HTTP_IF_MATCH=tag
    )
    assert stale.status_code == 412
    history = admin.get(url).json()
    assert [c["model_label"] for c in history["results"]] == ["model-a", "model-b"]
    assert BestModelChoice.objects.count() == 2
    assert admin.get(api("study-detail", study.pk)).json()["best_model"]["model_label"] == "model-b"


def test_the_report_needs_two_finalized_and_is_not_asked_twice(
    admin, study, django_capture_on_commit_callbacks
):
    from heartbench_site.celery import app

    url = api("report", study.pk)
    assert admin.get(url).json() == {"detail": "No report has been asked for yet."}
    finish(enrol(study, "one"))
    params = {"seed": 7, "n_boot": 50, "n_permutations": 50}
    refused = admin.post(url, params, format="json")
    assert refused.status_code == 400
    assert refused.json()["detail"] == [
        "1 participant has finalized; the report needs at least two."
    ]
    negative = admin.post(url, {**params, "n_boot": -1}, format="json")
    assert "n_boot" in negative.json()["fields"]
    finish(enrol(study, "two"))
    app.conf.task_always_eager = True
    with django_capture_on_commit_callbacks(execute=True):
        asked = admin.post(url, params, format="json")
    assert asked.status_code == 201
    report = admin.get(url).json()
    assert report["status"] == "done" and report["results"]["n_annotators"] == 2
    assert report["rows"][0]["statistic"] == "mean annotator accuracy"
    assert report["rows"][0]["estimate"] == pytest.approx(1.0)
    again = admin.post(url, params, format="json")
    assert again.status_code == 200 and again.json()["id"] == report["id"]
    other = admin.post(url, {**params, "seed": 8}, format="json")
    assert other.status_code == 201
    assert admin.get(api("study-detail", study.pk)).json()["report_status"] == "pending"
