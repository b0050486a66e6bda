"""The memory-content ablation C0–C3 (seed 000 §3, Table 3, App. H) as evaluation settings:
each condition's prompt, as the fake provider server receives it over HTTP, carries
exactly the memories the condition names and nothing else changes."""

import pytest

from annotation.corpus.models import Memory
from evaluation import services
from evaluation.models import EvaluationRun, Setting

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]

BLOCK = "## Retrieved autobiographical memories\n"


@pytest.fixture
def themed(corpus):
    """Scenario 1 is about a volcano, scenario 2 about a lighthouse; each character's
    memory 3 tells of a volcano and memory 2 of a lighthouse, so BM25 with k = 1 picks
    memory 3 for scenario 1 and memory 2 for scenario 2."""
    words = {2: "lighthouse lighthouse keeper", 3: "volcano volcano eruption"}
    for memory in Memory.objects.filter(sequence__in=words):
        memory.content_full += " " + words[memory.sequence]
        memory.save(update_fields=["content_full"])
    first, second = corpus["scenarios"]
    for scenario, word in ((first, "volcano"), (second, "lighthouse")):
        scenario.context_text = f"You stand near the {word} and must decide now."
        scenario.save(update_fields=["context_text"])
    return corpus


@pytest.fixture
def always_a(fake_model):
    fake_model.responder = lambda req: {"decision_choice": "A", "final_decision": "I do A."}
    return fake_model


def sent_block(server, run) -> str:
    """The memory block of the one prompt the fake server received for ``run``."""
    (prediction,) = run.predictions.all()
    texts = [text for r in server.requests for role, text in r.turns() if role == "user"]
    (text,) = [t for t in texts if t == prediction.user_prompt]
    assert prediction.status == "answered"
    return text.split(BLOCK)[1].split("\n\n## Current scenario")[0]


def entry(memory, shown_id=None) -> str:
    return f"- [{shown_id or memory.anonymized_id}][{memory.timeline}] {memory.content_full}"


def launch(admin, setting, item, capture, k=1) -> EvaluationRun:
    run = services.evaluation_run_create(
        created_by=admin, provider_key="fake", setting=setting, items=[item], k=k
    )
    with capture(execute=True):
        services.evaluation_run_start(run_id=run.pk)
    run.refresh_from_db()
    return run


def test_c0_shows_the_characters_memories_retrieved_for_this_scenario(
    admin_user, themed, always_a, django_capture_on_commit_callbacks
):
    """Seed 000 §3 / App. H, C0: target-character memories retrieved for the target
    scenario, the very strings Naive-RAG shows."""
    item = themed["items"][0]  # CHAR_01 in scenario 1 (volcano)
    capture = django_capture_on_commit_callbacks
    c0 = launch(admin_user, Setting.ABLATION_C0, item, capture)
    own = Memory.objects.get(character=item.character, sequence=3)
    assert sent_block(always_a, c0) == entry(own)
    naive = launch(admin_user, Setting.NAIVE_RAG, item, capture)
    assert c0.predictions.get().user_prompt == naive.predictions.get().user_prompt


def test_c1_shows_the_characters_memories_retrieved_for_another_same_bin_scenario(
    admin_user, themed, always_a, django_capture_on_commit_callbacks
):
    """Seed 000 §3 / App. H, C1: target-character memories from another same-bin
    scenario: the query is scenario 2's (lighthouse), the memories CHAR_01's."""
    item = themed["items"][0]
    run = launch(admin_user, Setting.ABLATION_C1, item, django_capture_on_commit_callbacks)
    own = Memory.objects.get(character=item.character, sequence=2)
    assert sent_block(always_a, run) == entry(own)
    rset = run.predictions.get().retrieval_set
    assert rset.query.startswith("Scenario: Scenario 2\n") and "lighthouse" in rset.query
    # the rest of the prompt is still about the item's own scenario
    assert "Scenario: Scenario 1\n" in run.predictions.get().user_prompt


def test_c2_shows_another_characters_memories_for_this_scenario(
    admin_user, themed, always_a, django_capture_on_commit_callbacks
):
    """Seed 000 §3 / App. H, C2: another character's memories for the target scenario,
    shown under the target character's number so no id tells them apart."""
    item = themed["items"][0]
    run = launch(admin_user, Setting.ABLATION_C2, item, django_capture_on_commit_callbacks)
    donor = Memory.objects.get(character__key="CHAR_02", sequence=3)
    assert sent_block(always_a, run) == entry(donor, shown_id="MEM_CHAR_01_0003")
    prediction = run.predictions.get()
    assert prediction.retrieval_set.entries.get().memory == donor
    assert "CHAR_02" not in prediction.user_prompt and not prediction.leak_reasons


def test_c3_shows_a_random_sample_of_the_characters_eligible_memories(
    admin_user, themed, always_a, django_capture_on_commit_callbacks
):
    """Seed 000 §3 / App. H, C3: target-character memories sampled at random (k of the
    memories at or before the scenario age), the same sample on every run."""
    item = themed["items"][0]
    capture = django_capture_on_commit_callbacks
    run = launch(admin_user, Setting.ABLATION_C3, item, capture, k=2)
    entries = list(run.predictions.get().retrieval_set.entries.order_by("rank"))
    assert len(entries) == 2
    eligible = Memory.objects.filter(character=item.character, event_age__lte=10)
    assert {e.memory for e in entries} <= set(eligible)
    assert sent_block(always_a, run) == "\n".join(entry(e.memory) for e in entries)
    again = launch(admin_user, Setting.ABLATION_C3, item, capture, k=2)
    assert again.predictions.get().user_prompt == run.predictions.get().user_prompt
    # other items draw their own samples
    samples = set()
    for other in themed["items"][1:4]:
        other_run = launch(admin_user, Setting.ABLATION_C3, other, capture, k=2)
        entries = other_run.predictions.get().retrieval_set.entries.order_by("rank")
        samples.add(tuple(e.memory.sequence for e in entries))
    assert len(samples) > 1
