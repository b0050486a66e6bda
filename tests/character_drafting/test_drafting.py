"""A drafting job's drafts run in this process against the fake provider server (the
worker's own path is in test_worker.py): valid output becomes profile version 1 in
profile review; bad output is retried with its problems named and then reported; an
unreachable provider is a clear failure; a redelivery never duplicates a version."""

import copy

import pytest

from annotation.character_drafting import design
from annotation.character_drafting.models import CharacterDraft, DraftingJob
from annotation.character_drafting.services import execution, jobs
from annotation.character_drafting.services.common import DraftingError
from annotation.corpus.models import Character, ProfileVersion
from annotation.profile_review.selectors import profile_review_queue
from llm.testing.replies import json_reply
from tests.factories import CharacterFactory, ProfileVersionFactory

from .conftest import provider_for, user_texts

pytestmark = pytest.mark.django_db

WRONG_ANCHOR = {
    "char_key": "CHAR_01",
    "name": "Worrier",
    "occupation": "pharmacist",
    "big_five": {"O": 0.5, "C": 0.6, "E": 0.4, "A": 0.5, "N": 0.8},
    "big_five_str": "O=0.50, C=0.60, E=0.40, A=0.50, N=0.80",
    "description": "A careful person. She checks things.",
    "self_value_logic": "Caution keeps me safe.",
    "core_patterns": [f"pattern {i}: checks thing {i}" for i in range(1, 9)],
}


def launch(drafting_admin, plan, **kwargs):
    return jobs.drafting_job_create(
        user=drafting_admin, plan=plan, design=DraftingJob.Design.CUSTOM, **kwargs
    )


def run_all(job):
    for draft_id in job.drafts.order_by("pk").values_list("pk", flat=True):
        execution.character_draft_execute(draft_id=draft_id)
    job.refresh_from_db()
    return job


def test_valid_drafts_become_version_1_in_the_profile_review_queue(
    drafting_admin, drafting_provider, fake_server
):
    plan = [design.anchored("CHAR_01", "N", "high"), design.neutral("CHAR_11")]
    job = run_all(launch(drafting_admin, plan))
    assert job.status == DraftingJob.Status.FINISHED
    v1 = ProfileVersion.objects.get(character__key="CHAR_01")
    assert v1.number == 1 and v1.neuroticism == 0.95 and len(v1.core_patterns) == 8
    assert f"drafting job {job.pk}" in v1.source and "fake-drafter" in v1.source
    assert "prompt v1" in v1.source
    neutral = ProfileVersion.objects.get(character__key="CHAR_11")
    assert neutral.big_five == dict.fromkeys("OCEAN", 0.5)
    rows = {r.character.key: r for r in profile_review_queue(user=drafting_admin)}
    assert rows["CHAR_01"].latest == v1 and rows["CHAR_01"].state == "to review"
    # Every call keeps its prompt, model and output.
    call = CharacterDraft.objects.get(job=job, char_key="CHAR_01").calls.get()
    assert "Character key: CHAR_01" in call.user and "Required scores: N=0.95" in call.user
    assert "exactly 8" in call.system.lower() or "Exactly 8" in call.system
    assert call.model == "fake-drafter" and call.ok and call.parsed["char_key"] == "CHAR_01"
    assert call.tokens_in > 0 and '"core_patterns"' in call.raw_response


def test_existing_keys_are_skipped_and_an_all_existing_design_is_refused(
    drafting_admin, drafting_provider
):
    ProfileVersionFactory(character=CharacterFactory(key="CHAR_01"), number=1)
    job = jobs.drafting_job_create(
        user=drafting_admin, plan=design.table4_plan(), design=DraftingJob.Design.TABLE4
    )
    assert job.skipped_keys == ["CHAR_01"]
    assert sorted(job.drafts.values_list("char_key", flat=True)) == [
        f"CHAR_{n:02d}" for n in range(2, 12)
    ]
    with pytest.raises(DraftingError, match="Every character of the design exists already"):
        launch(drafting_admin, [design.anchored("CHAR_01", "N", "high")])


def test_bad_output_is_retried_with_its_problems_named_then_reported_and_nothing_created(
    drafting_admin, drafting_provider, fake_server, responder, settings
):
    settings.HEARTBENCH_DRAFTING_MAX_ATTEMPTS = 3
    responder.always = json_reply(WRONG_ANCHOR)
    job = run_all(launch(drafting_admin, [design.anchored("CHAR_01", "N", "high")]))
    draft = job.drafts.get()
    assert job.status == DraftingJob.Status.FINISHED_WITH_FAILURES
    assert draft.status == CharacterDraft.Status.FAILED and draft.error_kind == "invalid_profile"
    assert any("big_five.N must be exactly 0.95" in p for p in draft.problems)
    assert draft.calls.count() == 3 and not draft.calls.filter(ok=True).exists()
    texts = user_texts(fake_server)
    assert len(texts) == 3
    assert "big_five.N must be exactly 0.95" not in texts[0]
    assert "Your previous draft could not be used" in texts[1]
    assert "big_five.N must be exactly 0.95" in texts[1]
    assert not Character.objects.filter(key="CHAR_01").exists()


def test_a_draft_fixed_on_the_second_attempt_succeeds(
    drafting_admin, drafting_provider, fake_server, responder
):
    good = copy.deepcopy(WRONG_ANCHOR)
    good["big_five"]["N"] = 0.95
    good["big_five_str"] = "O=0.50, C=0.60, E=0.40, A=0.50, N=0.95"
    responder.replies = [json_reply(WRONG_ANCHOR), json_reply(good)]
    job = run_all(launch(drafting_admin, [design.anchored("CHAR_01", "N", "high")]))
    draft = job.drafts.get()
    assert draft.status == CharacterDraft.Status.SUCCEEDED
    assert [c.ok for c in draft.calls.all()] == [False, True]
    assert draft.profile_version.neuroticism == 0.95


def test_a_nul_in_the_model_output_is_recorded_not_a_crash(
    drafting_admin, drafting_provider, fake_server, responder
):
    # PostgreSQL text and jsonb cannot hold NUL; the call record keeps a replacement.
    spoiled = copy.deepcopy(WRONG_ANCHOR)
    spoiled["description"] = "A careful\x00 person. She checks things."
    responder.replies = [json_reply(spoiled)] * 3
    job = run_all(launch(drafting_admin, [design.anchored("CHAR_01", "N", "high")]))
    draft = job.drafts.get()
    assert draft.status == CharacterDraft.Status.FAILED
    assert draft.error_kind != "internal_error", draft.error_message
    assert draft.calls.count() == 3
    call = draft.calls.first()
    assert "\ufffd" in call.parsed["description"] and "\x00" not in call.raw_response
    assert any("description contain a NUL character" in p for p in draft.problems)
    assert not Character.objects.filter(key="CHAR_01").exists()


def test_an_unreachable_provider_is_a_clear_failure_and_nothing_is_created(
    drafting_admin, settings
):
    # A port nothing listens on: the fake server was started and stopped.
    from llm.testing.fake_server import FakeProviderServer

    with FakeProviderServer() as gone:
        config = provider_for(gone)
    settings.HEARTBENCH_DRAFTING_PROVIDER = config
    job = run_all(launch(drafting_admin, [design.anchored("CHAR_02", "N", "low")]))
    draft = job.drafts.get()
    assert job.status == DraftingJob.Status.FINISHED_WITH_FAILURES
    assert draft.error_kind == "connection_error"
    assert "could not be used: connection_error" in draft.error_message
    assert draft.calls.count() == 1
    assert not Character.objects.exists()


def test_no_configured_provider_refuses_the_launch(drafting_admin, settings, monkeypatch):
    settings.HEARTBENCH_DRAFTING_PROVIDER = None
    monkeypatch.delenv("HEARTBENCH_DRAFTING_KIND", raising=False)
    monkeypatch.delenv("HEARTBENCH_DRAFTING_BASE_URL", raising=False)
    with pytest.raises(DraftingError, match="No drafting model is configured"):
        launch(drafting_admin, [design.anchored("CHAR_02", "N", "low")])
    assert not DraftingJob.objects.exists()


def test_a_redelivered_or_concurrent_delivery_never_creates_a_second_version(
    drafting_admin, drafting_provider, fake_server
):
    job = launch(drafting_admin, [design.anchored("CHAR_03", "C", "high")])
    draft_id = job.drafts.get().pk
    # Delivery A claims the draft; delivery B (a redelivery) claims it too and finishes.
    claimed_by_a = execution._claim(draft_id)
    finished = execution.character_draft_execute(draft_id=draft_id)
    assert finished.status == CharacterDraft.Status.SUCCEEDED
    # A reaches its own finish with a valid draft: the version B wrote stands alone.
    with pytest.raises(execution.Stopped):
        execution._draft(claimed_by_a, None)
    # A third delivery after the end changes nothing and calls nobody.
    calls = len(fake_server.requests)
    again = execution.character_draft_execute(draft_id=draft_id)
    assert again.status == CharacterDraft.Status.SUCCEEDED and len(fake_server.requests) == calls
    assert ProfileVersion.objects.filter(character__key="CHAR_03").count() == 1


def test_failed_drafts_can_be_retried(drafting_admin, drafting_provider, responder, settings):
    settings.HEARTBENCH_DRAFTING_MAX_ATTEMPTS = 1
    responder.always = json_reply(WRONG_ANCHOR)
    job = run_all(launch(drafting_admin, [design.anchored("CHAR_01", "N", "high")]))
    assert job.status == DraftingJob.Status.FINISHED_WITH_FAILURES
    responder.always = None
    jobs.drafting_job_retry_failed(job_id=job.pk, user=drafting_admin)
    job = run_all(job)
    draft = job.drafts.get()
    assert job.status == DraftingJob.Status.FINISHED and draft.profile_version.number == 1
    assert draft.problems == [] and draft.calls.count() == 2
    with pytest.raises(DraftingError, match="no failed drafts"):
        jobs.drafting_job_retry_failed(job_id=job.pk, user=drafting_admin)
