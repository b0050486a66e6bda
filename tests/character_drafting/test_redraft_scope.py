"""What a redraft may change once a profile is reviewed (seed 000 App. B.3): "the senior
professor adjudicated the revision requests, made the corresponding field-level edits,
and performed the final suitability check"; "profiles accepted as-is by all three
researchers were retained unchanged". A redraft changes only the fields the open change
requests name, is refused on a unanimously accepted profile, and its version is checked
by the senior, who resolves each request it addressed against the redrafted text."""

import pytest
from django.test import Client
from django.urls import reverse

from annotation.character_drafting import design
from annotation.character_drafting.models import CharacterDraft, DraftingJob
from annotation.character_drafting.services import execution, jobs, redraft
from annotation.character_drafting.services.common import DraftingError
from annotation.profile_review import services as review
from annotation.profile_review.models import ChangeRequest

from .conftest import user_texts
from .test_redraft import (
    ALL_MEET,
    OFFLINE,
    adjudicate_with_requests,
    changed_fields,
    run,
    submit,
)

pytestmark = pytest.mark.django_db

REQUESTED = ["description", "self_value_logic", "core_pattern_2"]


@pytest.fixture
def v1(drafting_admin, drafting_provider):
    job = jobs.drafting_job_create(
        user=drafting_admin,
        plan=[design.anchored("CHAR_03", "C", "high")],
        design=DraftingJob.Design.CUSTOM,
    )
    return run(job).drafts.get().profile_version


def redraft_jobs():
    return DraftingJob.objects.filter(kind=DraftingJob.Kind.REDRAFT)


@pytest.mark.parametrize("provider", ["fake server", "offline demo"])
def test_a_redraft_changes_the_requested_fields_and_carries_every_other_over(
    drafting_admin, v1, annotators, fake_server, provider
):
    """seed 000 App. B.3: revisions are field-level edits answering the change requests.
    Asked for no particular field, a redraft of a reviewed profile changes exactly the
    fields the open requests name; the label, occupation, scores and the other seven
    patterns are the reviewed version's, unchanged (both demo models rewrite every prose
    field when asked for more than one)."""
    adjudicate_with_requests(annotators, v1, REQUESTED)
    job = redraft.drafting_redraft_create(
        user=drafting_admin, character_key="CHAR_03", admin_note="Sharper."
    )
    draft = job.drafts.get()
    execution.character_draft_execute(
        draft_id=draft.pk, provider=OFFLINE if provider == "offline demo" else None
    )
    draft.refresh_from_db()
    assert draft.status == CharacterDraft.Status.SUCCEEDED, draft.problems
    v2 = draft.profile_version
    assert changed_fields(v1, v2) == set(REQUESTED)
    for name in ("construction_label", "occupation", "big_five", "trait_anchor"):
        assert getattr(v2, name) == getattr(v1, name), name
    assert [p for i, p in enumerate(v2.core_patterns) if i != 1] == [
        p for i, p in enumerate(v1.core_patterns) if i != 1
    ]
    assert v2.source.startswith("redraft of v1 (description, self-value logic, core pattern 2)")
    if provider == "fake server":
        sent = user_texts(fake_server)[-1]
        assert "(JSON keys: description, self_value_logic, core_patterns[1])" in sent
        assert "rewrite the whole profile" not in sent


def test_after_review_a_redraft_of_a_field_no_request_names_is_refused(
    drafting_admin, v1, annotators
):
    """seed 000 App. B.3: a change answers a reviewer's request on that field; the
    occupation nobody questioned stays as it is, and so does a flagged profile with no
    request (the senior edits it directly)."""
    adjudicate_with_requests(annotators, v1, ["description"])
    with pytest.raises(DraftingError, match="No open change request names Occupation"):
        redraft.drafting_redraft_create(
            user=drafting_admin, character_key="CHAR_03", field="occupation", admin_note="x"
        )
    assert not redraft_jobs().exists()


def test_after_review_without_an_open_request_a_note_alone_redrafts_nothing(
    drafting_admin, v1, annotators
):
    """seed 000 App. B.3: after review only requested fields change; an administrator's
    note alone no longer licenses a new profile."""
    review.profile_review_save(
        character_key="CHAR_03",
        reviewer=annotators[0],
        recommendation="flag",
        criteria=ALL_MEET,
        explanation="The patterns and the description pull in different directions.",
        submit=True,
    )
    submit(annotators[1])
    submit(annotators[2])
    with pytest.raises(DraftingError, match="has no open change request"):
        redraft.drafting_redraft_create(
            user=drafting_admin, character_key="CHAR_03", admin_note="Rewrite it all."
        )
    assert not redraft_jobs().exists() and v1.character.versions.count() == 1


@pytest.fixture
def accepted_unanimously(v1, annotators):
    for annotator in annotators:
        submit(annotator, "accept")
    return v1


def test_a_profile_all_three_reviewers_accepted_is_never_redrafted(
    drafting_admin, accepted_unanimously
):
    """seed 000 App. B.3: "Profiles accepted as-is by all three researchers were retained
    unchanged": no redraft, of the whole profile or of a field, note or not."""
    for field in ("", "description", "big_five"):
        with pytest.raises(DraftingError, match="accepted as-is by all 3 reviewers"):
            redraft.drafting_redraft_create(
                user=drafting_admin,
                character_key="CHAR_03",
                field=field,
                admin_note="Make it livelier.",
            )
    assert not redraft_jobs().exists()
    assert accepted_unanimously.character.versions.count() == 1


def test_the_redraft_pages_refuse_a_unanimously_accepted_profile(
    drafting_admin, accepted_unanimously
):
    """seed 000 App. B.3, on the pages (redrafts are launched there only; the drafting
    API is read-only): the list says why, the form shows it and a post adds nothing."""
    client = Client()
    client.force_login(drafting_admin)
    listing = client.get(reverse("drafting:redraft-list")).content.decode()
    row = listing.split('data-key="CHAR_03"', 1)[1].split("</tr>", 1)[0]
    assert "Accepted as-is by every reviewer" in row and "redraft-CHAR_03" not in row
    url = reverse("drafting:redraft-new", kwargs={"key": "CHAR_03"})
    page = client.get(url).content.decode()
    assert 'data-testid="redraft-blocked"' in page and "accepted as-is by all 3" in page
    response = client.post(url, {"field": "", "admin_note": "Livelier.", "model": ""})
    assert response.status_code == 200
    assert "accepted as-is by all 3 reviewers" in response.content.decode()
    assert not redraft_jobs().exists()
    assert accepted_unanimously.character.versions.count() == 1


def test_the_senior_resolves_each_redrafted_request_against_the_redrafted_text(
    drafting_admin, v1, annotators, senior
):
    """seed 000 App. B.3: the senior adjudicates the requests and performs the final
    suitability check on the revised profile; the redraft gets no new reviewer round, so
    the senior's resolutions must be of the redrafted text. A request resolved while the
    redraft ran was judged on the old text: the redraft then adds nothing, and what the
    senior freezes is the version they resolved the requests on."""
    adjudicate_with_requests(annotators, v1, ["description", "occupation"])
    job = redraft.drafting_redraft_create(user=drafting_admin, character_key="CHAR_03")
    early = ChangeRequest.objects.get(field="occupation")
    review.change_request_resolve(request_id=early.pk, arbitrator=senior, status="accepted")
    draft = run(job).drafts.get()
    assert draft.status == CharacterDraft.Status.FAILED
    assert draft.error_kind == "redraft_refused"
    assert f"resolved change request {early.pk}" in draft.error_message
    assert v1.character.versions.count() == 1
    # Redrafting what is still open works; the senior resolves it on v2 and freezes v2.
    job = redraft.drafting_redraft_create(user=drafting_admin, character_key="CHAR_03")
    v2 = run(job).drafts.get().profile_version
    assert changed_fields(v1, v2) == {"description"}
    with pytest.raises(review.ReviewError, match="still open"):
        review.profile_freeze(
            character_key="CHAR_03", arbitrator=senior, suitability_confirmed=True
        )
    later = ChangeRequest.objects.get(field="description")
    later = review.change_request_resolve(request_id=later.pk, arbitrator=senior, status="accepted")
    assert later.resolved_in_version == v2
    frozen = review.profile_freeze(
        character_key="CHAR_03", arbitrator=senior, suitability_confirmed=True
    )
    assert frozen == v2
