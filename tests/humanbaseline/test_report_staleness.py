"""The baseline report says fresh or stale as the stored statistics reports do (issue
#34): a participant who finalizes after the report was computed makes it stale (the old
figures still shown); the next report, computed by a real Celery worker, is fresh and
counts them, its mean accuracy equal to the raw answer matrix's."""

import time

import numpy as np
import pytest
from django.urls import reverse

from humanbaseline.models import BaselineReport, ItemResponse, StudyItem

from .conftest import enrol, make_study
from .test_report import SEED, answer_all

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def state(body: str) -> str:
    after = body.split('data-testid="stored-report-status"', 1)[1]
    return after.split('data-state="', 1)[1].split('"', 1)[0]


def request_and_wait(client, study) -> BaselineReport:
    response = client.post(
        reverse("baseline:report", args=[study.pk]),
        {"seed": SEED, "n_boot": 200, "n_permutations": 200},
    )
    assert response.status_code == 302
    report = BaselineReport.objects.filter(study=study).order_by("-pk").first()
    deadline = time.monotonic() + 120
    while report.status not in ("done", "failed") and time.monotonic() < deadline:
        time.sleep(0.2)
        report.refresh_from_db()
    assert report.status == "done", report.error
    return report


def mean_accuracy(study, participants) -> float:
    correct = [
        r.choice == r.study_item.item.correct_answer
        for r in ItemResponse.objects.filter(
            participation__in=participants, study_item__is_practice=False
        ).select_related("study_item__item")
    ]
    return float(np.mean(correct))


def test_a_new_finalized_participant_marks_the_report_stale_until_the_next(
    celery_worker_factory, role_groups, admin_user, client
):
    study, _, _ = make_study(n_items=12, n_characters=4)
    keys = {
        si.pk: si.item.correct_answer
        for si in StudyItem.objects.filter(study=study, is_practice=False).select_related("item")
    }
    rng = np.random.default_rng(3)
    participants = [enrol(study, f"s{n}") for n in range(3)]
    for p in participants:
        answer_all(p, keys, rng, 0.8)
    client.force_login(admin_user)
    page = reverse("baseline:report", args=[study.pk])
    assert "No report yet." in client.get(page).content.decode()
    assert not BaselineReport.objects.exists()  # a GET computes nothing
    celery_worker_factory()

    first = request_and_wait(client, study)
    body = client.get(page).content.decode()
    assert state(body) == "fresh" and "12 items × 3 finalized participants" in body
    assert 'data-testid="report-stale-hint"' not in body
    assert first.results["mean_accuracy"]["estimate"] == pytest.approx(
        mean_accuracy(study, participants)
    )

    # A fourth participant finalizes: the report is stale, its figures still shown.
    participants.append(enrol(study, "s3"))
    answer_all(participants[-1], keys, rng, 0.5)
    body = client.get(page).content.decode()
    assert state(body) == "stale" and "older than their inputs" in body
    assert "12 items × 3 finalized participants" in body
    assert 'data-testid="report-stale-hint"' in body

    second = request_and_wait(client, study)
    body = client.get(page).content.decode()
    assert state(body) == "fresh" and "12 items × 4 finalized participants" in body
    assert second.results["n_annotators"] == 4
    assert second.results["mean_accuracy"]["estimate"] == pytest.approx(
        mean_accuracy(study, participants)
    )
    # The CSV reads the same stored report as the page.
    csv = client.get(reverse("baseline:report-csv", args=[study.pk])).content.decode()
    mean = second.results["mean_accuracy"]["estimate"]
    assert f"humans,mean annotator accuracy,{mean:.6f}," in csv
    # The fourth participant, by number: a report names no one (issue #36).
    assert "annotator 4," in csv and "annotator s3" not in csv
