"""The blinded comparison: assignment, permutations, the guideline's validation,
idempotent submit, revision history, drafts and routing (seed 000 App. D.2)."""

import pytest
from django.urls import reverse

from adjudication.arbitration.models import ReferenceResponse
from annotation.comparison import services
from annotation.comparison.models import (
    COMPARISON_LETTERS,
    ComparisonJudgment,
    ComparisonJudgmentVersion,
    ComparisonPair,
    PairAssignment,
)
from core.protocol import ANNOTATORS_PER_PAIR
from core.roles import Role
from tests.factories import UserFactory

from .helpers import assign, judge, make_pair, people

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup():
    who = people()
    pair = make_pair()
    return {**who, "pair": pair, "assignments": assign(pair, who["annotators"], who["admin"])}


def test_default_assignment_gives_each_pair_to_the_same_three_with_a_stored_permutation(setup):
    rows = list(PairAssignment.objects.filter(pair=setup["pair"]))
    assert len(rows) == 3
    candidate_ids = set(setup["pair"].candidates.values_list("pk", flat=True))
    for row in rows:
        assert set(row.permutation) == candidate_ids and len(row.permutation) == 3
    # Reassigning changes nothing: the permutation is stable.
    before = {r.pk: r.permutation for r in rows}
    assign(setup["pair"], setup["annotators"], setup["admin"])
    assert {r.pk: r.permutation for r in PairAssignment.objects.all()} == before


def test_each_pair_goes_to_three_distinct_annotators_and_batches_are_configurable():
    who = people()
    fourth = UserFactory(username="cmp-annotator-4", roles=[Role.PRIMARY_ANNOTATOR])
    pairs = [make_pair(key=f"CHAR_5{i}") for i in range(4)]
    created = services.comparison_assign(
        user=who["admin"],
        pair_ids=[p.pk for p in pairs],
        annotator_ids=[a.pk for a in [*who["annotators"], fourth]],
        batch_size=1,
    )
    assert created == 4 * ANNOTATORS_PER_PAIR
    for pair in pairs:
        annotators = list(pair.assignments.values_list("annotator", flat=True))
        assert len(annotators) == len(set(annotators)) == ANNOTATORS_PER_PAIR
    batches = sorted(
        PairAssignment.objects.filter(annotator=who["annotators"][0]).values_list(
            "batch", flat=True
        )
    )
    assert batches == list(range(1, len(batches) + 1))


def test_permutations_differ_across_annotators_and_pairs():
    """Randomized per annotator and pair: over many assignments, more than one order."""
    who = people()
    orders = set()
    for i in range(6):
        pair = make_pair(key=f"CHAR_6{i}")
        for a in assign(pair, who["annotators"], who["admin"]).values():
            families = dict(pair.candidates.values_list("pk", "family"))
            orders.add(tuple(families[pk] for pk in a.permutation))
    assert len(orders) > 1


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ({"suitability": ""}, "Step 1: decide whether the pair is suitable"),
        ({"suitability": "flagged"}, "Provide a brief reason for every flag"),
        ({"selected_letter": ""}, "select the strongest candidate (A, B, or C)"),
        ({"rating": ""}, "acceptable as-is or acceptable with partial revisions"),
        ({"selection_rationale": ""}, "rationale for your candidate selection"),
        ({"rating": "partial"}, "concrete written guidance"),
    ],
)
def test_the_guideline_is_enforced_with_its_own_words(setup, content, message):
    valid = {
        "suitability": "suitable",
        "selected_letter": "A",
        "rating": "as_is",
        "selection_rationale": "A fits.",
    }
    a = next(iter(setup["assignments"].values()))
    with pytest.raises(services.ComparisonError) as error:
        services.comparison_submit(
            public_id=a.public_id, annotator=a.annotator, content={**valid, **content}
        )
    assert any(message.lower() in m.lower() for m in error.value.messages)
    assert not ComparisonJudgment.objects.exists()


def test_double_submit_is_one_submission_and_revisions_keep_every_version(setup):
    a1, a2, _ = setup["assignments"].values()
    judge(a1, family="claude")
    judge(a1, family="claude")  # double click / retry
    assert ComparisonJudgment.objects.count() == 1
    assert ComparisonJudgmentVersion.objects.count() == 1
    judged = judge(a1, family="gpt")  # a revision before routing
    assert judged.version == 2
    assert ComparisonJudgmentVersion.objects.filter(judgment=judged).count() == 2
    assert judged.selected_candidate.family == "gpt"
    judge(a2, family="gpt")
    assert ComparisonPair.objects.get().status == "annotating"


def test_unanimous_as_is_adopts_the_candidate_directly(setup):
    for a in setup["assignments"].values():
        judge(a, family="gemini")
    pair = ComparisonPair.objects.get()
    assert pair.status == "adopted"
    ref = ReferenceResponse.objects.get(character=pair.character, superseded_at__isnull=True)
    assert ref.decision_type == "unanimous"
    assert ref.source_family == "gemini" and ref.word_edit_rate == 0.0
    assert ref.source_candidate.family == "gemini"
    # Routed: no more revisions.
    with pytest.raises(services.ComparisonError, match="routed"):
        judge(next(iter(setup["assignments"].values())), family="gpt")


@pytest.mark.parametrize(
    ("judgments", "reasons"),
    [
        ([("claude", "as_is", False)] * 2 + [("gpt", "as_is", False)], ["different candidates"]),
        ([("claude", "as_is", False)] * 2 + [("claude", "partial", False)], ["partial revisions"]),
        ([("claude", "as_is", False)] * 2 + [("claude", "as_is", True)], ["suitability flagged"]),
    ],
)
def test_anything_but_unanimity_escalates(setup, judgments, reasons):
    for a, (family, rating, flagged) in zip(setup["assignments"].values(), judgments, strict=True):
        judge(a, family=family, rating=rating, flagged=flagged, guidance="Cut the last clause.")
    pair = ComparisonPair.objects.get()
    assert pair.status == "escalated"
    assert [r for r in pair.escalation_reasons if any(x in r for x in reasons)]
    assert not ReferenceResponse.objects.filter(decision_type="unanimous").exists()


def test_annotator_pages_queue_draft_and_submit(client, setup):
    a = next(iter(setup["assignments"].values()))
    client.force_login(a.annotator)
    queue = client.get(reverse("comparison:queue")).content.decode()
    assert "0 submitted" in queue and "1 not started" in queue
    url = reverse("comparison:pair", kwargs={"assignment": a.public_id})
    assert client.get(url).status_code == 200
    draft = reverse("comparison:draft", kwargs={"assignment": a.public_id})
    saved = client.post(draft, {"selection_rationale": "half-written"}, HTTP_HX_REQUEST="true")
    assert "Draft saved at " in saved.content.decode()
    assert "1 with a draft" in client.get(reverse("comparison:queue")).content.decode()
    assert "half-written" in client.get(url).content.decode()
    bad = client.post(
        url,
        {
            "suitability": "suitable",
            "selected_letter": "A",
            "rating": "partial",
            "selection_rationale": "x",
        },
    )
    assert "concrete written guidance" in bad.content.decode()
    ok = client.post(
        url,
        {
            "suitability": "suitable",
            "selected_letter": "B",
            "rating": "as_is",
            "selection_rationale": "B.",
        },
    )
    # No other pair awaits this annotator: back to the queue.
    assert ok.status_code == 302 and ok["Location"] == reverse("comparison:queue")
    assert ComparisonJudgment.objects.get().selected_letter == "B"
    assert "1 submitted" in client.get(reverse("comparison:queue")).content.decode()


def test_another_annotators_assignment_is_not_found(client, setup):
    a1, a2, _ = setup["assignments"].values()
    client.force_login(a2.annotator)
    assert (
        client.get(reverse("comparison:pair", kwargs={"assignment": a1.public_id})).status_code
        == 404
    )


def test_markup_carries_no_candidate_id(client, setup):
    a = next(iter(setup["assignments"].values()))
    client.force_login(a.annotator)
    body = client.get(
        reverse("comparison:pair", kwargs={"assignment": a.public_id})
    ).content.decode()
    for pk in a.permutation:
        assert f'value="{pk}"' not in body and f"/{pk}/" not in body
    for letter in COMPARISON_LETTERS:
        assert f'data-letter="{letter}"' in body


def test_the_comparison_page_runs_constant_queries_whatever_the_memories(
    client, django_assert_max_num_queries, django_assert_num_queries
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    who = people()
    counts = []
    for key, n in (("CHAR_71", 1), ("CHAR_72", 50)):
        pair = make_pair(key=key, memories=n)
        a = assign(pair, who["annotators"], who["admin"])[who["annotators"][0].pk]
        client.force_login(a.annotator)
        url = reverse("comparison:pair", kwargs={"assignment": a.public_id})
        client.get(url)
        with CaptureQueriesContext(connection) as ctx:
            body = client.get(url).content.decode()
        assert body.count("<li data-memory ") == 3 * n
        counts.append(len(ctx.captured_queries))
    assert counts[0] == counts[1], counts
