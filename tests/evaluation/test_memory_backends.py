"""Mem0 and PersonaDB as imported memory-augmented settings (seed 000 §3.1, App. E): their
backends run outside the platform, so their predictions arrive as files."""

import json

import pytest

from evaluation import services
from evaluation.forms import EvaluationRunForm, PredictionImportForm
from evaluation.models import EvaluationError, Setting
from evaluation.prediction_import import evaluation_run_import

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "setting, name",
    [("mem0", "Mem0"), ("personadb", "PersonaDB")],
)
def test_an_imported_mem0_or_personadb_file_is_a_memory_augmented_run(
    setting, name, admin_user, corpus
):
    """Seed 000 §3.1: Mem0 and PersonaDB are memory-augmented settings beside Naive-RAG;
    an admin imports their predictions and the run counts as memory-augmented."""
    items = corpus["items"]
    payload = {
        "model": "gpt-5.4",
        "setting": setting,
        "predictions": {items[0].question_id: "A", items[1].question_id: "c"},
    }
    run = evaluation_run_import(
        created_by=admin_user, filename=f"{setting}.json", content=json.dumps(payload).encode()
    )
    assert (run.setting, run.origin, run.status) == (setting, "imported", "finished")
    assert run.is_memory_augmented and run.uses_memory
    assert name in run.get_setting_display()
    assert sorted(run.predictions.values_list("choice", flat=True)) == ["A", "C"]


def test_only_the_three_memory_backends_are_memory_augmented(admin_user, corpus):
    """Seed 000 §3.1: "No-Retrieval and three memory-augmented settings: Naive-RAG, Mem0,
    and PersonaDB"; the App. I profile conditions are diagnostics, not among them."""
    kinds = {}
    for setting in Setting.values:
        run = evaluation_run_import(
            created_by=admin_user,
            filename="p.csv",
            content=f"question_id,answer\n{corpus['items'][0].question_id},A\n".encode(),
            label="m",
            setting=setting,
        )
        kinds[setting] = run.is_memory_augmented
    assert {s for s, augmented in kinds.items() if augmented} == {"naive_rag", "mem0", "personadb"}


def test_mem0_and_personadb_are_offered_for_import_but_never_launched(admin_user, corpus):
    """Seed 000 App. E: Mem0 and PersonaDB process the narratives with their own official
    code; the platform has no runner for them, so launching one is refused with the way
    to bring its results in."""
    import_choices = dict(PredictionImportForm().fields["setting"].choices)
    launch_choices = dict(EvaluationRunForm().fields["setting"].choices)
    for setting in ("mem0", "personadb"):
        assert setting in import_choices
        assert setting not in launch_choices
        with pytest.raises(EvaluationError, match="import its predictions file"):
            services.evaluation_run_create(
                created_by=admin_user,
                provider_key="offline_demo",
                setting=setting,
                items=corpus["items"][:1],
            )
