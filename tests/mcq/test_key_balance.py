"""Answer keys are balanced (seed 000 §2.4 Stage 3): each assembly run places its keys so
that the counts per option label differ by at most one, seeded by the run's recorded
seed; a completed item's key goes where its run has the fewest; imported items keep their
own keys; the items page shows the key distribution."""

import random

import pytest
from django.urls import reverse

from adjudication.mcq import assembly_rules as mcq_assembly
from adjudication.mcq.models import McqItem
from adjudication.mcq.selectors import key_distribution
from adjudication.mcq.services import item_assembly, item_review
from core.protocol import PROTOCOL_SEED
from core.roles import Role
from tests.factories import CharacterFactory, ScenarioFactory

from .conftest import scenario_with_references

pytestmark = pytest.mark.django_db


def spread(counts: dict) -> int:
    return max(counts.values()) - min(counts.values())


def run_assembly(admin, **kwargs):
    run = item_assembly.mcq_assembly_run_start(started_by=admin, dispatch=False, **kwargs)
    return item_assembly.mcq_assembly_run_execute(run_id=run.pk, selector=False)


def run_items(run):
    return McqItem.objects.filter(assembly_params__contains={"run": run.pk})


def test_the_pure_core_keeps_every_prefix_balanced_and_places_the_key():
    counts = dict.fromkeys("ABCD", 0)
    for n in range(101):
        label = mcq_assembly.balanced_key_label(counts, seed=n)
        counts[label] += 1
        assert spread(counts) <= 1
    sources = [mcq_assembly.OptionSource("key", "CHAR_01", 1, is_key=True)] + [
        mcq_assembly.OptionSource(f"d{i}", f"CHAR_0{i + 2}", i + 2) for i in range(3)
    ]
    for label in "ABCD":
        ordered = mcq_assembly.order_options(sources, seed=7, key_label=label)
        assert [o.label for o in ordered] == list("ABCD")
        assert next(o.label for o in ordered if o.is_correct) == label
        assert sorted(o.content for o in ordered) == ["d0", "d1", "d2", "key"]


def test_a_run_balances_its_keys_with_its_recorded_seed(person):
    for n in range(1, 4):
        scenario_with_references(n)
    admin = person(Role.ADMIN)
    run = run_assembly(admin)
    assert run.seed == PROTOCOL_SEED
    placed = run_items(run).exclude(status=McqItem.Status.NEEDS_COMPLETION)
    counts = key_distribution(placed)
    assert sum(counts.values()) == placed.count() >= 12
    assert spread(counts) <= 1, counts
    for item in placed:
        assert item.assembly_params["base_seed"] == run.seed
        assert item.seed == mcq_assembly.derive_seed(run.seed, item.question_id)
        assert item.assembly_params["key_balance"]["key_label"] == item.correct_answer
    # The recorded seed places the same keys again; another seed places others.
    keys = dict(run_items(run).values_list("question_id", "correct_answer"))
    McqItem.objects.all().delete()
    again = run_assembly(admin)
    assert dict(run_items(again).values_list("question_id", "correct_answer")) == keys
    McqItem.objects.all().delete()
    other = run_assembly(admin, seed=PROTOCOL_SEED + 1)
    other_keys = dict(run_items(other).values_list("question_id", "correct_answer"))
    assert other.seed == PROTOCOL_SEED + 1 and other_keys != keys
    assert spread(key_distribution(run_items(other))) <= 1


def test_imported_items_keep_their_own_keys_and_stay_out_of_a_runs_balance(person):
    scenario = ScenarioFactory()
    imported = McqItem.objects.create(
        question_id="Q_CHAR_09_RELEASE",
        character=CharacterFactory(key="CHAR_09"),
        scenario=scenario,
        stage=scenario.stage,
        correct_answer="D",
        source="release",
    )
    scenario_with_references(1)
    run = run_assembly(person(Role.ADMIN))
    imported.refresh_from_db()
    assert imported.correct_answer == "D" and imported.assembly_params == {}
    assert spread(key_distribution(run_items(run))) <= 1
    assert key_distribution(McqItem.objects.filter(source="release")) == {
        "A": 0,
        "B": 0,
        "C": 0,
        "D": 1,
    }
    assert key_distribution([imported, {"correct_answer": "B"}]) == {"A": 0, "B": 1, "C": 0, "D": 1}


def test_completing_an_item_puts_its_key_where_its_batch_has_fewest(references, person):
    reviewer = person(Role.ARBITRATOR)
    for key in ("CHAR_04", "CHAR_05", "CHAR_06"):
        item_assembly.mcq_item_assemble(reference_id=references[key].pk, selector=False)
    incomplete = item_assembly.mcq_item_assemble(
        reference_id=references["CHAR_01"].pk,
        params=mcq_assembly.AssemblyParams(relevance_min=0.2),
        selector=False,
    )
    assert incomplete.status == McqItem.Status.NEEDS_COMPLETION
    before = item_assembly.batch_key_counts({"run": None})
    assert sum(before.values()) == 3 and spread(before) <= 1
    item_review.mcq_review_decide(
        item_id=incomplete.pk,
        reviewer=reviewer,
        action="generate_distractor",
        version=incomplete.version,
        content="I hide the watering can and tell nobody about the plants or the trip.",
    )
    incomplete.refresh_from_db()
    assert incomplete.options.count() == 4
    assert before[incomplete.correct_answer] == min(before.values())
    assert spread(item_assembly.batch_key_counts({"run": None})) <= 1


def test_the_items_page_shows_the_key_distribution_in_constant_queries(
    client, person, django_assert_num_queries
):
    scenario = ScenarioFactory()

    def final_item(n, key):
        return McqItem.objects.create(
            question_id=f"Q_CHAR_{n:02d}_KEYS",
            character=CharacterFactory(key=f"CHAR_{n:02d}"),
            scenario=scenario,
            stage=scenario.stage,
            correct_answer=key,
        )

    final_item(11, "D")
    final_item(12, "D")
    final_item(13, "A")
    client.force_login(person(Role.ARBITRATOR))
    url = reverse("mcq:queue")
    client.get(url)
    with django_assert_num_queries(7) as few:  # 6, and whether a recall audit is open
        body = client.get(url).content.decode()
    assert "Answer keys, final set: A 1 · B 0 · C 0 · D 2" in body
    for n, key in zip(range(14, 20), random.Random(1).choices("ABCD", k=6), strict=True):
        final_item(n, key)
    with django_assert_num_queries(len(few.captured_queries)):
        body = client.get(url).content.decode()
    shown = key_distribution(McqItem.objects.all())
    assert "final set: " + " · ".join(f"{k} {v}" for k, v in shown.items()) in body
