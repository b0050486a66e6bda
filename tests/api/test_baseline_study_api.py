"""Issue #23, Done when: a human-baseline study goes from item selection to the report with
the admin working through the API only (a token, never a session), while the participants
answer through their browser pages as they do (they hold no token). The report the admin
fetches over the API matches an independent computation from the stored answers.

The report is computed by a real Celery worker, as in production; the admin polls for it.
"""

import time
from collections import Counter

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from core.roles import Role
from humanbaseline.models import ItemResponse, Participation, StudyItem
from tests.humanbaseline.conftest import build_items

SEED = 20261012
N_BOOT = 300
PASSWORD = "a long passphrase for the study 9"
USERNAMES = ("p-001", "p-002", "p-003")


def api(name, *args):
    return reverse(f"baseline-api:{name}", args=args)


def sign_in(username: str) -> Client:
    """The participant signs in on the login page with the password the admin gave."""
    browser = Client()
    response = browser.post(reverse("login"), {"username": username, "password": PASSWORD})
    assert response.status_code == 302, response.content.decode()[:500]
    return browser


def take_the_study(browser: Client, username: str, study_id: int, wrong_at) -> None:
    """Consent, briefing, practice, start, one answer per item page, finalize: the pages'
    own posts. The participant answers the key except at the positions ``wrong_at`` names."""
    assert browser.get(reverse("baseline:study", args=[study_id]), follow=True).status_code == 200
    browser.post(
        reverse("baseline:consent", args=[study_id]), {"decision": "agree", "version": "v1"}
    )
    browser.post(reverse("baseline:briefing", args=[study_id]))
    # The study starts once its one practice item has an answer.
    browser.post(reverse("baseline:practice", args=[study_id, 1]), {"choice": "A"})
    browser.post(reverse("baseline:start", args=[study_id]))
    participation = Participation.objects.get(study_id=study_id, user__username=username)
    assert participation.status == Participation.Status.STARTED
    responses = ItemResponse.objects.filter(participation=participation).select_related(
        "study_item__item"
    )
    for response in responses.order_by("position"):
        key = response.study_item.item.correct_answer
        wrong = "ABCD"[("ABCD".index(key) + 1) % 4]
        saved = browser.post(
            reverse("baseline:item", args=[study_id, response.position]),
            {"choice": wrong if wrong_at(response.study_item.position) else key, "go": "next"},
        )
        assert saved.status_code == 302
    browser.post(reverse("baseline:finalize", args=[study_id]))
    participation.refresh_from_db()
    assert participation.status == Participation.Status.FINALIZED


def wait_for_report(admin, study_id: int) -> dict:
    for _ in range(300):
        body = admin.get(api("report", study_id)).json()
        if body["status"] in ("done", "failed"):
            return body
        time.sleep(0.2)
    raise AssertionError(f"the report is still {body['status']}")


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_baseline_study_from_selection_to_report_through_the_api(celery_worker_process, api_user):
    # 16 final items: 4 characters × 4 scenarios; scenario 4 is held out for practice.
    items = build_items(4, 4)
    _, admin = api_user(Role.ADMIN)

    # Sources from the references, then the ILP: three items per family.
    copied = admin.post(api("families"), {"from": "references"}, format="json")
    assert copied.status_code == 200 and copied.json()["count"] == 16
    counts = admin.get(api("sources")).json()["counts"]
    assert counts == {"gemini": 5, "claude": 5, "gpt": 6, "expert_rewrite": 0, "(none)": 0}
    quotas = {"quota_gemini": 3, "quota_claude": 3, "quota_gpt": 3, "quota_expert_rewrite": 0}
    selected = admin.post(
        api("selection-list"),
        {"seed": SEED, **quotas, "held_out_scenarios": ["SCN_SCHOOL_AGE_4"]},
        format="json",
    )
    assert selected.status_code == 201, selected.json()
    selection = selected.json()
    assert selection["feasible"] and selection["n_items"] == 9, selection["problems"]
    rows = admin.get(api("selection-items", selection["id"])).json()["results"]
    assert Counter(r["family"] for r in rows) == {"gemini": 3, "claude": 3, "gpt": 3}
    assert not [r for r in rows if r["question_id"].endswith("SCN_SCHOOL_AGE_4")]
    subset = sorted(r["question_id"] for r in rows)

    # Model predictions as a CSV: model-good misses every third item, model-weak most.
    keys = {i.question_id: i.correct_answer for i in items}
    shift = {k: "ABCD"[("ABCD".index(v) + 1) % 4] for k, v in keys.items()}
    good = {q: shift[q] if n % 3 == 0 else keys[q] for n, q in enumerate(subset)}
    weak = {q: keys[q] if n % 4 == 0 else shift[q] for n, q in enumerate(subset)}
    csv = "question_id,model-good,model-weak\n" + "".join(
        f"{q},{good[q]},{weak[q]}\n" for q in subset
    )
    uploaded = admin.post(
        api("predictions"),
        {"file": SimpleUploadedFile("predictions.csv", csv.encode(), "text/csv")},
        format="multipart",
    )
    assert uploaded.status_code == 200 and uploaded.json()["count"] == 18

    # The study, with one practice item from the held-out scenario.
    study_body = {
        "name": "Everyday decisions study",
        "selection": selection["id"],
        "consent_version": "v1",
        "consent_text": "You may stop at any time. Your answers are stored without your name.",
        "briefing": "You will read short life stories and choose how the person would respond.",
        "practice_count": 1,
        "retrieval_method": "bm25",
        "k": 30,
    }
    created = admin.post(api("study-list"), study_body, format="json")
    assert created.status_code == 201, created.json()
    study = created.json()
    assert (study["n_items"], study["n_practice"], study["status"]) == (9, 1, "open")
    again = admin.post(api("study-list"), study_body, format="json")
    assert again.status_code == 200 and again.json()["id"] == study["id"]
    study_id = study["id"]

    # The best model is fixed before anyone answers, against the study's ETag.
    tag = admin.get(api("study-detail", study_id))["ETag"]
    fixed = admin.post(
        api("best-model", study_id), {"model_label": "model-good"}, format="json", HTTP_IF_MATCH=tag
    )
    assert fixed.status_code == 201 and fixed.json()["model_label"] == "model-good"

    # Participants: the admin makes their accounts; they answer in their browsers.
    for username in USERNAMES:
        made = admin.post(
            api("participants", study_id),
            {"username": username, "password": PASSWORD},
            format="json",
        )
        assert made.status_code == 201, made.json()
        assert made.json()["status"] == "invited"
    mistakes = {
        "p-001": lambda position: position == 2,
        "p-002": lambda position: position in (2, 5),
        "p-003": lambda position: position in (4, 5, 7),
    }
    for username in USERNAMES:
        take_the_study(sign_in(username), username, study_id, mistakes[username])
        # A participant's browser session opens none of the administration.
        assert sign_in(username).get(api("participants", study_id)).status_code == 403

    progress = admin.get(api("participants", study_id), {"ordering": "username"}).json()
    assert [(p["username"], p["status"], p["n_answered"]) for p in progress["results"]] == [
        (u, "finalized", 9) for u in USERNAMES
    ]
    time_rows = admin.get(api("time", study_id), {"kind": "item"}).json()
    assert time_rows["count"] == 27

    # The report, computed by the worker; asking again changes nothing.
    report_body = {"seed": SEED, "n_boot": N_BOOT, "n_permutations": N_BOOT}
    asked = admin.post(api("report", study_id), report_body, format="json")
    assert asked.status_code == 201, asked.json()
    report = wait_for_report(admin, study_id)
    assert report["status"] == "done", report["error"]
    repeat = admin.post(api("report", study_id), report_body, format="json")
    assert repeat.status_code == 200 and repeat.json()["id"] == report["id"]

    # Independently, from the stored answers: items in study order, participants by name.
    study_items = list(
        StudyItem.objects.filter(study_id=study_id, is_practice=False)
        .select_related("item")
        .order_by("position")
    )
    answers = np.array(
        [
            [
                ItemResponse.objects.get(participation__user__username=u, study_item=si).choice
                for u in USERNAMES
            ]
            for si in study_items
        ]
    )
    key = np.array([si.item.correct_answer for si in study_items])
    correct = answers == key[:, None]
    per_person = correct.mean(axis=0)
    assert list(per_person) == pytest.approx([8 / 9, 7 / 9, 6 / 9])
    model_good = np.array(
        [good[si.item.question_id] == si.item.correct_answer for si in study_items]
    )

    r = report["results"]
    assert (r["n_items"], r["n_annotators"]) == (9, 3)
    assert r["mean_accuracy"]["estimate"] == pytest.approx(correct.mean())
    # Participants by their number in the study, never their username (issue #36).
    assert r["per_annotator"] == pytest.approx(dict(zip("123", per_person, strict=True)))
    # "At least three of the four", with three annotators: all of them.
    assert r["share_correct_by_min"] == pytest.approx(correct.all(axis=1).mean())
    votes = [Counter(row) for row in answers]
    wins = sum(
        v[k] > max((n for x, n in v.items() if x != k), default=0)
        for v, k in zip(votes, key, strict=True)
    )
    assert r["plurality"]["n_correct"] == wins
    table, _ = aggregate_raters(np.vectorize("ABCD".index)(answers), n_cat=4)
    assert r["fleiss_kappa"]["estimate"] == pytest.approx(fleiss_kappa(table, method="fleiss"))
    assert r["best_model"] == "model-good"
    assert r["models"]["model-good"]["accuracy"] == pytest.approx(model_good.mean())
    assert r["best_model_difference"]["estimate"] == pytest.approx(
        correct.mean() - model_good.mean()
    )
    # The CSV's rows, in the API: the same numbers.
    rows = {row["statistic"]: row for row in report["rows"]}
    assert rows["mean annotator accuracy"]["estimate"] == pytest.approx(correct.mean())
    assert rows["annotator 3"]["estimate"] == pytest.approx(6 / 9)
    assert not any(name in str(report) for name in USERNAMES)
    assert rows["model-good accuracy"]["estimate"] == pytest.approx(model_good.mean())

    # Closing the study: participants can no longer join; the ETag moved.
    closed = admin.post(
        api("study-status", study_id), {"status": "closed"}, format="json", HTTP_IF_MATCH=tag
    )
    assert closed.status_code == 412
    fresh = admin.get(api("study-detail", study_id))["ETag"]
    closed = admin.post(
        api("study-status", study_id), {"status": "closed"}, format="json", HTTP_IF_MATCH=fresh
    )
    assert closed.status_code == 200 and closed.json()["status"] == "closed"
    refused = admin.post(
        api("participants", study_id), {"username": "late", "password": PASSWORD}, format="json"
    )
    assert refused.status_code == 400
    assert refused.json()["detail"] == [
        "The study 'Everyday decisions study' is closed to new participants."
    ]
