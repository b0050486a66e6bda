"""Text limits over HTTP in the human baseline and evaluation (issue #24 points 2-3): the
study's texts, the best model's reason and a participant's account, page and API, and
the evaluation run's note. Each refusal names the field and the limit (or the control
character) and stores nothing."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from core.roles import Role
from core.text_rules import NAME, NOTE, TEXT
from evaluation.models import EvaluationError, EvaluationRun
from evaluation.services import evaluation_run_create
from humanbaseline import services
from humanbaseline.models import BaselineError, BaselineStudy, BestModelChoice, Participation
from tests.api.conftest import token_client
from tests.factories import UserFactory
from tests.humanbaseline.conftest import make_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(role_groups):
    made, _, _ = make_study(n_items=6, n_practice=2)
    return made


@pytest.fixture
def role_groups(db):
    from django.contrib.auth.models import Group

    for role in Role:
        Group.objects.get_or_create(name=role.value)


def session(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def api(name, *args):
    return reverse(f"baseline-api:{name}", args=args)


def test_a_study_briefing_over_the_limit_is_refused_by_the_api_and_the_service(study):
    admin = UserFactory(roles=[Role.ADMIN])
    body = {
        "name": "Second study",
        "selection": study.selection_id,
        "consent_version": "v1",
        "consent_text": "You may stop at any time.",
        "briefing": "x" * (TEXT + 1),
        "practice_count": 1,
    }
    answer = token_client(admin).post(api("study-list"), body, format="json")
    assert answer.status_code == 400
    assert "Briefing is limited to 20,000 characters" in " ".join(answer.json()["detail"])
    with pytest.raises(BaselineError, match="Consent text contains a control character"):
        services.study_create(
            user=admin,
            name="Third study",
            selection=study.selection,
            consent_version="v1",
            consent_text="stop\x00",
            briefing="Read.",
        )
    assert BaselineStudy.objects.count() == 1


def test_a_best_model_reason_over_the_limit_is_refused_on_page_and_api(study):
    admin = UserFactory(roles=[Role.ADMIN])
    body = {"model_label": "model-good", "reason": "x" * (NOTE + 1)}
    answer = token_client(admin).post(api("best-model", study.pk), body, format="json")
    assert answer.status_code == 400
    assert "Reason is limited to 4,000 characters" in " ".join(answer.json()["detail"])
    page = session(admin).post(reverse("baseline:best-model", args=[study.pk]), body)
    assert page.status_code in (200, 400)
    assert "Reason is limited to 4,000 characters" in page.content.decode()
    assert not BestModelChoice.objects.exists()


def test_a_participant_password_over_the_limit_or_with_nul_is_refused(study):
    admin = UserFactory(roles=[Role.ADMIN])
    users = get_user_model().objects.count()
    api_answer = token_client(admin).post(
        api("participants", study.pk),
        {"username": "p-100", "password": "x" * (NAME + 1)},
        format="json",
    )
    assert api_answer.status_code == 400
    assert "Password is limited to 200 characters" in " ".join(api_answer.json()["detail"])
    page = session(admin).post(
        reverse("baseline:participant-create", args=[study.pk]),
        {"username": "p-101", "password": "a long pass\x00phrase"},
    )
    assert page.status_code in (200, 400)
    assert "Password contains a control character (NUL)" in page.content.decode()
    assert get_user_model().objects.count() == users
    assert not Participation.objects.exists()


def test_an_evaluation_run_note_over_the_limit_is_refused_by_the_service():
    admin = UserFactory(roles=[Role.ADMIN])
    with pytest.raises(EvaluationError, match="Note is limited to 4,000 characters"):
        evaluation_run_create(
            created_by=admin, provider_key="demo", setting="no_retrieval", note="x" * (NOTE + 1)
        )
    with pytest.raises(EvaluationError, match="Model label contains a control character"):
        evaluation_run_create(
            created_by=admin, provider_key="demo", setting="no_retrieval", label="m\x00"
        )
    assert not EvaluationRun.objects.exists()
