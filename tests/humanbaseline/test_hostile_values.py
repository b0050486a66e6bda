"""Issue #24: out-of-range positions and values answer 404/400, never a 500, and time on
task is bounded by the wall-clock time that passed."""

import pytest
from django.urls import reverse

from humanbaseline import services
from humanbaseline.models import (
    BaselineError,
    BaselineNotFound,
    BaselineReport,
    ItemResponse,
    Participation,
    PracticeAnswer,
    SubsetSelection,
    TimeReport,
)
from humanbaseline.services.participation import MAX_SECONDS_PER_REPORT

from .conftest import elapse, enrol

OUT_OF_RANGE = [0, 999, 32768]


def answers(p):
    return list(
        ItemResponse.objects.filter(participation=p)
        .order_by("position")
        .values_list("position", "choice", "seconds", "revisions")
    )


@pytest.mark.parametrize("position", OUT_OF_RANGE)
def test_an_answer_to_an_item_that_is_not_yours_is_a_404(small_study, client, position):
    study, _, _ = small_study
    p = enrol(study, "p1")
    client.force_login(p.user)
    before = answers(p)
    url = reverse("baseline:item", args=[study.pk, position])
    assert client.post(url, {"choice": "A"}).status_code == 404
    assert client.post(url, {"choice": "A"}, HTTP_HX_REQUEST="true").status_code == 404
    assert client.get(url).status_code == 404
    time_url = reverse("baseline:item-time", args=[study.pk, position])
    assert client.post(time_url, {"seconds": "5", "report_id": "r-1"}).status_code == 404
    assert answers(p) == before
    with pytest.raises(BaselineNotFound, match=f"no item {position} in your study"):
        services.answer_save(participation=p, position=position, choice="A")
    with pytest.raises(BaselineNotFound):
        services.time_record(participation=p, position=position, seconds=5)


@pytest.mark.parametrize("position", OUT_OF_RANGE)
def test_a_practice_answer_to_no_practice_item_is_a_404(small_study, client, position):
    study, _, _ = small_study
    p = enrol(study, "p2", start=False)
    client.force_login(p.user)
    url = reverse("baseline:practice", args=[study.pk, position])
    assert client.post(url, {"choice": "A"}).status_code == 404
    assert not PracticeAnswer.objects.filter(participation=p).exists()
    with pytest.raises(BaselineNotFound, match=f"no practice item {position}"):
        services.practice_answer(participation=p, position=position, choice="A")


def test_a_bad_letter_is_a_message_and_changes_nothing(small_study, client):
    study, _, _ = small_study
    p = enrol(study, "p3")
    client.force_login(p.user)
    url = reverse("baseline:item", args=[study.pk, 1])
    response = client.post(url, {"choice": "Z"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "Choose one of the options A, B, C or D." in response.content.decode()
    response = client.post(url, {"choice": "Z"}, follow=True)
    assert "Choose one of the options A, B, C or D." in response.content.decode()
    assert ItemResponse.objects.get(participation=p, position=1).choice == ""


@pytest.mark.parametrize("seconds", ["inf", "-inf", "nan", "1e400", "-5", "ten"])
def test_a_time_that_is_not_a_finite_number_of_seconds_is_a_400(small_study, client, seconds):
    study, _, _ = small_study
    p = enrol(study, "p4")
    elapse(p, 600)
    client.force_login(p.user)
    before = answers(p)
    response = client.post(
        reverse("baseline:item-time", args=[study.pk, 2]), {"seconds": seconds, "report_id": "r"}
    )
    assert response.status_code == 400
    assert "number of seconds" in response.content.decode()
    # An answer carrying such a time is refused as well, with the message shown.
    response = client.post(
        reverse("baseline:item", args=[study.pk, 2]),
        {"choice": "B", "seconds": seconds, "report_id": "s"},
        HTTP_HX_REQUEST="true",
    )
    assert "number of seconds" in response.content.decode()
    assert answers(p) == before
    assert not TimeReport.objects.filter(response__participation=p).exists()


def test_two_reports_within_a_second_add_at_most_the_time_that_passed(small_study, client):
    study, _, _ = small_study
    p = enrol(study, "attacker")
    elapse(p, 100)  # the participant has been on the item for 100 s
    client.force_login(p.user)
    url = reverse("baseline:item-time", args=[study.pk, 1])
    assert client.post(url, {"seconds": "1000000000000", "report_id": "a-1"}).status_code == 204
    assert client.post(url, {"seconds": "inf", "report_id": "a-2"}).status_code == 400
    assert client.post(url, {"seconds": "1000000000000", "report_id": "a-3"}).status_code == 204
    total = ItemResponse.objects.get(participation=p, position=1).seconds
    assert 100 <= total < 106  # the 100 s that passed, and a few seconds of latency slack
    # Reports on other items share the same clock.
    other = reverse("baseline:item-time", args=[study.pk, 2])
    client.post(other, {"seconds": "1800", "report_id": "a-4"})
    spent = sum(ItemResponse.objects.filter(participation=p).values_list("seconds", flat=True))
    assert spent < 106
    # The report received again is still counted once.
    client.post(url, {"seconds": "1000000000000", "report_id": "a-1"})
    assert sum(ItemResponse.objects.filter(participation=p).values_list("seconds", flat=True)) == (
        spent
    )


def test_honest_reports_are_counted_as_sent_and_one_report_is_capped(small_study):
    study, _, _ = small_study
    p = enrol(study, "honest")
    elapse(p, 45)
    services.time_record(participation=p, position=1, seconds="40.5", report_id="v-1")
    elapse(p, 20)
    services.answer_save(participation=p, position=2, choice="C", seconds=19.5, report_id="v-2")
    elapse(p, 7200)
    services.time_record(participation=p, position=3, seconds=5000, report_id="v-3")
    seconds = dict(ItemResponse.objects.filter(participation=p).values_list("position", "seconds"))
    assert (seconds[1], seconds[2], seconds[3]) == (40.5, 19.5, MAX_SECONDS_PER_REPORT)
    assert Participation.objects.get(pk=p.pk).time_counted_until is not None


def test_a_report_sent_right_after_the_previous_one_arrived_keeps_its_latency(small_study):
    """The page measures from when it sent a report; the server counts from when that
    report arrived. A second or two of latency is not lost."""
    study, _, _ = small_study
    p = enrol(study, "latency")
    elapse(p, 30)
    services.time_record(participation=p, position=1, seconds=28, report_id="l-1")
    services.time_record(participation=p, position=1, seconds=1.5, report_id="l-2")
    assert ItemResponse.objects.get(participation=p, position=1).seconds == 29.5


def test_a_negative_seed_is_a_form_error_on_the_admin_pages(small_study, client, admin_user):
    study, _, _ = small_study
    client.force_login(admin_user)
    selections = SubsetSelection.objects.count()
    for seed in ("-1", str(2**63)):
        response = client.post(reverse("baseline:selection-create"), {"seed": seed})
        assert response.status_code == 200
        page = response.content.decode()
        assert "Ensure this value is" in page
    assert SubsetSelection.objects.count() == selections
    for field in ("seed", "n_boot", "n_permutations"):
        data = {"seed": "1", "n_boot": "10", "n_permutations": "10", field: "-1"}
        response = client.post(reverse("baseline:report", args=[study.pk]), data)
        assert response.status_code == 200
        assert "Ensure this value is greater than or equal to 0." in response.content.decode()
    assert not BaselineReport.objects.exists()
    with pytest.raises(BaselineError, match="seed must be a whole number from 0"):
        services.subset_select(user=admin_user, seed=-1)
    with pytest.raises(BaselineError, match="seed must be a whole number from 0"):
        services.report_request(study=study, user=admin_user, seed=-1, n_boot=1, n_permutations=1)


def test_a_time_report_before_the_start_or_after_finalizing_is_a_400(small_study, client):
    study, subset, _ = small_study
    waiting = enrol(study, "not-started", start=False)
    client.force_login(waiting.user)
    url = reverse("baseline:item-time", args=[study.pk, 1])
    response = client.post(url, {"seconds": "5", "report_id": "w-1"})
    assert response.status_code == 400 and "not started" in response.content.decode()
    p = enrol(study, "finished")
    for position in range(1, len(subset) + 1):
        services.answer_save(participation=p, position=position, choice="A")
    services.baseline_finalize(participation=p)
    before = answers(p)
    client.force_login(p.user)
    elapse(p, 60)
    response = client.post(url, {"seconds": "5", "report_id": "f-1"})
    assert response.status_code == 400 and "finalized" in response.content.decode()
    assert answers(p) == before
