"""The Django admin lists every corpus and adjudication model; frozen versions are
view-only there."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.models import McqItem, McqOption
from annotation.corpus.models import ActivationSet


@pytest.fixture
def admin_client_with_corpus(admin_client, secret_corpus):
    character, scenario = secret_corpus["character"], secret_corpus["scenario"]
    ActivationSet.objects.create(
        character=character, scenario=scenario, step=1, scenario_age=9, memory_ids=["A", "B"]
    )
    ReferenceResponse.objects.create(
        character=character,
        scenario=scenario,
        summary="I would water the plants.",
        final_decision="I stay and water the plants. I text my mother an apology.",
        decision_type=ReferenceResponse.DecisionType.IMPORTED,
    )
    item = McqItem.objects.create(
        question_id="Q_1",
        character=character,
        scenario=scenario,
        stage="school_age",
        correct_answer="A",
    )
    McqOption.objects.create(
        item=item, label="A", content="stay", is_correct=True, source_character=character.key
    )
    return admin_client


MODELS = [
    "annotation_character",
    "annotation_profileversion",
    "annotation_memory",
    "annotation_scenario",
    "annotation_activationset",
    "annotation_importjob",
    "annotation_quotaweights",
    "annotation_memoryplan",
    "annotation_memorypromptversion",
    "annotation_memoryrun",
    "annotation_memorybatch",
    "annotation_memorycallrecord",
    "annotation_generatedmemory",
    "adjudication_referenceresponse",
    "adjudication_mcqitem",
]


@pytest.mark.parametrize("model", MODELS)
def test_changelists_and_searches_load(model, admin_client_with_corpus):
    url = reverse(f"admin:{model}_changelist")
    assert admin_client_with_corpus.get(url).status_code == 200
    assert admin_client_with_corpus.get(url, {"q": "CHAR"}).status_code == 200


def test_change_pages_load(admin_client_with_corpus, secret_corpus):
    for model, obj in [
        ("annotation_character", secret_corpus["character"]),
        ("annotation_profileversion", secret_corpus["current"]),
        ("annotation_memory", secret_corpus["memory"]),
        ("annotation_scenario", secret_corpus["scenario"]),
        ("annotation_importjob", secret_corpus["job"]),
        ("adjudication_mcqitem", McqItem.objects.get()),
    ]:
        url = reverse(f"admin:{model}_change", args=[obj.pk])
        assert admin_client_with_corpus.get(url).status_code == 200, model


def test_a_frozen_profile_version_is_view_only(admin_client_with_corpus, secret_corpus):
    frozen, draft = secret_corpus["frozen"], secret_corpus["current"]
    frozen_url = reverse("admin:annotation_profileversion_change", args=[frozen.pk])
    body = admin_client_with_corpus.get(frozen_url).content.decode()
    assert 'name="description"' not in body  # no editable field
    assert "View profile version" in body
    before = frozen.description
    response = admin_client_with_corpus.post(frozen_url, {"description": "rewritten"})
    assert response.status_code == 403
    frozen.refresh_from_db()
    assert frozen.description == before
    delete_url = reverse("admin:annotation_profileversion_delete", args=[frozen.pk])
    assert admin_client_with_corpus.post(delete_url, {"post": "yes"}).status_code == 403

    draft_url = reverse("admin:annotation_profileversion_change", args=[draft.pk])
    assert 'name="description"' in admin_client_with_corpus.get(draft_url).content.decode()


def test_the_frozen_filter(admin_client_with_corpus, secret_corpus):
    url = reverse("admin:annotation_profileversion_changelist")
    frozen = admin_client_with_corpus.get(url, {"frozen": "yes"}).content.decode()
    assert "CHAR_87 v1" in frozen and "CHAR_87 v2" not in frozen


def test_import_jobs_are_read_only_and_never_load_the_bytes(
    admin_client_with_corpus, secret_corpus
):
    job = secret_corpus["job"]
    assert (
        admin_client_with_corpus.get(reverse("admin:annotation_importjob_add")).status_code == 403
    )
    body = admin_client_with_corpus.get(
        reverse("admin:annotation_importjob_change", args=[job.pk])
    ).content.decode()
    assert "characters.json" in body


GENERATION_MODELS = [
    "annotation_promptversion",
    "annotation_generationrun",
    "annotation_generationunit",
    "annotation_llmcallrecord",
    "annotation_candidate",
]


@pytest.fixture
def generation_run(secret_corpus, make_run):
    return make_run(
        [secret_corpus["character"]], [secret_corpus["scenario"]], statuses=("succeeded", "failed")
    )


def test_the_generation_models_are_listed_and_read_only(admin_client, generation_run):
    from annotation.generation.models import Candidate, LlmCallRecord

    unit = generation_run.units.first()
    objects = {
        "annotation_promptversion": generation_run.response_prompt,
        "annotation_generationrun": generation_run,
        "annotation_generationunit": unit,
        "annotation_llmcallrecord": LlmCallRecord.objects.filter(unit=unit).first(),
        "annotation_candidate": Candidate.objects.first(),
    }
    for model in GENERATION_MODELS:
        url = reverse(f"admin:{model}_changelist")
        assert admin_client.get(url).status_code == 200, model
        assert admin_client.get(url, {"q": "CHAR"}).status_code == 200, model
        assert admin_client.get(reverse(f"admin:{model}_add")).status_code == 403, model
        change = reverse(f"admin:{model}_change", args=[objects[model].pk])
        body = admin_client.get(change).content.decode()
        assert 'name="_save"' not in body, model  # view only: no Save button
        assert admin_client.post(change, {}).status_code == 403, model


def test_a_call_record_shows_its_request_and_response(admin_client, generation_run):
    from annotation.generation.models import LlmCallRecord

    call = LlmCallRecord.objects.first()
    body = admin_client.get(
        reverse("admin:annotation_llmcallrecord_change", args=[call.pk])
    ).content.decode()
    assert "zqx request body" in body and "raw response" in body


WORKFLOW_APPS = ("adjudication", "audit", "humanbaseline", "evaluation")


def test_every_workflow_model_is_browsable_and_read_only_in_the_admin(admin_client, rf):
    """Admins can look at every record of the downstream workflows, and change none of
    them there: items change only through item versions, decisions only through the
    workflows' services (their history is at /history/)."""
    from django.apps import apps
    from django.contrib import admin as django_admin
    from simple_history.models import HistoricalChanges

    editable = {"adjudicationsettings"}  # the arbitration switch, edited in the admin
    request = rf.get("/admin/")
    request.user = get_user_model().objects.get(username="admin")
    for label in WORKFLOW_APPS:
        for model in apps.get_app_config(label).get_models():
            name = model._meta.model_name
            if name == "mcqoption":
                continue  # shown, read-only, inline on its item
            if issubclass(model, HistoricalChanges):
                continue  # the app's decision history, browsed at /history/
            assert model in django_admin.site._registry, f"{label}.{name} is not in the admin"
            url = reverse(f"admin:{label}_{name}_changelist")
            assert admin_client.get(url).status_code == 200, url
            if name not in editable:
                model_admin = django_admin.site._registry[model]
                assert not model_admin.has_change_permission(request), f"{label}.{name} editable"
                assert not model_admin.has_add_permission(request), f"{label}.{name} can be added"
