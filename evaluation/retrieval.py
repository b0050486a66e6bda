"""The built-in Naive-RAG retriever and the one serialization of a memory block.

Seed 000 App. E: the query is the entire scenario description (never the options);
only memories of the audited corpus (App. B.6) whose event age is at or before the
scenario age are eligible; the source content is the projection ``content_full``
alone; each retrieved entry is prefixed with the memory's anonymized id and timeline
label (App. L.1).

The paper used an embedding retriever: ``embedding`` calls an OpenAI-compatible
endpoint when one is configured (``evaluation.embeddings``); BM25 (rank-bm25, the
offline default) and TF-IDF cosine (scikit-learn) run offline. Retrieved sets are stored
(:class:`~evaluation.models.RetrievalSet`) with their exact query and reused, so
evaluation prompts and the human-baseline pages render the same strings in the same
order.
"""

import random
import re

from django.db import IntegrityError, transaction

from adjudication.mcq.models import McqItem
from audit.memory_quality.corpus import audited_memories
from core.protocol import RETRIEVAL_K

from . import embeddings
from .models import RetrievalSet, RetrievedMemory

DEFAULT_K = RETRIEVAL_K
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def tokenize(text: str) -> list[str]:
    return _TOKEN.findall(text.casefold())


def retrieval_query(scenario) -> str:
    """The query: the entire scenario description (App. E), every field of the situation
    the evaluated model reads (name, agent description, setting, background, trigger
    event, required decision); never the options or the key, nor the construction labels
    (category, DIAMONDS dimension, intensity)."""
    return "\n".join(
        (
            f"Scenario: {scenario.name}",
            scenario.description_for_agent,
            f"Setting: {scenario.setting_location} | {scenario.setting_time} | "
            f"{scenario.setting_atmosphere}",
            f"Background: {scenario.context_text}",
            f"Trigger event: {scenario.trigger_sender}: {scenario.trigger_message}",
            f"Required decision: {scenario.action_required}",
        )
    )


def eligible_memories(character, scenario_age: int):
    """The character's audited memories (App. B.6: a memory the audit left out is never
    retrieved) at or before the scenario age, in timeline order."""
    return audited_memories(character.pk).filter(event_age__lte=scenario_age)


def rank(query: str, documents: list[str], method: str) -> list[tuple[int, float]]:
    """(document index, score) pairs, best first; ties keep timeline order."""
    if not documents:
        return []
    if method == RetrievalSet.Method.BM25:
        from rank_bm25 import BM25Okapi

        scores = BM25Okapi([tokenize(d) or [""] for d in documents]).get_scores(tokenize(query))
    elif method == RetrievalSet.Method.TFIDF:
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.metrics.pairwise import linear_kernel

        vectorizer = TfidfVectorizer(tokenizer=tokenize, lowercase=False, token_pattern=None)
        matrix = vectorizer.fit_transform(documents)
        scores = linear_kernel(vectorizer.transform([query]), matrix)[0]
    else:
        raise ValueError(f"Unknown retrieval method {method!r}; use bm25 or tfidf.")
    order = sorted(range(len(documents)), key=lambda i: (-float(scores[i]), i))
    return [(i, float(scores[i])) for i in order]


def retrieve_for_item(
    item: McqItem,
    *,
    method: str = RetrievalSet.Method.BM25,
    k: int = DEFAULT_K,
    embedding=None,
    query_scenario=None,
    owner=None,
    origin: str = "builtin",
    shown_id=None,
) -> RetrievalSet:
    """The stored retrieval set of ``item`` for (method, k, today's query and, for
    ``embedding``, the model), computed once, also when two workers ask together.

    ``embedding`` is the ``llm.EmbeddingConfig`` to rank with (default: the configured
    one). Embedding calls happen outside any row lock; a failing endpoint raises
    :class:`~evaluation.embeddings.EmbeddingFailure` and stores nothing.

    The App. H ablation (``evaluation.ablation``) changes what is retrieved, under its own
    ``origin``: ``query_scenario`` (default the item's) is the scenario whose description
    is the query, ``owner`` (default the item's character) whose memories are searched,
    ``shown_id(memory)`` the id an entry is shown under; ``random`` samples ``k``
    memories with the seed ``origin`` names. Eligibility is always the item's scenario
    age (App. E)."""
    scenario = item.scenario
    if method == RetrievalSet.Method.RANDOM:
        query = f"no query: a random sample, seed {origin!r}"
    else:
        query = retrieval_query(query_scenario or scenario)
    identity = {"item": item, "method": method, "k": k, "origin": origin, "query": query}
    if method == RetrievalSet.Method.EMBEDDING:
        if embedding is None:
            embedding = embeddings.embedding_config()
        if embedding is None:
            raise embeddings.EmbeddingFailure(
                embeddings.NOT_CONFIGURED, error_kind="not_configured"
            )
        identity |= {
            "embedding_model": embedding.model,
            "embedding_dimensions": embedding.dimensions or 0,
        }
    existing = RetrievalSet.objects.filter(**identity).first()
    if existing is not None:
        return existing
    memories = list(eligible_memories(owner or item.character, scenario.age))
    documents = [m.content_full for m in memories]
    if method == RetrievalSet.Method.EMBEDDING:
        ranked = embeddings.rank_by_embedding(query, memories, embedding)[:k]
    elif method == RetrievalSet.Method.RANDOM:
        drawn = random.Random(origin).sample(range(len(memories)), min(k, len(memories)))
        ranked = [(index, None) for index in drawn]
    else:
        ranked = rank(query, documents, method)[:k]
    shown = shown_id or (lambda memory: memory.anonymized_id)
    try:
        with transaction.atomic():
            rset = RetrievalSet.objects.create(
                **identity, scenario_age=scenario.age, eligible_count=len(memories)
            )
            RetrievedMemory.objects.bulk_create(
                RetrievedMemory(
                    retrieval_set=rset,
                    rank=position,
                    memory=memories[index],
                    anonymized_id=shown(memories[index]),
                    timeline=memories[index].timeline,
                    event_age=memories[index].event_age,
                    content_full=memories[index].content_full,
                    score=score,
                )
                for position, (index, score) in enumerate(ranked, start=1)
            )
    except IntegrityError:
        # Another worker stored the same set first: theirs is the one.
        return RetrievalSet.objects.get(**identity)
    return rset


def format_entry(anonymized_id: str, timeline: str, content_full: str) -> str:
    """One memory entry as App. L.1 serializes it: ``- [ID][timeline] narrative``."""
    return f"- [{anonymized_id}][{timeline}] {content_full}"


def memory_block_entries(rset: RetrievalSet) -> list[str]:
    """The entries of a stored set in rank order, exactly as models and humans see them."""
    return [
        format_entry(e.anonymized_id, e.timeline, e.content_full)
        for e in rset.entries.order_by("rank")
    ]
