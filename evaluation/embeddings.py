"""The embedding retriever (seed 000 §3.1, App. E: the paper retrieves with
Qwen3-Embedding-4B): the query and the eligible memories' ``content_full`` are embedded
by an OpenAI-compatible ``/v1/embeddings`` endpoint (``llm.EmbeddingClient``) and ranked
by cosine similarity.

Configured by the ``HEARTBENCH_EMBEDDING_*`` settings (see settings/base.py); without a
base URL and a model it is not offered and BM25 stays the offline default. A memory's
vector is cached in :class:`~evaluation.models.MemoryEmbedding` per memory, text (sha256
of ``content_full``), model and dimensions, so a second run embeds only its queries. An
endpoint that fails raises :class:`EmbeddingFailure` carrying the client's error kind;
the run marks the item failed with it (a resumed run asks again).
"""

from __future__ import annotations

import hashlib
import threading

import numpy as np
from django.conf import settings

import llm

from .models import EvaluationError, MemoryEmbedding

SETTING_NAMES = (
    "HEARTBENCH_EMBEDDING_BASE_URL",
    "HEARTBENCH_EMBEDDING_MODEL",
    "HEARTBENCH_EMBEDDING_API_KEY",
    "HEARTBENCH_EMBEDDING_DIMENSIONS",
    "HEARTBENCH_EMBEDDING_BATCH_SIZE",
    "HEARTBENCH_EMBEDDING_TIMEOUT",
    "HEARTBENCH_EMBEDDING_MAX_RETRIES",
)
NOT_CONFIGURED = (
    "The embedding retriever is not configured: set HEARTBENCH_EMBEDDING_BASE_URL and "
    "HEARTBENCH_EMBEDDING_MODEL to an OpenAI-compatible /v1/embeddings endpoint. BM25 is "
    "the offline default."
)
_VECTOR_DTYPE = "<f8"


class EmbeddingFailure(EvaluationError):
    """The embedding retriever could not rank; ``error_kind`` is the client's kind
    (``server_error``, ``timeout``, ...) or ``not_configured``."""

    def __init__(self, message: str, *, error_kind: str):
        super().__init__(message)
        self.error_kind = error_kind


def embedding_config() -> llm.EmbeddingConfig | None:
    """The configured endpoint, or None when base URL or model is unset."""
    base_url = (settings.HEARTBENCH_EMBEDDING_BASE_URL or "").strip()
    model = (settings.HEARTBENCH_EMBEDDING_MODEL or "").strip()
    if not base_url or not model:
        return None
    try:
        return llm.EmbeddingConfig(
            base_url=base_url,
            model=model,
            api_key=settings.HEARTBENCH_EMBEDDING_API_KEY or "",
            dimensions=settings.HEARTBENCH_EMBEDDING_DIMENSIONS or None,
            batch_size=settings.HEARTBENCH_EMBEDDING_BATCH_SIZE,
            timeout=settings.HEARTBENCH_EMBEDDING_TIMEOUT,
            max_retries=settings.HEARTBENCH_EMBEDDING_MAX_RETRIES,
        )
    except ValueError as error:
        raise EmbeddingFailure(
            f"The HEARTBENCH_EMBEDDING_* settings are invalid: {error}.",
            error_kind="not_configured",
        ) from None


def retriever_settings() -> dict:
    """What the run creation page shows about the embedding retriever (never the key)."""
    try:
        config = embedding_config()
    except EmbeddingFailure as error:
        return {"configured": False, "problem": " ".join(error.messages)}
    if config is None:
        return {"configured": False, "problem": ""}
    return {"configured": True, "endpoint": config.endpoint, **config.summary()}


def run_retriever(config: llm.EmbeddingConfig) -> dict:
    """What a run records about the retriever it was created with (never the key)."""
    return {"kind": "embedding", "endpoint": config.endpoint, **config.summary()}


def config_for_run(recorded: dict) -> llm.EmbeddingConfig:
    """This process's endpoint, provided it embeds with the model the run was created
    with: vectors of another model would rank differently from what the run promised."""
    config = embedding_config()
    if config is None:
        raise EmbeddingFailure(NOT_CONFIGURED, error_kind="not_configured")
    wanted = (recorded.get("model"), recorded.get("dimensions"))
    if (config.model, config.dimensions) != wanted:
        raise EmbeddingFailure(
            f"This worker embeds with {config.model} (dimensions {config.dimensions or 'native'})"
            f" but the run was created with {wanted[0]} (dimensions {wanted[1] or 'native'}); "
            "set HEARTBENCH_EMBEDDING_MODEL and _DIMENSIONS back, then resume the run.",
            error_kind="not_configured",
        )
    return config


_clients: dict[llm.EmbeddingConfig, llm.EmbeddingClient] = {}
_clients_lock = threading.Lock()


def _client(config: llm.EmbeddingConfig) -> llm.EmbeddingClient:
    """One client per config and process (it holds a connection pool)."""
    with _clients_lock:
        client = _clients.get(config)
        if client is None:
            client = _clients[config] = llm.EmbeddingClient(config)
        return client


def content_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _embed(texts: list[str], config: llm.EmbeddingConfig, what: str) -> list[list[float]]:
    result = _client(config).embed(texts)
    if not result.ok:
        raise EmbeddingFailure(
            f"The embedding endpoint failed on {what}: {result.error_message}",
            error_kind=result.error_kind or "internal_error",
        )
    return result.vectors


def memory_vectors(memories: list, config: llm.EmbeddingConfig) -> np.ndarray:
    """The vectors of ``memories`` (rows in their order): cached ones from the database,
    the others embedded now in batches and cached."""
    dimensions = config.dimensions or 0
    hashes = [content_sha256(m.content_full) for m in memories]
    cached = {
        (row.memory_id, row.content_sha256): np.frombuffer(row.vector, dtype=_VECTOR_DTYPE)
        for row in MemoryEmbedding.objects.filter(
            memory_id__in=[m.pk for m in memories],
            content_sha256__in=set(hashes),
            model=config.model,
            dimensions=dimensions,
        )
    }
    missing = [i for i, m in enumerate(memories) if (m.pk, hashes[i]) not in cached]
    if missing:
        vectors = _embed(
            [memories[i].content_full for i in missing],
            config,
            f"{len(missing)} memory narratives (the first {memories[missing[0]].anonymized_id})",
        )
        rows = []
        for i, vector in zip(missing, vectors, strict=True):
            array = np.asarray(vector, dtype=_VECTOR_DTYPE)
            cached[(memories[i].pk, hashes[i])] = array
            rows.append(
                MemoryEmbedding(
                    memory_id=memories[i].pk,
                    content_sha256=hashes[i],
                    model=config.model,
                    dimensions=dimensions,
                    size=array.size,
                    vector=array.tobytes(),
                )
            )
        # Two workers embedding the same memory store one row; both vectors are equal.
        MemoryEmbedding.objects.bulk_create(rows, ignore_conflicts=True)
    arrays = [cached[(m.pk, hashes[i])] for i, m in enumerate(memories)]
    if len({a.size for a in arrays}) > 1:
        raise EmbeddingFailure(
            f"The cached vectors of {config.model} differ in size; the endpoint changed its "
            "vectors under the same model name. Give the model another name.",
            error_kind="malformed_response",
        )
    return np.vstack(arrays)


def cosine_scores(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1) * np.linalg.norm(query)
    dots = matrix @ query
    return np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)


def rank_by_embedding(
    query: str, memories: list, config: llm.EmbeddingConfig
) -> list[tuple[int, float]]:
    """(memory index, cosine) pairs, best first; ties keep timeline order."""
    if not memories:
        return []
    matrix = memory_vectors(memories, config)
    (query_vector,) = _embed([query], config, "the retrieval query")
    query_array = np.asarray(query_vector, dtype=_VECTOR_DTYPE)
    if query_array.size != matrix.shape[1]:
        raise EmbeddingFailure(
            f"The query vector has {query_array.size} values but the memories' "
            f"{matrix.shape[1]}; the endpoint changed its vectors under the model name "
            f"{config.model}.",
            error_kind="malformed_response",
        )
    scores = cosine_scores(matrix, query_array)
    order = sorted(range(len(memories)), key=lambda i: (-float(scores[i]), i))
    return [(i, float(scores[i])) for i in order]
