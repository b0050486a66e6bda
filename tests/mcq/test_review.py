"""Item review (seed 000 App. D.3.1, "Routing and resolution"): each action is recorded
with its reviewer and version, edits make a new version that is screened again in full,
an incomplete item is completed without padding, and the queue is for reviewers only."""

import pytest
from django.urls import reverse

from adjudication.mcq import assembly_rules as mcq_assembly
from adjudication.mcq.models import (
    McqError,
    McqItem,
    McqItemVersion,
    McqReviewDecision,
    McqScreening,
)
from adjudication.mcq.services import item_assembly, item_review
from core.roles import Role
from llm.testing.replies import json_reply

from .conftest import flag, scenario_with_references, verdict

pytestmark = pytest.mark.django_db
A = McqReviewDecision.Action


@pytest.fixture
def arbitrator(person):
    return person(Role.ARBITRATOR, username="reviewer-1")


@pytest.fixture
def flagged(references):
    item = item_assembly.mcq_item_assemble(reference_id=references["CHAR_01"].pk, selector=False)
    return flag(item)


@pytest.fixture
def incomplete(references):
    params = mcq_assembly.AssemblyParams(relevance_min=0.2)
    return item_assembly.mcq_item_assemble(
        reference_id=references["CHAR_01"].pk, params=params, selector=False
    )


def distractor(item):
    return next(o.label for o in item.options.order_by("label") if not o.is_correct)


def test_revising_a_distractor_makes_a_new_version_that_is_screened_again(
    flagged, arbitrator, judge, eager_celery, django_capture_on_commit_callbacks
):
    label = distractor(flagged)
    judge.enqueue(json_reply(verdict(flagged) | {"item_version": 2}))
    with django_capture_on_commit_callbacks(execute=True):
        decision = item_review.mcq_review_decide(
            item_id=flagged.pk,
            reviewer=arbitrator,
            action=A.REVISE_DISTRACTOR,
            version=1,
            label=label,
            content="I water the plants early on Saturday and then join Mom at the park.",
            note="R2: two distractors said the same",
        )
    flagged.refresh_from_db()
    assert flagged.version == 2
    assert decision.reviewer == arbitrator and decision.item_version.number == 1
    assert decision.result_version.number == 2
    assert decision.result_version.origin == McqItemVersion.Origin.REVIEW
    assert decision.screening.outcome == McqScreening.Outcome.FLAGGED
    # The revised item went to the judge in full, as version 2, and passed.
    prompt = judge.requests[0].turns()[-1][1]
    assert '"item_version": 2' in prompt and "early on Saturday" in prompt
    latest = flagged.screenings.order_by("-created_at").first()
    assert latest.item_version.number == 2 and latest.outcome == McqScreening.Outcome.PASSED
    assert flagged.status == McqItem.Status.FINAL


def test_replacing_a_distractor_with_a_generated_one_flags_it_as_generated(flagged, arbitrator):
    label = distractor(flagged)
    item_review.mcq_review_decide(
        item_id=flagged.pk,
        reviewer=arbitrator,
        action=A.GENERATE_DISTRACTOR,
        version=1,
        label=label,
        content="I ask my older cousin to water the plants and I go to the park.",
    )
    option = flagged.options.get(label=label)
    assert option.is_generated and option.source_reference is None
    assert flagged.versions.get(number=2).options[ord(label) - 65]["is_generated"] is True


def test_completing_an_item_adds_options_until_four_then_screens(
    incomplete, arbitrator, references
):
    assert incomplete.options.count() == 3
    item_review.mcq_review_decide(
        item_id=incomplete.pk,
        reviewer=arbitrator,
        action=A.GENERATE_DISTRACTOR,
        version=1,
        content="I leave a note for my teacher and go to the park with Mom.",
    )
    incomplete.refresh_from_db()
    options = list(incomplete.options.order_by("label"))
    assert [o.label for o in options] == ["A", "B", "C", "D"]
    assert incomplete.status == McqItem.Status.SCREENING and incomplete.version == 2
    assert sum(o.is_generated for o in options) == 1
    key = incomplete.options.get(is_correct=True)
    assert key.label == incomplete.correct_answer and key.source_reference == references["CHAR_01"]


def test_retaining_needs_a_note_and_finalizes_without_a_new_version(flagged, arbitrator):
    with pytest.raises(McqError, match="Give a note"):
        item_review.mcq_review_decide(
            item_id=flagged.pk, reviewer=arbitrator, action=A.RETAIN, version=1
        )
    assert not McqReviewDecision.objects.exists()
    item_review.mcq_review_decide(
        item_id=flagged.pk,
        reviewer=arbitrator,
        action=A.RETAIN,
        version=1,
        note="Both options differ in stance; the flag does not hold.",
    )
    flagged.refresh_from_db()
    assert flagged.status == McqItem.Status.FINAL and flagged.version == 1


def test_removing_keeps_the_item_and_records_the_decision(flagged, arbitrator):
    item_review.mcq_review_decide(
        item_id=flagged.pk, reviewer=arbitrator, action=A.REMOVE, version=1, note="Unfixable."
    )
    flagged.refresh_from_db()
    assert flagged.status == McqItem.Status.REMOVED and flagged.options.count() == 4
    assert McqReviewDecision.objects.get().action == A.REMOVE


def test_a_stale_page_is_refused(flagged, arbitrator):
    item_review.mcq_review_decide(
        item_id=flagged.pk,
        reviewer=arbitrator,
        action=A.GENERATE_DISTRACTOR,
        version=1,
        label=distractor(flagged),
        content="I hide the invitation and water the plants.",
    )
    McqItem.objects.filter(pk=flagged.pk).update(status=McqItem.Status.FLAGGED)
    with pytest.raises(McqError, match="changed since you opened it"):
        item_review.mcq_review_decide(
            item_id=flagged.pk, reviewer=arbitrator, action=A.REMOVE, version=1, note="x"
        )


def test_the_key_cannot_be_revised_as_a_distractor(flagged, arbitrator):
    with pytest.raises(McqError, match="is the key"):
        item_review.mcq_review_decide(
            item_id=flagged.pk,
            reviewer=arbitrator,
            action=A.REVISE_DISTRACTOR,
            version=1,
            label=flagged.correct_answer,
            content="Anything.",
        )
    assert flagged.versions.count() == 1


def test_reconstructing_reassembles_from_the_current_references(flagged, arbitrator):
    before = {o.source_reference_id for o in flagged.options.all()}
    item_review.mcq_review_decide(
        item_id=flagged.pk, reviewer=arbitrator, action=A.RECONSTRUCT, version=1, note="redo"
    )
    flagged.refresh_from_db()
    after = {o.source_reference_id for o in flagged.options.all()}
    # Four plausible distractors exist and three were used: the unused one comes in.
    assert len(after - before) == 1 and flagged.version == 2
    assert flagged.seed == mcq_assembly.derive_seed(
        item_assembly.ASSEMBLY_BASE_SEED, flagged.question_id, 2
    )
    assert flagged.versions.get(number=1).seed != flagged.seed


# --- Pages --------------------------------------------------------------------------------


def test_the_queue_and_item_pages_are_for_reviewers_only(client, flagged, person):
    for role in (Role.PRIMARY_ANNOTATOR, Role.AUDIT_EXPERT, Role.BASELINE_PARTICIPANT):
        client.force_login(person(role))
        for url in (
            reverse("mcq:queue"),
            reverse("mcq:item", args=[flagged.pk]),
            reverse("mcq-api:queue"),
        ):
            assert client.get(url).status_code == 403, (role, url)


def test_no_page_shows_the_judges_or_references_model(client, flagged, arbitrator):
    client.force_login(arbitrator)
    for url in (
        reverse("mcq:queue"),
        reverse("mcq:item", args=[flagged.pk]),
        reverse("mcq-api:queue"),
        reverse("mcq:queue-csv"),
    ):
        body = client.get(url).content.decode()
        assert "zqx-claude-provenance" not in body and "anthropic" not in body.lower()


def test_the_item_page_shows_assessments_checks_and_anchors(client, flagged, arbitrator):
    client.force_login(arbitrator)
    body = client.get(reverse("mcq:item", args=[flagged.pk])).content.decode()
    assert "concern under R2" in body  # the issue
    assert "trusted you with the class plants" in body  # an evidence anchor
    assert "left out: too similar to the key" in body and "left out: off the scenario" in body


def test_a_review_form_error_leaves_the_item_unchanged(client, flagged, arbitrator):
    client.force_login(arbitrator)
    response = client.post(
        reverse("mcq:item", args=[flagged.pk]), {"action": "remove", "version": 1, "note": ""}
    )
    assert response.status_code == 200 and "Give a note" in response.content.decode()
    flagged.refresh_from_db()
    assert flagged.status == McqItem.Status.FLAGGED and not McqReviewDecision.objects.exists()


def test_the_queue_page_runs_constant_queries(client, arbitrator, django_assert_num_queries):
    client.force_login(arbitrator)
    url = reverse("mcq:queue")

    def add(n):
        for i in range(n):
            target = scenario_with_references(add.next + i)
            flag(item_assembly.mcq_item_assemble(reference_id=target.pk, selector=False))
        add.next += n

    add.next = 0
    add(2)
    client.get(url)  # warm the session and the role cache of this client
    # session, user, roles, items, screenings, status counts, key distribution
    with django_assert_num_queries(8) as few:  # 7, and whether a recall audit is open
        assert client.get(url).content.decode().count('data-testid="queue-row"') == 2
    add(5)
    with django_assert_num_queries(len(few.captured_queries)):
        assert client.get(url).content.decode().count('data-testid="queue-row"') == 7


def test_the_home_card_counts_flagged_and_incomplete_items(flagged, arbitrator, person):
    from adjudication.mcq.selectors import mcq_home_queues

    card = mcq_home_queues(user=arbitrator)["mcq_item_review"]
    assert card["count"] == 1 and card["url"] == reverse("mcq:queue")
    assert mcq_home_queues(user=person(Role.PRIMARY_ANNOTATOR)) == {}


def test_the_construction_export_gets_screening_and_review_sections(flagged, arbitrator):
    from adjudication.export.chain import chain_sections

    item_review.mcq_review_decide(
        item_id=flagged.pk, reviewer=arbitrator, action=A.RETAIN, version=1, note="holds"
    )
    sections = dict(chain_sections())
    screening = sections["screening"]([flagged])[flagged.pk]
    review = sections["item_review"]([flagged])[flagged.pk]
    assert [s["outcome"] for s in screening] == ["flagged"]
    assert screening[0]["output"]["checks"][1] == {
        "rule_id": "R2",
        "status": "flag",
        "comment": "R2 comment",
    }
    assert review == [
        {
            "action": "retain",
            "item_version": 1,
            "result_version": None,
            "reviewer": "reviewer-1",
            "note": "holds",
            "decided_at": review[0]["decided_at"],
        }
    ]
    assert sections["screening"]([flagged]) == sections["screening"]([flagged])


def test_the_queue_api_lists_flagged_and_incomplete_items(client, arbitrator, incomplete):
    other = flag(
        item_assembly.mcq_item_assemble(reference_id=scenario_with_references(9).pk, selector=False)
    )
    client.force_login(arbitrator)
    rows = client.get(reverse("mcq-api:queue")).json()["results"]
    assert [
        (r["question_id"], r["status"], r["options"], r["screening_outcome"]) for r in rows
    ] == [
        (other.question_id, "flagged", 4, "flagged"),
        (incomplete.question_id, "needs_completion", 3, None),
    ]
    assert rows[0]["concerns"] == ["R2"]
