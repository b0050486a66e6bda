"""The analysis numbers against independent computations on a fixture of imported
predictions: numpy for accuracies and Δs, agreement/ called directly on hand-built
vectors for intervals and permutation p-values, statsmodels for Holm, loops for the
agreement matrix."""

import json

import numpy as np
import pytest
from django.urls import reverse
from django.utils import timezone
from statsmodels.stats.multitest import multipletests

import agreement
from core.reports.models import ReportStatus, StoredReport
from evaluation import analysis, selectors, stored_reports
from evaluation.prediction_import import evaluation_run_import
from tests.stored_reports import compute_analysis
from tests.web.plot_checks import assert_downloads, assert_readable_plot, svgs, texts

from .conftest import build_corpus

pytestmark = pytest.mark.django_db

RUNS = [
    ("model-x", "no_retrieval", 0.30),
    ("model-x", "naive_rag", 0.60),
    ("model-x", "disclosed_profile", 0.70),
    ("model-x", "disclosed_profile_memory", 0.85),
    ("model-y", "naive_rag", 0.45),
    ("model-z", "naive_rag", 0.50),
]


@pytest.fixture
def imported(admin_user):
    corpus = build_corpus(n_characters=4, n_scenarios=4)
    items = corpus["items"]
    rng = np.random.default_rng(7)
    answers = {}
    for label, setting, p_correct in RUNS:
        record = {}
        for item in items:
            if rng.random() < 0.08:
                record[item.question_id] = ""  # an invalid response
            elif rng.random() < p_correct:
                record[item.question_id] = item.correct_answer
            else:
                record[item.question_id] = rng.choice(
                    [x for x in "ABCD" if x != item.correct_answer]
                )
        payload = {"model": label, "setting": setting, "predictions": record}
        evaluation_run_import(
            created_by=admin_user, filename=f"{label}.json", content=json.dumps(payload).encode()
        )
        answers[(label, setting)] = record
    return items, answers


def vector(items, record):
    return np.array([float(record[i.question_id] == i.correct_answer) for i in items])


def test_accuracy_and_cluster_intervals(imported):
    items, answers = imported
    table = selectors.prediction_table(selectors.analysis_runs())
    rows = {(r.label, r.setting): r for r in analysis.accuracy_rows(table)}
    ordered = sorted(items, key=lambda i: i.pk)
    clusters = [i.scenario.scenario_id for i in ordered]
    for key, record in answers.items():
        correct = vector(ordered, record)
        expected = agreement.cluster_bootstrap_accuracy(
            correct,
            clusters,
            n_boot=agreement.constants.N_BOOTSTRAP,
            seed=agreement.constants.CLUSTER_BOOTSTRAP_SEED,
        )
        row = rows[key]
        assert row.accuracy == pytest.approx(correct.mean())
        assert (row.ci_low, row.ci_high) == (expected.ci_low, expected.ci_high)
        assert row.n_items == 16 and row.n_correct == int(correct.sum())
        assert row.n_invalid == sum(v == "" for v in record.values())


def test_paired_comparisons_and_holm(imported):
    items, answers = imported
    table = selectors.prediction_table(selectors.analysis_runs())
    result = analysis.paired_comparisons(table)
    ordered = sorted(items, key=lambda i: i.pk)
    clusters = [i.scenario.scenario_id for i in ordered]

    def expected(family):
        ps, diffs = [], []
        for c in family:
            test = agreement.paired_cluster_permutation_test(
                vector(ordered, answers[(c.a.label, c.a.setting)]),
                vector(ordered, answers[(c.b.label, c.b.setting)]),
                clusters,
                n_permutations=agreement.constants.N_PERMUTATIONS,
                seed=agreement.constants.SIGN_FLIP_SEED,
            )
            ps.append(test.p_value)
            diffs.append(test.difference)
        return ps, diffs

    settings_pairs = result["settings"]
    assert len(settings_pairs) == 6  # 4 settings of model-x: C(4, 2)
    assert {c.a.label for c in settings_pairs} == {"model-x"}
    # §3.2: Holm covers the retrieval gains only; model-x has one (Naive-RAG − No-Retrieval)
    (gain,) = [c for c in settings_pairs if c.holm]
    assert (gain.a.setting, gain.b.setting) == ("naive_rag", "no_retrieval")
    models_family = result["models"]
    assert len(models_family) == 3  # x, y, z under naive_rag
    assert all(c.holm for c in models_family)
    for pairs in (settings_pairs, models_family):
        ps, diffs = expected(pairs)
        assert [c.p_value for c in pairs] == ps
        for c, d in zip(pairs, diffs, strict=True):
            a = vector(ordered, answers[(c.a.label, c.a.setting)]).mean()
            b = vector(ordered, answers[(c.b.label, c.b.setting)]).mean()
            assert c.difference == pytest.approx(a - b) == pytest.approx(d)
        family = [c for c in pairs if c.holm]
        reject, adjusted, _, _ = multipletests(
            [c.p_value for c in family], alpha=0.05, method="holm"
        )
        assert [c.p_holm for c in family] == pytest.approx(list(adjusted))
        assert [c.reject for c in family] == list(reject)
        assert all(c.p_holm is None and not c.reject for c in pairs if not c.holm)


def test_disclosure_deltas_and_breakdowns(imported):
    items, answers = imported
    table = selectors.prediction_table(selectors.analysis_runs())
    (diag,) = analysis.disclosure_diagnostics(table)
    h = vector(items, answers[("model-x", "naive_rag")]).mean()
    d = vector(items, answers[("model-x", "disclosed_profile")]).mean()
    dm = vector(items, answers[("model-x", "disclosed_profile_memory")]).mean()
    assert diag.delta_profile == pytest.approx(100 * (dm - h))
    assert diag.delta_memory == pytest.approx(100 * (dm - d))

    groups, rows = analysis.breakdown(table, "character")
    assert groups == ["CHAR_01", "CHAR_02", "CHAR_03", "CHAR_04"]
    row = next(
        r for r in rows if (r["column"].label, r["column"].setting) == ("model-y", "naive_rag")
    )
    for key in groups:
        mine = [i for i in items if i.character.key == key]
        assert row["cells"][key]["accuracy"] == pytest.approx(
            vector(mine, answers[("model-y", "naive_rag")]).mean()
        )
    families, rows = analysis.breakdown(table, "source_family")
    assert families == ["claude", "gemini", "gpt"]
    for fam in families:
        mine = [i for i in items if i.reference.source_family == fam]
        row = rows[0]
        record = answers[(row["column"].label, row["column"].setting)]
        assert row["cells"][fam]["n"] == len(mine)
        assert row["cells"][fam]["correct"] == int(vector(mine, record).sum())


def test_agreement_matrix_counts_jointly_valid_questions(imported):
    items, answers = imported
    table = selectors.prediction_table(selectors.analysis_runs())
    (matrix,) = [m for m in analysis.agreement_matrices(table) if m.setting == "naive_rag"]
    assert matrix.labels == ("model-x", "model-y", "model-z")
    for i, a in enumerate(matrix.labels):
        for j, b in enumerate(matrix.labels):
            ra, rb = answers[(a, "naive_rag")], answers[(b, "naive_rag")]
            valid = [q for q in ra if ra[q] and rb[q]]
            same = sum(ra[q] == rb[q] for q in valid)
            assert (matrix.agree[i, j], matrix.jointly_valid[i, j]) == (same, len(valid))
    off = [matrix.rate[i, j] for i in range(3) for j in range(3) if i < j]
    assert matrix.mean_rate == pytest.approx(np.mean(off))


def test_the_analysis_page_and_csv_show_these_numbers(client, admin_user, imported):
    client.force_login(admin_user)
    compute_analysis()
    page = client.get("/evaluation/analysis/")
    assert page.status_code == 200
    html = page.content.decode()
    table = selectors.prediction_table(selectors.analysis_runs())
    (diag,) = analysis.disclosure_diagnostics(table)
    assert f"{diag.delta_profile:.2f}" in html and f"{diag.delta_memory:.2f}" in html
    assert 'data-testid="accuracy-plot"' in html and 'data-testid="agreement-plot"' in html
    csv_text = client.get("/evaluation/analysis.csv").content.decode()
    assert csv_text.count("\naccuracy,") == len(RUNS)
    assert "delta_profile,model-x" in csv_text


def test_the_analysis_plots_are_readable_and_downloadable(client, admin_user, imported):
    client.force_login(admin_user)
    compute_analysis()
    response = client.get("/evaluation/analysis/")
    plots = svgs(response.content.decode())
    assert "accuracy-plot" in plots and "agreement-plot" in plots
    for svg in plots.values():
        assert_readable_plot(svg)
    legend = texts(plots["accuracy-plot"], "legend")
    assert legend == [
        "Accuracy",
        "95% CI (scenario-cluster bootstrap)",
        "Chance level (25%, one of four options)",
    ]
    assert texts(plots["accuracy-plot"], "axis-label") == ["Model · setting", "Accuracy"]
    shown = response.context["plots"]
    assert_downloads(client, shown["accuracy"])
    # The downloads keep the runs chosen in the address.
    run = selectors.analysis_runs()[0].pk
    compute_analysis(run)
    chosen = client.get(f"/evaluation/analysis/?run={run}").context["plots"]["accuracy"]
    assert chosen.png_url.endswith(f"?run={run}")
    # Runs that do not exist leave nothing to plot: a sentence, and no downloads.
    compute_analysis(999999)
    response = client.get("/evaluation/analysis/?run=999999")
    nothing = response.context["plots"]["accuracy"]
    assert nothing.empty and not nothing.png_url and not svgs(response.content.decode())


def test_a_request_reads_the_stored_figures_and_never_computes_them(client, admin_user, imported):
    """Before the worker ran, the page says the figures are being computed and shows
    none, the report's row waits as pending, and every download answers 409 with a
    sentence instead of computing; once stored, page and downloads agree."""
    client.force_login(admin_user)
    html = client.get("/evaluation/analysis/").content.decode()
    assert 'data-state="pending"' in html and "being computed" in html
    assert 'data-testid="accuracy-table"' not in html and "accuracy-plot" not in html
    row = StoredReport.objects.get(kind=stored_reports.ANALYSIS_KIND, key="")
    assert row.status == ReportStatus.PENDING and row.result is None and row.computed_at is None
    for url in (
        "/evaluation/analysis.csv",
        "/evaluation/analysis/table/?format=parquet",
        "/evaluation/analysis/plots/accuracy.svg",
        reverse("evaluation-api:analysis-rows"),
    ):
        response = client.get(url)
        assert response.status_code == 409, url
        assert "being computed" in response.content.decode(), url
    assert StoredReport.objects.get(pk=row.pk).result is None

    compute_analysis()
    html = client.get("/evaluation/analysis/").content.decode()
    assert 'data-state="fresh"' in html and "6 runs" in html
    csv_text = client.get("/evaluation/analysis.csv").content.decode()
    stored = StoredReport.objects.get(pk=row.pk).result
    accuracies = [r["fields"]["accuracy"] for r in stored["fields"]["accuracy"]]
    shown = [
        float(line.split(",")[6]) for line in csv_text.splitlines() if line.startswith("accuracy,")
    ]
    assert shown == pytest.approx(accuracies) and len(shown) == len(RUNS)


def test_the_figures_are_laid_out_once_per_stored_result(client, admin_user, imported):
    """The figures block is kept once laid out (a megabyte at 65 runs), but only for the
    stored result it was laid out from: a new computation shows at once."""

    def figures_block():
        html = client.get("/evaluation/analysis/").content.decode()
        return html[html.index('<div id="analysis-figures">') : html.index("</main>")]

    client.force_login(admin_user)
    compute_analysis()
    first = figures_block()
    assert 'data-testid="accuracy-table"' in first and first.count("<tr data-run=") == len(RUNS)
    # The same stored result: the kept layout, even if the row were edited underneath.
    row = StoredReport.objects.get(kind=stored_reports.ANALYSIS_KIND, key="")
    row.result["fields"]["accuracy"] = []
    StoredReport.objects.filter(pk=row.pk).update(result=row.result)
    assert figures_block() == first
    # A new computation (from the same inputs) is laid out anew.
    compute_analysis()
    assert figures_block().count("<tr data-run=") == len(RUNS)
    row.result["fields"]["accuracy"] = []
    StoredReport.objects.filter(pk=row.pk).update(result=row.result, computed_at=timezone.now())
    assert 'data-testid="accuracy-table"' not in figures_block()
