"""How long a study takes (issue 32, "Hours in the chair"): each item's words are counted
when the study is made (its scenario, its four options, its retrieved memories), the
consent and study pages state the duration at the stated reading rate, with the admin's
pay text, and a practice item's feedback gives a reason the admin can change."""

import statistics

import pytest
from django.urls import reverse
from django.utils.html import escape

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.models import McqOption
from evaluation.models import RetrievedMemory
from humanbaseline import services
from humanbaseline.models import BaselineStudy, StudyItem
from humanbaseline.reading import (
    PRACTICE_REASON_FALLBACK,
    READING_WORDS_PER_MINUTE,
    ItemWords,
    count_words,
    duration_text,
    reading_load,
)
from humanbaseline.selectors import study_reading_load

from .conftest import build_items, direct_selection, enrol

pytestmark = pytest.mark.django_db


def independent_words(study_item: StudyItem) -> tuple[int, int, int]:
    """What a participant reads of an item, counted here without the platform's code:
    str.split over the scenario's fields, the options and the retrieved narratives."""
    s = study_item.item.scenario
    scenario = " ".join(
        [
            s.name,
            s.setting_location,
            s.setting_time,
            s.setting_atmosphere,
            s.context_text,
            s.trigger_sender,
            s.trigger_message,
            s.action_required,
        ]
    )
    options = " ".join(
        McqOption.objects.filter(item=study_item.item).values_list("content", flat=True)
    )
    memories = " ".join(
        RetrievedMemory.objects.filter(retrieval_set=study_item.retrieval_set).values_list(
            "content_full", flat=True
        )
    )
    return len(scenario.split()), len(options.split()), len(memories.split())


@pytest.fixture
def study(role_groups, admin_user):
    """4 characters × 3 scenarios; the subset is the first two scenarios, practice from the
    third. Scenario texts of known, different lengths."""
    items = build_items(4, 3)
    for n, item in enumerate(items[:8]):
        scenario = item.scenario
        scenario.trigger_message = " ".join(["word"] * (40 + 7 * (n % 2)))
        scenario.context_text = "A long afternoon at the old school.\nThen rain."
        scenario.save()
    return services.study_create(
        user=admin_user,
        name="Timed study",
        selection=direct_selection(items[:8], user=admin_user),
        consent_version="v1",
        consent_text="You may stop at any time.",
        briefing="Read and choose.",
        pay_text="£12 an hour of recorded study time.",
        practice_question_ids=[items[8].question_id, items[9].question_id],
    )


def test_each_items_words_are_counted_as_an_independent_count_finds_them(study):
    rows = list(StudyItem.objects.filter(study=study).select_related("item__scenario"))
    assert len(rows) == 10
    for row in rows:
        assert (row.scenario_words, row.option_words, row.memory_words) == independent_words(row)
        assert row.memory_words > 0 and row.option_words > 0
    total = sum(sum(independent_words(row)) for row in rows)
    load = study_reading_load(study=study)
    assert (load.n_items, load.words) == (10, total)
    assert load.minutes == pytest.approx(total / READING_WORDS_PER_MINUTE)
    assert load.median_total == round(statistics.median(sum(independent_words(r)) for r in rows))
    assert load.longest_total == max(sum(independent_words(r)) for r in rows)


def test_the_consent_and_study_pages_state_the_duration_and_the_pay(study, client, admin_user):
    load = study_reading_load(study=study)
    expected = duration_text(load.words / READING_WORDS_PER_MINUTE)
    p = enrol(study, "reader", consent=False)
    client.force_login(p.user)
    consent = client.get(reverse("baseline:consent", args=[study.pk])).content.decode()
    assert f"Reading everything takes {expected} in all: 10 items (2 practice items first)" in (
        consent
    )
    assert f"at {READING_WORDS_PER_MINUTE} words a minute" in consent
    assert "£12 an hour of recorded study time." in consent
    assert "you come back to the first item you have not answered" in consent
    client.force_login(admin_user)
    page = client.get(reverse("baseline:study-detail", args=[study.pk])).content.decode()
    assert f"<strong>{expected}</strong> of reading ({load.words:,} words in 10 items" in page
    assert "Pay: £12 an hour of recorded study time." in page


def test_the_admin_enters_the_pay_on_the_study_form(role_groups, admin_user, client):
    items = build_items(3, 3)
    selection = direct_selection(items[:6], user=admin_user)
    client.force_login(admin_user)
    response = client.post(
        reverse("baseline:study-create"),
        {
            "name": "Paid cohort",
            "selection": selection.pk,
            "consent_version": "v1",
            "consent_text": "Consent text.",
            "briefing": "Briefing.",
            "pay_text": "  Course credit: 1 credit per 2 hours.  ",
            "practice_question_ids": items[6].question_id,
            "retrieval_method": "bm25",
            "k": "30",
        },
    )
    assert response.status_code == 302
    assert BaselineStudy.objects.get().pay_text == "Course credit: 1 credit per 2 hours."
    too_long = client.post(reverse("baseline:study-create"), {"pay_text": "x" * 501})
    assert "Pay is limited to 500 characters; this one has 501." in too_long.content.decode()


def test_a_practice_items_reason_is_the_references_reasoning_or_the_admins(
    role_groups, admin_user, client
):
    items = build_items(4, 3)
    practice = items[8]
    ReferenceResponse.objects.filter(pk=practice.reference_id).update(
        core_reasoning="Because I always\nwater the plants first."
    )
    study = services.study_create(
        user=admin_user,
        name="Reasons",
        selection=direct_selection(items[:8], user=admin_user),
        consent_version="v1",
        consent_text="c",
        briefing="b",
        practice_question_ids=[practice.question_id, items[9].question_id],
    )
    first, second = StudyItem.objects.filter(study=study, is_practice=True).order_by("position")
    assert first.practice_reason == (
        "In this person's own words: “Because I always water the plants first.”"
    )
    assert second.practice_reason == PRACTICE_REASON_FALLBACK

    client.force_login(admin_user)
    url = reverse("baseline:practice-reason", args=[study.pk, 2])
    page = client.get(reverse("baseline:study-detail", args=[study.pk])).content.decode()
    assert url in page and "Expected answer: <strong>" in page
    response = client.post(url, {"reason": "Their memories of the school garden point to B."})
    assert response.status_code == 302
    second.refresh_from_db()
    assert second.practice_reason == "Their memories of the school garden point to B."
    assert client.post(url, {"reason": "  "}).status_code == 302
    second.refresh_from_db()
    assert second.practice_reason == PRACTICE_REASON_FALLBACK
    assert client.post(url, {"reason": "x" * 4001}).status_code == 200
    missing = reverse("baseline:practice-reason", args=[study.pk, 3])
    assert client.post(missing, {"reason": "r"}).status_code == 404

    p = enrol(study, "learner", start=False)
    client.force_login(p.user)
    fragment = client.post(
        reverse("baseline:practice", args=[study.pk, 1]), {"choice": "C"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert escape(first.practice_reason) in fragment


@pytest.mark.parametrize(
    "minutes, text",
    [
        (0.2, "less than a minute"),
        (1, "about 1 minute"),
        (7.2, "about 7 minutes"),
        (22, "about 20 minutes"),
        (60, "about 1 hour"),
        (80, "about 1½ hours"),
        (1101, "about 18½ hours"),
    ],
)
def test_a_duration_reads_in_words(minutes, text):
    assert duration_text(minutes) == text


def test_words_are_runs_of_non_space_and_a_load_adds_them_up():
    assert count_words("Hello,  world —\nagain", "", None, "one") == 5
    load = reading_load([ItemWords(100, 50, 250), ItemWords(300, 70, 1030)])
    assert (load.n_items, load.words, load.longest_total) == (2, 1800, 1400)
    assert load.minutes == 9.0 and load.duration == "about 9 minutes"
    assert load.median_item == ItemWords(200, 60, 640) and load.median_total == 900
