"""Evaluation's Naive-RAG retrieval reads the audited corpus (issue #18 point 2, App.
B.6, App. E): a duplicate the memory audit left out is never eligible, never retrieved,
never in a memory block a model or a baseline participant reads."""

import pytest

from evaluation.models import RetrievalSet
from evaluation.retrieval import memory_block_entries, retrieve_for_item
from tests.export.conftest import make_item
from tests.factories import CharacterFactory, MemoryFactory, ScenarioFactory
from tests.pipeline_ready import audit_leaving_out_a_copy

pytestmark = pytest.mark.django_db

STORY = "I waited at the school gate in the rain and nobody came to take me home."


def test_a_memory_the_audit_left_out_is_never_retrieved():
    character = CharacterFactory(key="CHAR_91")
    original = MemoryFactory(character=character, sequence=1, event_age=8, content_full=STORY)
    other = MemoryFactory(
        character=character, sequence=2, event_age=9, content_full="I learned to ride a bike."
    )
    copy = audit_leaving_out_a_copy(character, original=original)
    scenario = ScenarioFactory(
        scenario_id="SCN_SCHOOL_AGE_91", age=10, description_for_agent="Rain at the school gate."
    )
    item = make_item(
        "Q_CHAR_91_SCN_SCHOOL_AGE_91", character=character, scenario=scenario, status="final"
    )

    for method in (RetrievalSet.Method.BM25, RetrievalSet.Method.TFIDF):
        rset = retrieve_for_item(item, method=method, k=30)
        assert rset.eligible_count == 2
        assert {e.memory_id for e in rset.entries.all()} == {original.pk, other.pk}
        block = "\n".join(memory_block_entries(rset))
        assert copy.anonymized_id not in block and original.anonymized_id in block
