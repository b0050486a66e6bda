"""The embedding retriever (seed 000 §3.1, App. E) against the fake server's
``/v1/embeddings`` route over real HTTP: cosine ranking checked against an independent
numpy computation, the per-memory-version vector cache reused across runs, a failing
endpoint marking items failed, and the run creation form offering it only when set."""

import hashlib
import re

import numpy as np
import pytest
from django.urls import reverse

from evaluation import services
from evaluation.models import EvaluationRun, MemoryEmbedding, RetrievalSet, Setting
from evaluation.retrieval import retrieve_for_item
from llm.testing.replies import Fault
from tests.export.conftest import make_item
from tests.factories import CharacterFactory, MemoryFactory, ScenarioFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]

EMBEDDING = RetrievalSet.Method.EMBEDDING
SIZE = 48


@pytest.fixture
def embedding_endpoint(fake_server, settings):
    settings.HEARTBENCH_EMBEDDING_BASE_URL = fake_server.base_url("embeddings")
    settings.HEARTBENCH_EMBEDDING_MODEL = "fake-embedding-a"
    settings.HEARTBENCH_EMBEDDING_DIMENSIONS = SIZE
    settings.HEARTBENCH_EMBEDDING_BATCH_SIZE = 3
    settings.HEARTBENCH_EMBEDDING_MAX_RETRIES = 0
    settings.HEARTBENCH_EMBEDDING_TIMEOUT = 5.0
    return fake_server


@pytest.fixture
def not_configured(settings):
    settings.HEARTBENCH_EMBEDDING_BASE_URL = ""
    settings.HEARTBENCH_EMBEDDING_MODEL = ""


def documented_vector(text, size=SIZE):
    """The fake server's documented rule, recomputed here: ±1 per word at sha256 % size."""
    vector = np.zeros(size)
    for token in re.findall(r"[^\W_]+", text.lower()):
        digest = hashlib.sha256(token.encode()).digest()
        vector[int(digest[:4].hex(), 16) % size] += -1 if digest[4] & 1 else 1
    return vector


def embedding_inputs(server):
    return [r.body["input"] for r in server.requests_for("embeddings")]


@pytest.fixture
def garden_item():
    character = CharacterFactory(key="CHAR_55")
    texts = [
        "Grandfather taught me to water the tomato plants in the garden every evening.",
        "I lost the school spelling contest and cried on the bus home.",
        "My teacher asked me to look after the classroom plants over the holidays.",
        "We moved to a new flat near the harbour when I was seven.",
        "I promised my teacher I would water the plants, then forgot the trip.",
        "A dog chased me through the park and I climbed a fence.",
        "The garden club gave me a badge for the plants I grew on the balcony.",
        "I broke my arm falling from the climbing frame at school.",
    ]
    memories = [
        MemoryFactory(character=character, sequence=n, event_age=6 + n % 4, content_full=text)
        for n, text in enumerate(texts, start=1)
    ]
    MemoryFactory(character=character, sequence=9, event_age=15, content_full=texts[0])  # later
    scenario = ScenarioFactory(scenario_id="SCN_SCHOOL_AGE_55", age=10)
    item = make_item(
        "SCN_SCHOOL_AGE_55__CHAR_55", character=character, scenario=scenario, status="final"
    )
    return item, memories


def test_the_ranking_is_cosine_similarity_as_numpy_computes_it(embedding_endpoint, garden_item):
    item, memories = garden_item
    rset = retrieve_for_item(item, method=EMBEDDING, k=5)
    assert (rset.embedding_model, rset.embedding_dimensions) == ("fake-embedding-a", SIZE)
    assert rset.eligible_count == 8  # the later memory is not eligible

    query = documented_vector(rset.query)
    expected = []
    for memory in memories:
        m = documented_vector(memory.content_full)
        expected.append((-np.dot(m, query) / (np.sqrt(m @ m) * np.sqrt(query @ query)), memory))
    expected.sort(key=lambda pair: (round(pair[0], 12), pair[1].event_age, pair[1].sequence))
    entries = list(rset.entries.order_by("rank"))
    assert [e.memory_id for e in entries] == [m.pk for _, m in expected[:5]]
    assert [e.score for e in entries] == pytest.approx([-s for s, _ in expected[:5]])
    # the query and every eligible narrative went to the endpoint, the later one never
    sent = [text for batch in embedding_inputs(embedding_endpoint) for text in batch]
    assert sorted(sent) == sorted([rset.query] + [m.content_full for m in memories])
    assert all(len(batch) <= 3 for batch in embedding_inputs(embedding_endpoint))


def run_embedding(admin, items, capture, *, k=30):
    run = services.evaluation_run_create(
        created_by=admin,
        provider_key="fake",
        setting=Setting.NAIVE_RAG,
        items=items,
        retrieval_method=EMBEDDING,
        k=k,
    )
    with capture(execute=True):
        services.evaluation_run_start(run_id=run.pk)
    run.refresh_from_db()
    return run


@pytest.fixture
def answering(embedding_endpoint, fake_model):
    fake_model.responder = lambda req: {"decision_choice": "A"}
    return fake_model


def test_the_vector_cache_is_reused_by_a_second_run(
    admin_user, corpus, answering, django_capture_on_commit_callbacks
):
    items = corpus["items"][:3]
    first = run_embedding(admin_user, items, django_capture_on_commit_callbacks)
    assert first.status == "finished"
    assert first.retriever["model"] == "fake-embedding-a"
    assert first.retriever["dimensions"] == SIZE
    cached = MemoryEmbedding.objects.count()
    assert cached == 12  # three characters, four eligible memories each
    answering.reset()

    second = run_embedding(admin_user, items, django_capture_on_commit_callbacks, k=2)
    assert second.status == "finished"
    queries = {p.retrieval_set.query for p in second.predictions.all()}
    assert len(embedding_inputs(answering)) == len(items)
    assert all(len(batch) == 1 and batch[0] in queries for batch in embedding_inputs(answering))
    assert MemoryEmbedding.objects.count() == cached
    for p in second.predictions.all():
        assert p.retrieval_set.entries.count() == 2
        assert "## Retrieved autobiographical memories" in p.user_prompt


def test_an_edited_memory_or_another_model_gets_a_fresh_vector(
    embedding_endpoint, garden_item, settings
):
    item, memories = garden_item
    retrieve_for_item(item, method=EMBEDDING, k=3)
    edited = memories[2]
    edited.content_full = "I told my teacher the truth about the wilted classroom plants."
    edited.save()
    embedding_endpoint.reset()

    retrieve_for_item(item, method=EMBEDDING, k=4)
    inputs = embedding_inputs(embedding_endpoint)
    assert inputs[0] == [edited.content_full]  # the one changed narrative, then the query
    assert len(inputs) == 2 and inputs[1][0].startswith("Scenario: ")
    assert MemoryEmbedding.objects.filter(memory=edited).count() == 2
    embedding_endpoint.reset()

    settings.HEARTBENCH_EMBEDDING_MODEL = "fake-embedding-b"
    rset = retrieve_for_item(item, method=EMBEDDING, k=4)
    assert rset.embedding_model == "fake-embedding-b"
    sent = [text for batch in embedding_inputs(embedding_endpoint) for text in batch]
    assert len(sent) == 9  # eight narratives and the query, for the new model
    assert MemoryEmbedding.objects.filter(model="fake-embedding-b").count() == 8


def test_a_failing_endpoint_marks_the_items_failed_and_a_resume_answers_them(
    admin_user, corpus, answering, django_capture_on_commit_callbacks
):
    items = corpus["items"][:2]
    for _ in range(2):
        answering.enqueue(
            Fault("status", status=503, body="embedding model is loading"), route="embeddings"
        )
    run = run_embedding(admin_user, items, django_capture_on_commit_callbacks)
    assert run.status == "finished_with_failures"
    for p in run.predictions.all():
        assert p.status == "failed"
        assert p.error_kind == "server_error"
        assert "embedding model is loading" in p.error_message
        assert "/v1/embeddings" in p.error_message
        assert p.retrieval_set is None
    assert answering.requests_for("openai") == []  # no model was asked without memories

    with django_capture_on_commit_callbacks(execute=True):
        assert services.evaluation_run_resume(run_id=run.pk) == 2
    run.refresh_from_db()
    assert run.status == "finished"
    assert {p.status for p in run.predictions.all()} == {"answered"}


def test_a_worker_configured_with_another_model_fails_the_item_saying_so(
    admin_user, corpus, answering, settings, django_capture_on_commit_callbacks
):
    run = services.evaluation_run_create(
        created_by=admin_user,
        provider_key="fake",
        setting=Setting.NAIVE_RAG,
        items=corpus["items"][:1],
        retrieval_method=EMBEDDING,
    )
    settings.HEARTBENCH_EMBEDDING_MODEL = "fake-embedding-b"
    with django_capture_on_commit_callbacks(execute=True):
        services.evaluation_run_start(run_id=run.pk)
    p = run.predictions.get()
    assert (p.status, p.error_kind) == ("failed", "not_configured")
    assert "fake-embedding-b" in p.error_message and "fake-embedding-a" in p.error_message


def form_data(**overrides):
    return {
        "provider": "fake",
        "setting": Setting.NAIVE_RAG,
        "item_set": "all",
        "retrieval_method": "embedding",
        "k": 30,
        "temperature": "0",
        "max_tokens": 4096,
        **overrides,
    }


def test_without_an_endpoint_the_form_says_bm25_is_the_default_and_refuses_embedding(
    client, admin_user, corpus, fake_model, not_configured
):
    client.force_login(admin_user)
    page = client.get(reverse("evaluation:run-list")).content.decode()
    assert 'value="embedding"' not in page
    assert "Not configured — BM25 is the offline default" in page
    response = client.post(reverse("evaluation:run-list"), form_data())
    assert response.status_code == 200
    assert "HEARTBENCH_EMBEDDING_BASE_URL" in response.content.decode()
    assert not EvaluationRun.objects.exists()
    with pytest.raises(services.EvaluationError, match="not configured"):
        services.evaluation_run_create(
            created_by=admin_user,
            provider_key="fake",
            setting="naive_rag",
            retrieval_method=EMBEDDING,
        )


def test_with_an_endpoint_the_page_shows_its_settings_and_launches_an_embedding_run(
    client, admin_user, corpus, answering, django_capture_on_commit_callbacks
):
    client.force_login(admin_user)
    page = client.get(reverse("evaluation:run-list")).content.decode()
    assert 'value="embedding"' in page
    assert answering.base_url("embeddings") + "/embeddings" in page
    assert "fake-embedding-a" in page and f">{SIZE}<" in page
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("evaluation:run-list"), form_data())
    run = EvaluationRun.objects.get()
    assert run.retrieval_method == EMBEDDING and run.status == "finished"
    p = run.predictions.first()
    detail = client.get(reverse("evaluation:prediction-detail", args=[run.pk, p.pk])).content
    assert b"Embedding cosine over content_full (fake-embedding-a, 48 dimensions)" in detail
