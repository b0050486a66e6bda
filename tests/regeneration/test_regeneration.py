"""Regeneration (issue #22): an arbitrator who finds all three candidates unusable but
the pair suitable asks for new ones with guidance; a generation run for that pair alone
(through a real Celery worker and the fake provider on loopback) writes them, and a
second blind round with fresh letters is judged, routed and arbitrated. Both rounds stay
in the record and in the construction export's chain."""

import threading
import time
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from adjudication.arbitration import services
from adjudication.arbitration.models import ArbitrationDecision, ReferenceResponse
from adjudication.consensus.services import pairs_assign
from adjudication.export.chain import chain_sections
from annotation.comparison import services as comparison_services
from annotation.comparison.models import ComparisonPair, PairAssignment
from annotation.comparison.services import ComparisonError
from annotation.generation.models import Candidate, GenerationRun
from annotation.generation.prompts import GUIDANCE_FOOTER, GUIDANCE_HEADER
from annotation.generation.selectors import generation_run_progress
from annotation.generation.services.runs import generation_run_create, generation_run_start
from core.roles import Role
from tests.comparison.helpers import assign, judge, make_pair, people
from tests.factories import UserFactory
from tests.generation.helpers import VALID_RESPONSE, frozen_character, scenario, worker_env

WAIT_SECONDS = 180
GUIDANCE = "Every candidate ignores the promise to the teacher; the response must keep it."
REGENERATED = {
    **VALID_RESPONSE,
    "final_decision": "I water the plants first, then I ride to the park and tell Mom why.",
}


def wait_finished(run, worker):
    deadline = time.monotonic() + WAIT_SECONDS
    done = (GenerationRun.Status.FINISHED, GenerationRun.Status.FINISHED_WITH_FAILURES)
    while True:
        run.refresh_from_db()
        if run.status in done:
            return run
        assert time.monotonic() < deadline, (
            f"waited {WAIT_SECONDS}s: {generation_run_progress(run_id=run.pk)}"
        )
        assert worker.poll() is None, "the worker process died"
        time.sleep(0.2)


class GuidedResponder:
    """The scripted provider, keeping every response prompt; a prompt carrying the
    guidance block is answered with a different response."""

    def __init__(self, script):
        self.script, self.prompts, self._lock = script, [], threading.Lock()

    def __call__(self, req):
        answer = self.script(req)
        if answer == VALID_RESPONSE:
            user = "\n".join(text for role, text in req.turns() if role == "user")
            with self._lock:
                self.prompts.append(user)
            if GUIDANCE_HEADER in user:
                return REGENERATED
        return answer


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_regenerated_pair_goes_through_a_second_blind_round_and_the_export_shows_both(
    celery_worker_factory, providers, fake_server, script, client
):
    responder = GuidedResponder(script)
    fake_server.responder = responder
    worker = celery_worker_factory(extra_env=worker_env(fake_server, timeout=5.0))
    who = people()
    admin, arbitrator, annotators = who["admin"], who["arbitrator"], who["annotators"]
    frozen_character("CHAR_01", ages=[6, 7, 8])
    scenario("SCN_SCHOOL_AGE_1", age=10)

    first_run = generation_run_create(user=admin, families=["claude", "gpt", "gemini"])
    generation_run_start(run_id=first_run.pk)
    wait_finished(first_run, worker)
    [first] = comparison_services.comparison_pairs_create(user=admin, run_id=first_run.pk)
    assert first.round == 1
    a = list(assign(first, annotators, admin).values())
    for assignment in a:
        judge(assignment, family="claude", rating="partial", guidance="Keep the promise.")
    first.refresh_from_db()
    assert first.status == ComparisonPair.Status.ESCALATED

    decision = services.arbitration_regenerate(
        pair_id=first.pk, arbitrator=arbitrator, guidance=GUIDANCE
    )
    first.refresh_from_db()
    assert decision.kind == ArbitrationDecision.Kind.REGENERATE
    assert decision.reason == GUIDANCE
    assert first.status == ComparisonPair.Status.REGENERATING
    run = first.regeneration_run
    assert run.guidance == GUIDANCE
    assert run.units.count() == 3  # this pair alone, the same three families
    assert set(run.units.values_list("family", flat=True)) == {"claude", "gpt", "gemini"}

    # No dead end: the assignment page names the regeneration waiting for its round.
    client.force_login(admin)
    page = client.get(reverse("comparison:assign")).content.decode()
    assert 'data-testid="regenerations-waiting"' in page
    assert f"generation run {run.pk}" in page

    wait_finished(run, worker)
    guided = [p for p in responder.prompts if GUIDANCE_HEADER in p]
    assert len(guided) == 3
    assert all(f"{GUIDANCE_HEADER}\n{GUIDANCE}\n{GUIDANCE_FOOTER}" in p for p in guided)
    assert sum(GUIDANCE_HEADER not in p for p in responder.prompts) == 3  # round 1's

    [second] = comparison_services.comparison_pairs_create(user=admin, run_id=run.pk)
    assert comparison_services.comparison_pairs_create(user=admin, run_id=run.pk) == []
    assert (second.round, second.previous_round_id) == (2, first.pk)
    new_candidates = set(second.candidates.values_list("pk", flat=True))
    assert new_candidates == set(Candidate.objects.filter(run=run).values_list("pk", flat=True))
    assert not new_candidates & set(first.candidates.values_list("pk", flat=True))
    assert set(second.candidates.values_list("final_decision", flat=True)) == {
        REGENERATED["final_decision"]
    }

    # The round-1 arbitrator may not judge round 2; three other annotators do.
    with pytest.raises(ComparisonError, match="nobody judges a pair they arbitrate"):
        pairs_assign(
            user=admin,
            pair_ids=[second.pk],
            annotator_ids=[annotators[0].pk, annotators[1].pk, arbitrator.pk],
        )
    b = list(assign(second, annotators, admin).values())
    # Fresh letters: each annotator's permutation is over the new candidates only.
    assert all(set(x.permutation) == new_candidates for x in b)
    judge(b[0], family="gpt")
    judge(b[1], family="gpt")
    judge(b[2], family="gemini", rating="partial", guidance="Say why to Mom.")
    second.refresh_from_db()
    assert second.status == ComparisonPair.Status.ESCALATED

    other = people_arbitrator()
    resolved = services.arbitration_resolve(
        pair_id=second.pk,
        arbitrator=other,
        kind="adopted",
        candidate_id=second.candidates.get(family="gpt").pk,
    )
    reference = ReferenceResponse.objects.get(superseded_at__isnull=True)
    assert resolved.reference == reference
    assert reference.final_decision == REGENERATED["final_decision"]
    first.refresh_from_db()
    assert first.status == ComparisonPair.Status.REGENERATING  # round 1 stays in the record

    # The construction chain shows both rounds.
    item = SimpleNamespace(pk=1, character_id=first.character_id, scenario_id=first.scenario_id)
    chain = {name: fn([item])[1] for name, fn in chain_sections() if fn([item]).get(1)}
    comparison = chain["comparison"]
    assert (comparison["round"], comparison["pair_id"], comparison["status"]) == (
        2,
        second.pk,
        "resolved",
    )
    assert comparison["previous_round"] == first.pk
    [earlier] = comparison["earlier_rounds"]
    assert (earlier["round"], earlier["status"], earlier["regeneration_run"]) == (
        1,
        "regenerating",
        run.pk,
    )
    assert len(earlier["assignments"]) == 3 and len(comparison["assignments"]) == 3
    kinds = [(d["round"], d["kind"], d["reason"]) for d in chain["arbitration"]]
    assert kinds == [(1, "regenerate", GUIDANCE), (2, "adopted", "")]
    assert chain["arbitration"][0]["regeneration_run"] == run.pk
    rounds = {c["id"]: c["round"] for c in chain["candidates"]}
    assert sorted(rounds.values()) == [1, 1, 1, 2, 2, 2]
    assert {c["run"]["guidance"] for c in chain["candidates"] if c["round"] == 2} == {GUIDANCE}


def people_arbitrator():
    return UserFactory(username="second-arbitrator", roles=[Role.ARBITRATOR])


# --- refusals (no worker: the run is never started) ------------------------------------


@pytest.fixture
def escalated(db):
    who = people()
    pair = make_pair()
    a = list(assign(pair, who["annotators"], who["admin"]).values())
    judge(a[0], family="claude", rating="partial", guidance="Name the teacher.")
    judge(a[1], family="gpt")
    judge(a[2], family="gemini")
    pair.refresh_from_db()
    assert pair.status == "escalated"
    return {**who, "pair": pair}


def test_regeneration_needs_guidance_within_the_limit(escalated):
    pair, arbitrator = escalated["pair"], escalated["arbitrator"]
    with pytest.raises(services.ArbitrationError, match="Give the guidance"):
        services.arbitration_regenerate(pair_id=pair.pk, arbitrator=arbitrator, guidance="  ")
    too_long = "x" * (services.REGENERATION_GUIDANCE_MAX_CHARS + 1)
    with pytest.raises(
        services.ArbitrationError, match="Guidance for regeneration is limited to 2,000 characters"
    ):
        services.arbitration_regenerate(pair_id=pair.pk, arbitrator=arbitrator, guidance=too_long)
    assert not ArbitrationDecision.objects.exists()
    assert not GenerationRun.objects.exists()


def test_only_an_arbitrator_who_did_not_judge_it_asks_for_regeneration(escalated):
    pair = escalated["pair"]
    for user in (escalated["admin"], escalated["annotators"][0]):
        with pytest.raises(services.ArbitrationError, match="Only an arbitrator"):
            services.arbitration_regenerate(pair_id=pair.pk, arbitrator=user, guidance=GUIDANCE)
    judge_and_arbitrator = escalated["annotators"][1]
    judge_and_arbitrator.groups.add(Group.objects.get(name=Role.ARBITRATOR.value))
    with pytest.raises(services.ArbitrationError, match="You judged"):
        services.arbitration_regenerate(
            pair_id=pair.pk, arbitrator=judge_and_arbitrator, guidance=GUIDANCE
        )
    assert not GenerationRun.objects.exists()


def test_regeneration_is_refused_on_a_pair_not_escalated(db):
    who = people()
    pair = make_pair()
    with pytest.raises(services.ArbitrationError, match="not awaiting arbitration"):
        services.arbitration_regenerate(
            pair_id=pair.pk, arbitrator=who["arbitrator"], guidance=GUIDANCE
        )
    assert PairAssignment.objects.count() == 0
    assert not GenerationRun.objects.exists()


def test_the_arbitration_page_asks_for_regeneration_with_a_confirmation(escalated, client):
    pair, arbitrator = escalated["pair"], escalated["arbitrator"]
    client.force_login(arbitrator)
    url = reverse("adjudication:pair", args=[pair.pk])
    page = client.get(url).content.decode()
    assert 'value="regenerate"' in page
    assert 'name="guidance"' in page
    assert "data-confirm-regenerate=" in page and "This cannot be undone" in page
    response = client.post(url, {"kind": "regenerate", "guidance": "", "decide": "1"})
    assert "Give the guidance" in response.content.decode()
    assert not GenerationRun.objects.exists()
