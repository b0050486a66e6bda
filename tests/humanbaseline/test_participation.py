"""The participant's way through a study: consent (versioned, declining ends it),
briefing, practice, a seeded order per participant, revisable answers until finalize,
and time on task per item and per session."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from evaluation.models import RetrievalSet, RetrievedMemory
from evaluation.retrieval import memory_block_entries
from humanbaseline import services
from humanbaseline.models import (
    AnswerEvent,
    BaselineError,
    ItemResponse,
    Participation,
    StudyItem,
    WorkSession,
)

from .conftest import elapse, enrol, make_study

pytestmark = pytest.mark.django_db


def order_of(p):
    return list(
        ItemResponse.objects.filter(participation=p)
        .order_by("position")
        .values_list("study_item__item__question_id", flat=True)
    )


def test_two_participants_get_different_reproducible_orders(role_groups):
    study, subset, _ = make_study(n_items=20)
    first, second = enrol(study, "p1"), enrol(study, "p2")
    assert first.order_seed != second.order_seed
    assert order_of(first) != order_of(second)
    assert sorted(order_of(first)) == sorted(i.question_id for i in subset)
    # The recorded seed rebuilds the recorded order.
    by_position = list(
        StudyItem.objects.filter(study=study, is_practice=False)
        .order_by("position")
        .values_list("item__question_id", flat=True)
    )
    for p in (first, second):
        rebuilt = [
            by_position[i] for i in services.participant_order(order_seed=p.order_seed, n_items=20)
        ]
        assert rebuilt == order_of(p)
    # Starting again changes nothing.
    services.baseline_session_start(participation=first)
    assert ItemResponse.objects.filter(participation=first).count() == 20


def test_consent_is_recorded_with_version_and_time_and_declining_ends_participation(
    small_study, client
):
    study, _, _ = small_study
    agreeing = enrol(study, "agrees", consent=False)
    before = timezone.now()
    agreeing = services.consent_decide(participation=agreeing, agree=True, version="v1")
    assert agreeing.status == Participation.Status.CONSENTED
    assert agreeing.consent_version == "v1" and agreeing.consent_decided_at >= before

    declining = enrol(study, "declines", consent=False)
    client.force_login(declining.user)
    response = client.post(
        reverse("baseline:consent", args=[study.pk]), {"decision": "decline", "version": "v1"}
    )
    declining.refresh_from_db()
    assert declining.status == Participation.Status.DECLINED
    assert declining.consent_decided_at is not None
    for name, args in (
        ("baseline:briefing", [study.pk]),
        ("baseline:practice", [study.pk, 1]),
        ("baseline:item", [study.pk, 1]),
        ("baseline:finalize", [study.pk]),
    ):
        response = client.get(reverse(name, args=args), follow=True)
        assert "Your participation has ended" in response.content.decode(), name
    with pytest.raises(BaselineError, match="consent"):
        services.baseline_session_start(participation=declining)
    with pytest.raises(BaselineError, match="already been recorded"):
        services.consent_decide(participation=declining, agree=True, version="v1")


def test_consent_to_an_outdated_text_version_is_refused(small_study):
    study, _, _ = small_study
    p = enrol(study, "late", consent=False)
    with pytest.raises(BaselineError, match="consent text changed"):
        services.consent_decide(participation=p, agree=True, version="v0")


def test_practice_items_give_feedback_and_study_items_never_do(small_study, client):
    study, subset, practice = small_study
    p = enrol(study, "learner", start=False)
    client.force_login(p.user)
    url = reverse("baseline:practice", args=[study.pk, 1])
    before = client.get(url).content.decode()
    assert "The expected answer is" not in before and "Start the study" not in before
    # "Check my answer" through htmx: the answer's part of the page comes back with the
    # expected answer and its reason in place (the key is allowed on practice items).
    fragment = client.post(url, {"choice": "A"}, HTTP_HX_REQUEST="true").content.decode()
    assert 'id="practice-answer"' in fragment and "<html" not in fragment
    assert f"The expected answer is {practice[0].correct_answer}" in fragment
    reason = StudyItem.objects.get(study=study, is_practice=True, position=1).practice_reason
    assert reason and escape(reason) in fragment
    # One practice item of two answered: the study cannot start yet.
    assert "Start the study" not in fragment and "practice item 2 still has no answer" in fragment
    with pytest.raises(BaselineError, match="practice item 2"):
        services.baseline_session_start(participation=p)
    # A plain post (no JavaScript) lands on the page with the same feedback.
    client.post(reverse("baseline:practice", args=[study.pk, 2]), {"choice": "B"})
    body = client.get(reverse("baseline:practice", args=[study.pk, 2])).content.decode()
    assert f"The expected answer is {practice[1].correct_answer}" in body
    assert "Start the study" in body
    services.baseline_session_start(participation=p)
    response = ItemResponse.objects.filter(participation=p).order_by("position").first()
    key = response.study_item.item.correct_answer
    item_url = reverse("baseline:item", args=[study.pk, response.position])
    fragment = client.post(item_url, {"choice": key}, HTTP_HX_REQUEST="true").content.decode()
    page = client.get(item_url).content.decode()
    for body in (fragment, page):
        assert "expected answer" not in body and "correct" not in body.lower()
        assert "Why " not in body


def test_returning_lands_on_the_first_unanswered_practice_item_then_item(small_study, client):
    study, _, _ = small_study
    p = enrol(study, "returner", start=False)
    client.force_login(p.user)
    start = reverse("baseline:study", args=[study.pk])
    assert client.get(start).url == reverse("baseline:practice", args=[study.pk, 1])
    services.practice_answer(participation=p, position=1, choice="A")
    assert client.get(start).url == reverse("baseline:practice", args=[study.pk, 2])
    services.practice_answer(participation=p, position=2, choice="A")
    # Every practice item answered: back to the last, where the study starts.
    assert client.get(start).url == reverse("baseline:practice", args=[study.pk, 2])
    p = services.baseline_session_start(participation=p)
    for position in (1, 2, 4):
        services.answer_save(participation=p, position=position, choice="C")
    assert client.get(start).url == reverse("baseline:item", args=[study.pk, 3])


def test_practice_items_must_not_be_in_the_subset(small_study, admin_user):
    study, subset, _ = small_study
    with pytest.raises(BaselineError, match="is in the subset"):
        services.study_create(
            user=admin_user,
            name="x",
            selection=study.selection,
            consent_version="v1",
            consent_text="t",
            briefing="b",
            practice_question_ids=[subset[0].question_id],
        )


def test_answers_are_revisable_until_finalize_and_history_is_kept(small_study):
    study, subset, _ = small_study
    p = enrol(study, "reviser")
    elapse(p, 60)
    services.answer_save(participation=p, position=1, choice="A", seconds=12.5)
    elapse(p, 60)
    services.answer_save(participation=p, position=1, choice="C", seconds=3)
    response = ItemResponse.objects.get(participation=p, position=1)
    assert (response.choice, response.revisions, response.seconds) == ("C", 1, 15.5)
    assert list(AnswerEvent.objects.filter(response=response).values_list("choice", flat=True)) == [
        "A",
        "C",
    ]
    with pytest.raises(BaselineError, match=r"5 items have no answer yet: 2, 3, 4, 5, 6"):
        services.baseline_finalize(participation=p)
    for position in range(2, len(subset) + 1):
        services.answer_save(participation=p, position=position, choice="B")
    services.baseline_finalize(participation=p)
    with pytest.raises(BaselineError, match="finalized"):
        services.answer_save(participation=p, position=1, choice="D")
    assert ItemResponse.objects.get(participation=p, position=1).choice == "C"


def test_time_on_task_per_item_and_per_session_is_exported(small_study, client, admin_user):
    study, subset, _ = small_study
    p = enrol(study, "timed")
    client.force_login(p.user)
    elapse(p, 60)
    client.post(reverse("baseline:item-time", args=[study.pk, 2]), {"seconds": "40.5"})
    refused = client.post(reverse("baseline:item-time", args=[study.pk, 2]), {"seconds": "x"})
    assert refused.status_code == 400
    elapse(p, 3600)
    client.post(reverse("baseline:item-time", args=[study.pk, 3]), {"seconds": "999999"})
    assert ItemResponse.objects.get(participation=p, position=2).seconds == 40.5
    # One report counts at most half an hour.
    assert ItemResponse.objects.get(participation=p, position=3).seconds == 1800
    # Sessions: activity within the idle limit extends one; a long pause starts another.
    WorkSession.objects.filter(participation=p).delete()
    t0 = timezone.now() - timedelta(hours=5)
    services.activity_touch(participation=p, now=t0)
    services.activity_touch(participation=p, now=t0 + timedelta(minutes=20))
    services.activity_touch(participation=p, now=t0 + timedelta(minutes=35))
    services.activity_touch(participation=p, now=t0 + timedelta(hours=2))
    services.activity_touch(participation=p, now=t0 + timedelta(hours=2, minutes=10))
    sessions = list(WorkSession.objects.filter(participation=p).order_by("started_at"))
    assert [s.seconds for s in sessions] == [35 * 60, 10 * 60]

    client.force_login(admin_user)
    response = client.get(reverse("baseline:time-csv", args=[study.pk]))
    lines = response.content.decode().splitlines()
    assert lines[0] == "kind,participant,pool,pool_id,position,question_id,start,end,seconds"
    item_lines = [line for line in lines if line.startswith("item,timed,,,2,")]
    assert len(item_lines) == 1 and item_lines[0].endswith(",40.5")
    session_lines = [line for line in lines if line.startswith("session,timed")]
    assert [line.rsplit(",", 1)[1] for line in session_lines] == ["2100.0", "600.0"]


def test_a_time_report_received_twice_is_counted_once(small_study, client):
    study, _, _ = small_study
    p = enrol(study, "twice")
    client.force_login(p.user)
    url = reverse("baseline:item-time", args=[study.pk, 2])
    elapse(p, 60)
    for _ in range(2):  # the same report again, as a repeated leave event sends it
        response = client.post(url, {"seconds": "40.5", "report_id": "visit-a-1"})
        assert response.status_code == 204
    assert ItemResponse.objects.get(participation=p, position=2).seconds == 40.5
    # Another report of the same page adds its own time.
    elapse(p, 60)
    client.post(url, {"seconds": "9.5", "report_id": "visit-a-2"})
    assert ItemResponse.objects.get(participation=p, position=2).seconds == 50.0
    # A save retried after a lost connection carries its report again: counted once,
    # while the answer itself stays the same.
    elapse(p, 60)
    for _ in range(2):
        services.answer_save(
            participation=p, position=2, choice="B", seconds=12, report_id="visit-a-3"
        )
    response = ItemResponse.objects.get(participation=p, position=2)
    assert (response.seconds, response.choice, response.revisions) == (62.0, "B", 0)
    assert response.time_reports.count() == 3
    # The same name on another item is another report.
    elapse(p, 60)
    services.time_record(participation=p, position=3, seconds=5, report_id="visit-a-1")
    assert ItemResponse.objects.get(participation=p, position=3).seconds == 5


DEMO_LABEL = "[Demo stand-in, not from the HEART-Bench release]"


def test_an_imported_retrieval_set_is_shown_in_its_order_each_memory_once(role_groups, client):
    from tests.factories import UserFactory

    from .conftest import build_items, direct_selection

    admin = UserFactory(username="admin-x")
    items = build_items(4, 3)
    subset, practice = items[:8], items[8:9]
    imported = RetrievalSet.objects.create(
        item=subset[0],
        method="imported",
        k=2,
        origin="run-7",
        query="q",
        scenario_age=12,
        eligible_count=2,
    )
    for rank, (anon, text) in enumerate(
        [
            ("MEM_CHAR_01_0009", "Imported narrative two."),
            ("MEM_CHAR_01_0003", f"{DEMO_LABEL} Imported one (planted demo defect)."),
        ],
        start=1,
    ):
        RetrievedMemory.objects.create(
            retrieval_set=imported,
            rank=rank,
            anonymized_id=anon,
            timeline="childhood (age 7)",
            event_age=7,
            content_full=text,
        )
    study = services.study_create(
        user=admin,
        name="s",
        selection=direct_selection(subset, user=admin),
        consent_version="v1",
        consent_text="t",
        briefing="b",
        practice_question_ids=[practice[0].question_id],
    )
    study_item = StudyItem.objects.get(study=study, item=subset[0])
    assert study_item.retrieval_set == imported
    builtin = StudyItem.objects.get(study=study, item=subset[1]).retrieval_set
    assert builtin.method == "bm25" and builtin.k == 30
    p = enrol(study, "reader")
    position = ItemResponse.objects.get(participation=p, study_item=study_item).position
    client.force_login(p.user)
    body = client.get(reverse("baseline:item", args=[study.pk, position])).content.decode()
    entries = memory_block_entries(imported)
    assert entries == [
        "- [MEM_CHAR_01_0009][childhood (age 7)] Imported narrative two.",
        f"- [MEM_CHAR_01_0003][childhood (age 7)] {DEMO_LABEL} Imported one (planted demo defect).",
    ]
    # The participant reads what the models read, minus the anonymized ids: each memory
    # once, under its timeline, in the set's order.
    assert body.index("Imported narrative two.") < body.index("Imported one.")
    # A demo stand-in's labels are for the people building the corpus, not for participants.
    assert "Demo stand-in" not in body and "planted" not in body
    assert body.count("Imported narrative two.") == 1
    assert "Memory 1 · childhood (age 7)" in body and "Memory 2 · childhood (age 7)" in body
    assert "MEM_CHAR_01_0009" not in body and "MEM_CHAR_01_0003" not in body


def test_the_item_page_runs_a_constant_number_of_queries(
    role_groups, client, django_assert_num_queries
):
    study, subset, _ = make_study(n_items=12, n_characters=4)
    p = enrol(study, "counted")
    client.force_login(p.user)
    client.get(reverse("baseline:item", args=[study.pk, 1]))
    for position in (1, 7, 12):
        with django_assert_num_queries(ITEM_PAGE_QUERIES):
            assert (
                client.get(reverse("baseline:item", args=[study.pk, position])).status_code == 200
            )


ITEM_PAGE_QUERIES = 14
