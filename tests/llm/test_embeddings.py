"""The embeddings client against the fake server's ``/v1/embeddings`` route, real HTTP on
loopback: the OpenAI request, batches, retries, errors that never raise, a key that
never leaves its header, and the fake server's documented deterministic vectors."""

import hashlib
import re

import numpy as np
import pytest

from llm import EmbeddingClient, EmbeddingConfig
from llm.testing.embedding_vectors import hashed_embedding
from llm.testing.replies import Fault

from .helpers import SECRET


def config_for(server, **overrides):
    values = {
        "base_url": server.base_url("embeddings"),
        "model": "fake-embedding-4b",
        "max_retries": 2,
        "backoff_base": 0.001,
        "backoff_cap": 0.01,
        "timeout": 5.0,
    } | overrides
    return EmbeddingConfig(**values)


def independent_vector(text, size):
    """The documented rule, written again with numpy: ±1 per word token at sha256 % size."""
    vector = np.zeros(size)
    for token in re.findall(r"[^\W_]+", text.lower()):
        digest = hashlib.sha256(token.encode()).digest()
        vector[int(digest[:4].hex(), 16) % size] += -1 if digest[4] & 1 else 1
    return vector / np.linalg.norm(vector)


def test_vectors_come_back_in_order_in_batches_with_the_openai_request(server):
    texts = [f"memory number {n} about the school garden" for n in range(5)]
    with EmbeddingClient(config_for(server, batch_size=2, dimensions=16)) as client:
        result = client.embed(texts)
    assert result.ok and result.error_kind is None
    assert len(result.vectors) == 5 and all(len(v) == 16 for v in result.vectors)
    for text, vector in zip(texts, result.vectors, strict=True):
        assert np.allclose(vector, independent_vector(text, 16))
    requests = server.requests_for("embeddings")
    assert [len(r.body["input"]) for r in requests] == [2, 2, 1]
    assert requests[0].path == "/v1/embeddings"
    assert requests[0].body["model"] == "fake-embedding-4b"
    assert requests[0].body["dimensions"] == 16
    assert requests[0].body["encoding_format"] == "float"
    assert result.requests == 3 and result.tokens == sum(len(t.split()) for t in texts)


def test_without_dimensions_none_is_sent_and_the_default_size_comes_back(server):
    with EmbeddingClient(config_for(server)) as client:
        result = client.embed(["one text"])
    assert "dimensions" not in server.requests_for("embeddings")[0].body
    assert len(result.vectors[0]) == 64


def test_shared_words_make_texts_closer():
    garden = np.array(hashed_embedding("the school garden and the plants", 256))
    plants = np.array(hashed_embedding("watering the plants in the school garden", 256))
    storm = np.array(hashed_embedding("a thunderstorm over the harbour at night", 256))
    assert garden @ plants > garden @ storm


def test_a_transient_failure_is_retried_and_a_lasting_one_is_reported(server):
    server.enqueue(Fault("status", status=503), route="embeddings")
    with EmbeddingClient(config_for(server)) as client:
        assert client.embed(["a"]).ok
        for _ in range(3):
            server.enqueue(Fault("status", status=500, body="model not loaded"), route="embeddings")
        failed = client.embed(["a", "b"])
    assert not failed.ok and failed.vectors == []
    assert failed.error_kind == "server_error"
    assert "model not loaded" in failed.error_message
    assert "gave up after 3 tries" in failed.error_message
    assert failed.error_message.startswith(server.base_url("embeddings") + "/embeddings")


def test_a_connection_refused_is_a_result_not_an_exception():
    config = EmbeddingConfig(
        base_url="http://127.0.0.1:9/v1", model="m", max_retries=0, timeout=2.0
    )
    with EmbeddingClient(config) as client:
        result = client.embed(["a"])
    assert not result.ok and result.error_kind == "connection_error"


@pytest.mark.parametrize(
    "body, problem",
    [
        ({"data": []}, "0 vectors for 1 texts"),
        ({"data": [{"index": 0, "embedding": ["x"]}]}, "not a list of finite numbers"),
        ({"object": "list"}, 'no "data" list'),
        ({"data": [{"index": 0, "embedding": [0.1, 0.2]}]}, "not the 16 asked for"),
    ],
)
def test_a_body_that_is_not_the_vectors_asked_for_is_malformed(server, body, problem):
    for _ in range(3):
        server.enqueue(body, route="embeddings")
    with EmbeddingClient(config_for(server, dimensions=16)) as client:
        result = client.embed(["a"])
    assert result.error_kind == "malformed_response"
    assert problem in result.error_message


def test_the_key_goes_in_the_header_and_nowhere_else(server):
    server.api_key = SECRET
    config = config_for(server, api_key=SECRET)
    assert SECRET not in repr(config) and SECRET not in str(config.summary())
    with EmbeddingClient(config) as client:
        assert client.embed(["a"]).ok
    assert server.requests_for("embeddings")[0].headers["authorization"] == f"Bearer {SECRET}"
    with EmbeddingClient(config_for(server, api_key="wrong-key")) as client:
        refused = client.embed(["a"])
    assert refused.error_kind == "client_error" and "authentication failed" in refused.error_message


def test_from_env_reads_the_prefix_and_names_what_is_missing():
    assert EmbeddingConfig.from_env("HB_EMB", {}) is None
    config = EmbeddingConfig.from_env(
        "HB_EMB",
        {
            "HB_EMB_BASE_URL": "http://127.0.0.1:8080/v1/",
            "HB_EMB_MODEL": "Qwen3-Embedding-4B",
            "HB_EMB_DIMENSIONS": "1024",
            "HB_EMB_BATCH_SIZE": "8",
            "HB_EMB_API_KEY": SECRET,
        },
    )
    assert config.base_url == "http://127.0.0.1:8080/v1"
    assert (config.model, config.dimensions, config.batch_size) == ("Qwen3-Embedding-4B", 1024, 8)
    assert config.api_key.reveal() == SECRET
    with pytest.raises(ValueError, match="HB_EMB_MODEL is set but HB_EMB_BASE_URL is not"):
        EmbeddingConfig.from_env("HB_EMB", {"HB_EMB_MODEL": "m"})
    with pytest.raises(ValueError, match="HB_EMB_DIMENSIONS has an invalid value") as error:
        EmbeddingConfig.from_env(
            "HB_EMB",
            {"HB_EMB_BASE_URL": "http://x/v1", "HB_EMB_MODEL": "m", "HB_EMB_DIMENSIONS": SECRET},
        )
    assert SECRET not in str(error.value)
