"""A planted identity leak is caught when the pair is created; the pair waits (no
assignment, no queue) until the admin cleans the candidate (an edit recorded as such,
shown in the export's chain) or accepts the flag."""

import json

import pytest
from django.urls import reverse

from adjudication.consensus.services import pairs_assign
from adjudication.export.chain import chain_sections
from annotation.candidate_screening import services as screening
from annotation.candidate_screening.models import CandidateCleaning, LeakFlag
from annotation.candidate_screening.selectors import chain_candidate_cleaning
from annotation.comparison import selectors, services
from annotation.comparison.models import ComparisonJudgment, PairAssignment
from annotation.generation.models import Candidate, GenerationRun, PromptVersion
from tests.comparison.helpers import TEXTS, judge, people
from tests.factories import CharacterFactory, ProfileVersionFactory, ScenarioFactory

pytestmark = pytest.mark.django_db

LEAK = "As an AI model by OpenAI, I would stay behind and water the plants."


def make_run(admin, *, leak=LEAK):
    character = CharacterFactory(key="CHAR_77")
    version = ProfileVersionFactory(character=character, number=1)
    scenario = ScenarioFactory()
    prompt = {
        s: PromptVersion.objects.filter(stage=s).order_by("number").first()
        for s in ("screening", "reranking", "response")
    }
    run = GenerationRun.objects.create(
        created_by=admin,
        families=list(TEXTS),
        screening_prompt=prompt["screening"],
        reranking_prompt=prompt["reranking"],
        response_prompt=prompt["response"],
    )
    for family, (summary, decision) in TEXTS.items():
        Candidate.objects.create(
            run=run,
            character=character,
            scenario=scenario,
            family=family,
            model_name=f"model-{family}",
            profile_version=version,
            summary=summary,
            final_decision=leak if family == "gpt" else decision,
        )
    return run


@pytest.fixture
def world():
    who = people()
    run = make_run(who["admin"])
    (pair,) = services.comparison_pairs_create(user=who["admin"], run_id=run.pk)
    return {**who, "run": run, "pair": pair, "leaky": pair.candidates.get(family="gpt")}


def assign(world):
    return pairs_assign(
        user=world["admin"],
        pair_ids=[world["pair"].pk],
        annotator_ids=[a.pk for a in world["annotators"]],
    )


def test_the_planted_leak_is_caught_when_the_pair_is_created(world):
    (flag,) = LeakFlag.objects.all()
    assert flag.candidate == world["leaky"] and flag.status == "open"
    assert [(f["rule"], f["text"], f["start"]) for f in flag.findings] == [
        ("ai_self_reference", "As an AI", 0),
        ("model_name", "OpenAI", 18),
    ]
    assert selectors.waiting_flags([world["pair"]]) == {world["pair"].pk: [flag.pk]}


def test_a_waiting_pair_cannot_be_assigned_and_the_message_names_the_flag(world):
    flag = LeakFlag.objects.get()
    with pytest.raises(services.ComparisonError) as error:
        assign(world)
    assert f"leak flag {flag.pk}" in error.value.messages[0]
    assert not PairAssignment.objects.exists()


def test_a_pair_flagged_after_assignment_leaves_every_queue(world):
    screening.flag_accept(flag_id=LeakFlag.objects.get().pk, user=world["admin"], reason="x")
    assign(world)
    annotator = world["annotators"][0]
    assert len(selectors.comparison_queue(user=annotator).rows) == 1
    Candidate.objects.filter(pk=world["leaky"].pk).update(final_decision="I'm an assistant.")
    assert services.comparison_pairs_screen(user=world["admin"]) == 1
    assert not selectors.comparison_queue(user=annotator).rows.exists()
    assert selectors.comparison_home_queues(user=annotator)["comparison"]["count"] == 0


def test_a_pair_flagged_after_assignment_refuses_a_submission_until_released(world):
    flag = LeakFlag.objects.get()
    screening.flag_accept(flag_id=flag.pk, user=world["admin"], reason="x")
    assign(world)
    Candidate.objects.filter(pk=world["leaky"].pk).update(final_decision="I'm an assistant.")
    assert services.comparison_pairs_screen(user=world["admin"]) == 1
    assignment = PairAssignment.objects.filter(pair=world["pair"]).first()
    with pytest.raises(services.ComparisonError, match="on hold"):
        judge(assignment, family="claude")
    assert not ComparisonJudgment.objects.exists()
    reopened = LeakFlag.objects.get(status="open")
    screening.flag_accept(flag_id=reopened.pk, user=world["admin"], reason="not a leak")
    judge(assignment, family="claude")
    assert ComparisonJudgment.objects.count() == 1


def test_cleaning_is_recorded_rescreened_and_frees_the_pair(world):
    flag = LeakFlag.objects.get()
    cleaning = screening.flag_clean(
        flag_id=flag.pk,
        user=world["admin"],
        fields={"final_decision": "I would stay behind and water the plants."},
        reason="Removed the self-reference and the provider name.",
    )
    flag.refresh_from_db()
    assert flag.status == "cleaned" and flag.resolved_by == world["admin"]
    assert cleaning.before["final_decision"] == LEAK
    assert cleaning.after["final_decision"] == "I would stay behind and water the plants."
    assert cleaning.edited_by == world["admin"]
    world["leaky"].refresh_from_db()
    assert world["leaky"].final_decision == "I would stay behind and water the plants."
    assert not LeakFlag.objects.filter(status="open").exists()
    assert assign(world) == 3
    annotator = world["annotators"][0]
    assert len(selectors.comparison_queue(user=annotator).rows) == 1


def test_a_cleaning_that_leaves_a_leak_opens_a_new_flag(world):
    flag = LeakFlag.objects.get()
    screening.flag_clean(
        flag_id=flag.pk,
        user=world["admin"],
        fields={"final_decision": "Certainly! I would stay."},
        reason="Tried.",
    )
    (again,) = LeakFlag.objects.filter(status="open")
    assert again.pk != flag.pk and again.findings[0]["text"] == "Certainly!"
    with pytest.raises(services.ComparisonError):
        assign(world)


def test_accepting_needs_a_reason_and_frees_the_pair_and_a_rerun_keeps_it_free(world):
    flag = LeakFlag.objects.get()
    with pytest.raises(screening.ScreeningError):
        screening.flag_accept(flag_id=flag.pk, user=world["admin"], reason=" ")
    with pytest.raises(screening.ScreeningError):
        screening.flag_accept(flag_id=flag.pk, user=world["annotators"][0], reason="fine")
    screening.flag_accept(flag_id=flag.pk, user=world["admin"], reason="Quoted on purpose.")
    assert services.comparison_pairs_screen(user=world["admin"]) == 0
    assert assign(world) == 3


def test_the_export_chain_shows_the_cleaning(world):
    flag = LeakFlag.objects.get()
    screening.flag_clean(
        flag_id=flag.pk,
        user=world["admin"],
        fields={"final_decision": "I would stay."},
        reason="Provider name removed.",
    )
    assert ("candidate_cleaning", chain_candidate_cleaning) in chain_sections()

    class Item:
        pk = 1
        character_id = world["pair"].character_id
        scenario_id = world["pair"].scenario_id

    (entry,) = chain_candidate_cleaning([Item()])[1]
    assert entry["status"] == "cleaned" and entry["candidate"] == world["leaky"].pk
    assert entry["cleaning"]["before"]["final_decision"] == LEAK
    assert entry["cleaning"]["after"]["final_decision"] == "I would stay."
    assert entry["cleaning"]["reason"] == "Provider name removed."
    json.dumps(entry)  # exportable as it is
    assert CandidateCleaning.objects.count() == 1


def test_the_admin_pages_highlight_escaped_matches_and_clean(client, world):
    Candidate.objects.filter(pk=world["leaky"].pk).update(
        final_decision="<b>hi</b> As an AI, I stay."
    )
    LeakFlag.objects.all().delete()
    services.comparison_pairs_screen(user=world["admin"])
    flag = LeakFlag.objects.get()
    client.force_login(world["admin"])
    body = client.get(reverse("screening:flags")).content.decode()
    assert "&lt;b&gt;hi&lt;/b&gt;" in body and "<b>hi</b>" not in body
    assert '<mark data-testid="leak-match">As an AI</mark>' in body
    page = client.get(reverse("screening:flag", args=[flag.pk])).content.decode()
    assert "data-confirm=" in page
    response = client.post(
        reverse("screening:clean", args=[flag.pk]),
        {
            "summary": world["leaky"].summary,
            "emotional_tone": "",
            "core_reasoning": "",
            "final_decision": "I stay.",
            "reason": "Removed the self-reference.",
        },
    )
    assert response.status_code == 302
    flag.refresh_from_db()
    assert flag.status == "cleaned"
    assign_page = client.get(reverse("comparison:assign")).content.decode()
    assert "pair-waits" not in assign_page


def test_the_assignment_page_says_why_a_pair_waits_and_links_the_flag(client, world):
    flag = LeakFlag.objects.get()
    client.force_login(world["admin"])
    body = client.get(reverse("comparison:assign")).content.decode()
    assert 'data-testid="pair-waits"' in body
    assert reverse("screening:flag", args=[flag.pk]) in body


def test_annotators_never_reach_the_flag_pages(client, world):
    flag = LeakFlag.objects.get()
    client.force_login(world["annotators"][0])
    for url in (reverse("screening:flags"), reverse("screening:flag", args=[flag.pk])):
        assert client.get(url).status_code == 403
