"""The built-in Naive-RAG retriever and the one serialization of a memory block.

Seed 000 App. E: the query is the scenario description only (never the options);
only memories of the audited corpus (App. B.6) whose event age is at or before the
scenario age are eligible; the source content is the projection ``content_full``
alone; each retrieved entry is prefixed with the memory's anonymized id and timeline
label (App. L.1).

The paper used an embedding retriever; the platform ships BM25 (rank-bm25) and TF-IDF
cosine (scikit-learn) so it runs offline. Retrieved sets are stored
(:class:`~evaluation.models.RetrievalSet`) and reused, so evaluation prompts and
the human-baseline pages render the same strings in the same order.
"""

import re

from django.db import transaction

from adjudication.mcq.models import McqItem
from audit.memory_quality.corpus import audited_memories
from heartbench_site.base.protocol import RETRIEVAL_K

from .models import RetrievalSet, RetrievedMemory

DEFAULT_K = RETRIEVAL_K
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def tokenize(text: str) -> list[str]:
    return _TOKEN.findall(text.casefold())


def retrieval_query(scenario) -> str:
    """The query: the scenario description only (App. E), never options or the key."""
    return scenario.description_for_agent


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


@transaction.atomic
def retrieve_for_item(
    item: McqItem, *, method: str = RetrievalSet.Method.BM25, k: int = DEFAULT_K
) -> RetrievalSet:
    """The stored retrieval set of ``item`` for (method, k), computed once."""
    existing = RetrievalSet.objects.filter(item=item, method=method, k=k, origin="builtin").first()
    if existing is not None:
        return existing
    scenario = item.scenario
    memories = list(eligible_memories(item.character, scenario.age))
    query = retrieval_query(scenario)
    ranked = rank(query, [m.content_full for m in memories], method)[:k]
    rset = RetrievalSet.objects.create(
        item=item,
        method=method,
        k=k,
        origin="builtin",
        query=query,
        scenario_age=scenario.age,
        eligible_count=len(memories),
    )
    RetrievedMemory.objects.bulk_create(
        RetrievedMemory(
            retrieval_set=rset,
            rank=position,
            memory=memories[index],
            anonymized_id=memories[index].anonymized_id,
            timeline=memories[index].timeline,
            event_age=memories[index].event_age,
            content_full=memories[index].content_full,
            score=score,
        )
        for position, (index, score) in enumerate(ranked, start=1)
    )
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
