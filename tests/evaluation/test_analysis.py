"""The analysis numbers against independent computations on a fixture of imported
predictions: numpy for accuracies and Δs, agreement/ called directly on hand-built
vectors for intervals and permutation p-values, statsmodels for Holm, loops for the
agreement matrix."""

import json

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

import agreement
from evaluation import analysis, selectors
from evaluation.prediction_import import evaluation_run_import
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

    settings_family = result["settings"]
    assert len(settings_family) == 6  # 4 settings of model-x: C(4, 2)
    assert {c.a.label for c in settings_family} == {"model-x"}
    models_family = result["models"]
    assert len(models_family) == 3  # x, y, z under naive_rag
    for family in (settings_family, models_family):
        ps, diffs = expected(family)
        assert [c.p_value for c in family] == ps
        for c, d in zip(family, diffs, strict=True):
            a = vector(ordered, answers[(c.a.label, c.a.setting)]).mean()
            b = vector(ordered, answers[(c.b.label, c.b.setting)]).mean()
            assert c.difference == pytest.approx(a - b) == pytest.approx(d)
        reject, adjusted, _, _ = multipletests(ps, alpha=0.05, method="holm")
        assert [c.p_holm for c in family] == pytest.approx(list(adjusted))
        assert [c.reject for c in family] == list(reject)


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
    chosen = client.get(f"/evaluation/analysis/?run={run}").context["plots"]["accuracy"]
    assert chosen.png_url.endswith(f"?run={run}")
    # Runs that do not exist leave nothing to plot: a sentence, and no downloads.
    response = client.get("/evaluation/analysis/?run=999999")
    nothing = response.context["plots"]["accuracy"]
    assert nothing.empty and not nothing.png_url and not svgs(response.content.decode())
