"""The demo's evaluation runs: offline demo provider, Celery eager, idempotent; the
analysis page then has accuracies, comparisons, the App. I diagnostic and a matrix."""

import pytest

from evaluation import analysis, analysis_k, selectors
from evaluation.demo import DEMO_NOTE, SIMULATED_MODELS, SIMULATED_NOTE, seed_evaluation_demo
from evaluation.models import EvaluationRun
from tests.stored_reports import compute_analysis

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]


def test_demo_runs_finish_and_fill_the_analysis(
    admin_user, corpus, django_capture_on_commit_callbacks, client
):
    with django_capture_on_commit_callbacks(execute=True):
        runs = seed_evaluation_demo(user=admin_user)
    assert len(runs) == 5
    for run in EvaluationRun.objects.filter(note=DEMO_NOTE):
        assert run.status == "finished", run
        assert run.predictions.filter(status="answered").count() == 8
        assert run.provider["kind"] == "offline_demo"
    assert seed_evaluation_demo(user=admin_user) == runs
    simulated = EvaluationRun.objects.filter(note=SIMULATED_NOTE)
    assert simulated.count() == 2 * len(SIMULATED_MODELS)
    assert all(run.predictions.count() == 8 for run in simulated)
    table = selectors.prediction_table(selectors.analysis_runs())
    assert len(analysis.disclosure_diagnostics(table)) == 1
    # Naive-RAG (offline and simulated models) and No-Retrieval (simulated and offline).
    assert len(analysis.agreement_matrices(table)) == 2
    # App. K.1 has content: every source, all three families tested.
    assert analysis_k.source_stratified(table).sources == ("gemini", "claude", "gpt")
    k1 = analysis_k.provenance_analysis(table, n_boot=50, n_flips=50)
    assert [i.family for i in k1.interactions] == ["gemini", "claude", "gpt"]
    assert k1.correlations and k1.stability is not None
    client.force_login(admin_user)
    compute_analysis()
    html = client.get("/evaluation/analysis/").content.decode()
    assert 'data-testid="interaction-table"' in html and 'data-testid="spearman-table"' in html
