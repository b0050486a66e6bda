"""Redrafting a reviewed profile (App. B.3): the open change requests reach the model,
the redraft changes only the fields they name and is the character's next version, the
senior resolves each request against it and freezes it; refused for a frozen profile,
for a profile the three reviewers accepted as-is, and while the reviewers are mid-review."""

import pytest

from annotation.character_drafting import design
from annotation.character_drafting.models import CharacterDraft, DraftingJob
from annotation.character_drafting.services import execution, jobs, redraft
from annotation.character_drafting.services.common import DraftingError
from annotation.profile_review import services as review
from annotation.profile_review.models import (
    ChangeRequest,
    ProfileReviewCase,
    profile_field_text,
)
from llm import ProviderConfig

from .conftest import user_texts

pytestmark = pytest.mark.django_db

ALL_MEET = dict.fromkeys(
    [
        "trait_alignment",
        "internal_coherence",
        "occupational_plausibility",
        "behavioral_specificity",
        "interpretive_restraint",
    ],
    "meets",
)
CONCERN = "The worry reads as constant; say it is mild and arises when rules fail."


def run(job):
    for draft_id in job.drafts.values_list("pk", flat=True):
        execution.character_draft_execute(draft_id=draft_id)
    job.refresh_from_db()
    return job


@pytest.fixture
def drafted(drafting_admin, drafting_provider):
    job = jobs.drafting_job_create(
        user=drafting_admin,
        plan=[design.anchored("CHAR_03", "C", "high")],
        design=DraftingJob.Design.CUSTOM,
    )
    return run(job).drafts.get().profile_version


def submit(reviewer, recommendation="accept"):
    review.profile_review_save(
        character_key="CHAR_03",
        reviewer=reviewer,
        recommendation=recommendation,
        criteria=ALL_MEET,
        submit=True,
    )


def request_change(reviewer, v1, field="description"):
    return review.change_request_add(
        character_key="CHAR_03",
        reviewer=reviewer,
        field=field,
        passage=profile_field_text(v1, field)[:20],
        concern=CONCERN,
        suggested_correction="Say the anxiety is mild and eases once structure returns.",
    )


def adjudicate_with_requests(annotators, v1, fields):
    """Reviews in, with the first reviewer's change requests on ``fields``."""
    for field in fields:
        request_change(annotators[0], v1, field)
    submit(annotators[0], "local_revision")
    submit(annotators[1])
    submit(annotators[2])
    return v1


def changed_fields(v1, v2) -> set[str]:
    """The reviewable fields (change-request names) in which v2 differs from v1."""
    changed = {
        name
        for name in ("construction_label", "occupation", "description", "self_value_logic")
        if getattr(v2, name) != getattr(v1, name)
    }
    changed |= {"big_five"} if v2.big_five != v1.big_five else set()
    changed |= {
        f"core_pattern_{n}"
        for n, (a, b) in enumerate(zip(v1.core_patterns, v2.core_patterns, strict=True), 1)
        if a != b
    }
    return changed


@pytest.fixture
def adjudicating(drafted, annotators):
    request_change(annotators[0], drafted)
    submit(annotators[0], "local_revision")
    submit(annotators[1])
    submit(annotators[2])
    return drafted


def test_a_field_redraft_carries_the_change_requests_and_becomes_the_version_the_senior_freezes(
    drafting_admin, adjudicating, senior, fake_server
):
    v1 = adjudicating
    job = redraft.drafting_redraft_create(
        user=drafting_admin,
        character_key="CHAR_03",
        field="description",
        admin_note="Keep it short.",
    )
    draft = run(job).drafts.get()
    assert draft.status == CharacterDraft.Status.SUCCEEDED
    sent = user_texts(fake_server)[-1]
    assert CONCERN in sent and "Keep it short." in sent
    assert "change only the field “Description”" in sent and "version 1" in sent
    v2 = draft.profile_version
    assert v2.number == 2 and v2.source.startswith("redraft of v1 (description)")
    assert f"drafting job {job.pk}" in v2.source
    # Only the description comes from the model; every other field is v1's.
    for field in ("construction_label", "occupation", "self_value_logic", "core_patterns"):
        assert getattr(v2, field) == getattr(v1, field)
    assert v2.big_five == v1.big_five and v2.description != v1.description
    # The senior sees v2 as the latest, resolves the request against it and freezes it.
    request = ChangeRequest.objects.get()
    resolved = review.change_request_resolve(
        request_id=request.pk, arbitrator=senior, status="accepted"
    )
    assert resolved.resolved_in_version == v2
    frozen = review.profile_freeze(
        character_key="CHAR_03", arbitrator=senior, suitability_confirmed=True
    )
    assert frozen == v2 and frozen.is_frozen


def test_a_redraft_without_a_field_changes_the_one_field_the_requests_name(
    drafting_admin, adjudicating, fake_server
):
    """seed 000 App. B.3: after review, revisions are field-level; a redraft asked for no
    particular field takes the one field the open change request names."""
    job = redraft.drafting_redraft_create(user=drafting_admin, character_key="CHAR_03")
    v2 = run(job).drafts.get().profile_version
    assert v2.number == 2 and v2.conscientiousness == 0.95
    sent = user_texts(fake_server)[-1]
    assert "change only the field “Description”" in sent
    assert "rewrite the whole profile" not in sent
    assert changed_fields(adjudicating, v2) == {"description"}


def test_a_frozen_profile_is_never_redrafted(drafting_admin, adjudicating, senior):
    request = ChangeRequest.objects.get()
    review.change_request_resolve(
        request_id=request.pk, arbitrator=senior, status="rejected", reason="Fine as it is."
    )
    review.profile_freeze(character_key="CHAR_03", arbitrator=senior, suitability_confirmed=True)
    with pytest.raises(DraftingError, match="frozen"):
        redraft.drafting_redraft_create(
            user=drafting_admin, character_key="CHAR_03", admin_note="x"
        )
    assert not DraftingJob.objects.filter(kind=DraftingJob.Kind.REDRAFT).exists()


def test_no_redraft_while_the_reviewers_are_mid_review(drafting_admin, drafted, annotators):
    request_change(annotators[0], drafted)
    submit(annotators[0], "local_revision")
    with pytest.raises(DraftingError, match=r"with the reviewers .*1 of 3 submitted"):
        redraft.drafting_redraft_create(user=drafting_admin, character_key="CHAR_03")
    assert not DraftingJob.objects.filter(kind=DraftingJob.Kind.REDRAFT).exists()


def test_before_any_review_a_redraft_needs_a_note_and_then_is_allowed(drafting_admin, drafted):
    with pytest.raises(DraftingError, match="no open change request"):
        redraft.drafting_redraft_create(user=drafting_admin, character_key="CHAR_03")
    job = redraft.drafting_redraft_create(
        user=drafting_admin,
        character_key="CHAR_03",
        admin_note="Make the occupation more specific.",
    )
    v2 = run(job).drafts.get().profile_version
    assert v2.number == 2 and not ProfileReviewCase.objects.exists()


def test_a_redraft_that_finds_its_profile_frozen_meanwhile_adds_nothing(
    drafting_admin, adjudicating, senior
):
    job = redraft.drafting_redraft_create(user=drafting_admin, character_key="CHAR_03")
    request = ChangeRequest.objects.get()
    review.change_request_resolve(
        request_id=request.pk, arbitrator=senior, status="rejected", reason="Fine as it is."
    )
    review.profile_freeze(character_key="CHAR_03", arbitrator=senior, suitability_confirmed=True)
    draft = run(job).drafts.get()
    assert draft.status == CharacterDraft.Status.FAILED and draft.error_kind == "redraft_refused"
    assert "frozen" in draft.error_message
    assert adjudicating.character.versions.count() == 1


def test_the_neutral_vector_cannot_be_redrafted(drafting_admin, drafting_provider):
    job = jobs.drafting_job_create(
        user=drafting_admin, plan=[design.neutral("CHAR_11")], design=DraftingJob.Design.CUSTOM
    )
    run(job)
    with pytest.raises(DraftingError, match="fixed by its design"):
        redraft.drafting_redraft_create(
            user=drafting_admin, character_key="CHAR_11", field="big_five", admin_note="x"
        )


FIELDS = ("construction_label", "occupation", "big_five", "description", "self_value_logic")
OFFLINE = ProviderConfig(kind="offline_demo", model="offline-demo-drafting")


@pytest.mark.parametrize("provider", ["fake server", "offline demo"])
@pytest.mark.parametrize("field", [*FIELDS, "core_pattern_1", "core_pattern_8"])
def test_a_one_field_redraft_changes_that_field_at_the_first_call(
    drafting_admin, drafted, annotators, fake_server, provider, field
):
    """Issue 32: both shipped demo providers answer a redraft with the field changed
    (they used to answer from the character alone, identical to version 1 on every
    attempt), and nothing else changes."""
    v1 = adjudicate_with_requests(annotators, drafted, ["description", field])
    job = redraft.drafting_redraft_create(
        user=drafting_admin, character_key="CHAR_03", field=field, admin_note="Sharper."
    )
    draft = job.drafts.get()
    execution.character_draft_execute(
        draft_id=draft.pk, provider=OFFLINE if provider == "offline demo" else None
    )
    draft.refresh_from_db()
    assert draft.status == CharacterDraft.Status.SUCCEEDED, draft.problems
    assert draft.calls.count() == 1
    v2 = draft.profile_version
    assert changed_fields(v1, v2) == {field}
    assert v2.conscientiousness == 0.95  # the anchor the design fixes


def test_the_redraft_prompt_names_the_fields_json_key_and_current_value(
    drafting_admin, drafted, annotators, fake_server
):
    adjudicating = adjudicate_with_requests(annotators, drafted, ["core_pattern_3"])
    job = redraft.drafting_redraft_create(
        user=drafting_admin, character_key="CHAR_03", field="core_pattern_3", admin_note="x"
    )
    run(job)
    sent = user_texts(fake_server)[-1]
    current = adjudicating.core_patterns[2]
    assert "(JSON: core_patterns[2]), whose current value is" in sent
    assert current in sent.split("whose current value is", 1)[1][: len(current) + 10]
    assert "it must differ from the current one" in sent
