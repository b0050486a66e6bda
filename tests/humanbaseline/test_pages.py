"""Admin pages of the human baseline: families and predictions by CSV (a bad file changes
nothing), studies, accounts, the home cards; and role checks. The selection form and its
page are in test_selection_page.py."""

import pytest
from django.urls import reverse

from adjudication.mcq.models import McqItem
from core.roles import Role
from humanbaseline import services
from humanbaseline.models import (
    BaselineStudy,
    ImportedPrediction,
    ItemSourceFamily,
    Participation,
)
from humanbaseline.selectors import baseline_home_queues
from tests.factories import UserFactory

from .conftest import build_items, enrol

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    return client


def upload(client, name, text, filename="f.csv"):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return client.post(
        reverse(name), {"file": SimpleUploadedFile(filename, text.encode(), "text/csv")}
    )


def test_a_family_csv_with_one_bad_row_is_rejected_whole(admin_client, role_groups):
    items = build_items(2, 2)
    text = "question_id,family\n" + f"{items[0].question_id},gpt\n" + "Q_NOPE,claude\n"
    text += f"{items[1].question_id},bard\n"
    body = upload(admin_client, "baseline:families", text).content.decode()
    assert "Line 3: no item with question_id &#x27;Q_NOPE&#x27;" in body
    assert (
        "Line 4: family &#x27;bard&#x27; is not one of gemini, claude, gpt, expert_rewrite" in body
    )
    assert ItemSourceFamily.objects.count() == 0
    good = "question_id,family\n" + "\n".join(f"{i.question_id},GPT" for i in items)
    response = upload(admin_client, "baseline:families", good)
    assert response.status_code == 302
    assert set(ItemSourceFamily.objects.values_list("family", flat=True)) == {"gpt"}


def test_families_can_come_from_the_references(admin_client, role_groups):
    items = build_items(3, 1)
    McqItem.objects.filter(pk=items[0].pk).update(reference=None)
    admin_client.post(reverse("baseline:families"), {"from": "references"})
    assert ItemSourceFamily.objects.count() == 2
    page = admin_client.get(reverse("baseline:admin")).content.decode()
    assert "<li>(none): 1</li>" in page  # the item without a reference has no source


def test_a_prediction_csv_with_a_bad_letter_is_rejected_whole(admin_client, role_groups):
    items = build_items(2, 1)
    text = f"question_id,m1,m2\n{items[0].question_id},A,E\n{items[1].question_id},,B\n"
    body = upload(admin_client, "baseline:predictions", text).content.decode()
    assert "Line 2, column &#x27;m2&#x27;: &#x27;E&#x27; is not A, B, C or D." in body
    assert ImportedPrediction.objects.count() == 0
    fixed = text.replace(",E", ",C")
    assert upload(admin_client, "baseline:predictions", fixed).status_code == 302
    assert ImportedPrediction.objects.filter(model_label="m1", letter="").count() == 1
    assert ImportedPrediction.objects.count() == 4


def test_admin_creates_a_study_and_a_participant_account(admin_client, admin_user, role_groups):
    from .conftest import direct_selection

    items = build_items(3, 3)
    selection = direct_selection(items[:6], user=admin_user)
    response = admin_client.post(
        reverse("baseline:study-create"),
        {
            "name": "Spring cohort",
            "selection": selection.pk,
            "consent_version": "v2",
            "consent_text": "Consent text.",
            "briefing": "Briefing.",
            "practice_question_ids": f"{items[6].question_id}, {items[0].question_id}",
            "retrieval_method": "bm25",
            "k": "30",
        },
    )
    assert "is in the subset; practice items must not be" in response.content.decode()
    assert BaselineStudy.objects.count() == 0
    response = admin_client.post(
        reverse("baseline:study-create"),
        {
            "name": "Spring cohort",
            "selection": selection.pk,
            "consent_version": "v2",
            "consent_text": "Consent text.",
            "briefing": "Briefing.",
            "practice_question_ids": items[6].question_id,
            "retrieval_method": "tfidf",
            "k": "3",
        },
    )
    study = BaselineStudy.objects.get()
    assert response.status_code == 302
    assert study.items.filter(is_practice=False).count() == 6
    assert {si.retrieval_set.method for si in study.items.all()} == {"tfidf"}
    response = admin_client.post(
        reverse("baseline:participant-create", args=[study.pk]),
        {"username": "ug-7", "password": "another-long-password-7"},
    )
    assert response.status_code == 302
    p = Participation.objects.get(user__username="ug-7")
    assert (
        p.enrolled_via == "admin"
        and Role.BASELINE_PARTICIPANT.value in p.user.groups.values_list("name", flat=True)
    )
    taken = admin_client.post(
        reverse("baseline:participant-create", args=[study.pk]),
        {"username": "ug-7", "password": "another-long-password-7"},
    )
    assert "The username &#x27;ug-7&#x27; is taken" in taken.content.decode()


def test_the_study_page_lists_participants_in_constant_queries(
    small_study, admin_client, django_assert_num_queries
):
    study, _, _ = small_study
    url = reverse("baseline:study-detail", args=[study.pk])
    enrol(study, "a")
    admin_client.get(url)
    with django_assert_num_queries(STUDY_PAGE_QUERIES):
        admin_client.get(url)
    for name in ("b", "c", "d"):
        enrol(study, name)
    with django_assert_num_queries(STUDY_PAGE_QUERIES):
        body = admin_client.get(url).content.decode()
    assert all(f"<td>{n}</td>" in body for n in "abcd")


# The study and its participants (5 with the session), the report, the best-model history,
# the Naive-RAG runs the best-model form offers, the reading load (word counts) and the
# practice items with their reasons, and the erasures (issue #36).
STUDY_PAGE_QUERIES = 12


def test_home_cards_count_per_role(small_study):
    study, _, _ = small_study
    p = enrol(study, "card", start=False)
    cards = baseline_home_queues(user=p.user)
    assert cards == {
        "baseline_study": {
            "count": 1,
            "url": reverse("baseline:home"),
            "label": "1 study to take or continue",
        }
    }
    admin = UserFactory(roles=[Role.ADMIN])
    assert baseline_home_queues(user=admin)["baseline_admin"]["count"] == 1
    services.study_set_status(study=study, status="closed")
    closed = baseline_home_queues(user=p.user)["baseline_study"]
    assert (closed["count"], closed["label"]) == (0, "0 studies to take or continue")


def test_participants_cannot_open_admin_pages(small_study, client):
    study, _, _ = small_study
    p = enrol(study, "nosy")
    client.force_login(p.user)
    for name, args in (
        ("baseline:admin", []),
        ("baseline:study-detail", [study.pk]),
        ("baseline:report", [study.pk]),
        ("baseline:time-csv", [study.pk]),
        ("baseline:selection-detail", [study.selection_id]),
    ):
        assert client.get(reverse(name, args=args)).status_code == 403, name


def test_a_closed_study_takes_no_new_participants(small_study, client):
    study, _, _ = small_study
    services.study_set_status(study=study, status="closed")
    response = client.post(
        reverse("baseline:join", args=[study.invitation_token]),
        {"username": "late", "password": "a-long-password-99"},
    )
    assert "closed to new participants" in response.content.decode()
    assert not Participation.objects.filter(user__username="late").exists()


def test_an_account_with_a_construction_role_cannot_enrol(small_study, client):
    study, _, _ = small_study
    annotator = UserFactory(username="expert", roles=[Role.PRIMARY_ANNOTATOR])
    client.force_login(annotator)
    response = client.post(reverse("baseline:join", args=[study.invitation_token]), follow=True)
    assert "holds other roles (Primary annotator)" in response.content.decode()
    assert not Participation.objects.filter(user=annotator).exists()
    assert not annotator.groups.filter(name=Role.BASELINE_PARTICIPANT.value).exists()
