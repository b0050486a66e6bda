"""The paper's Holm family (seed 000 §3.1, §3.2, App. I): Holm's correction covers the
48 retrieval gains (16 models × Naive-RAG, Mem0 and PersonaDB, each against the model's
No-Retrieval run) and nothing else; the App. I profile-disclosure pairs and the pairs of
two memory backends are reported uncorrected, outside the family. Checked on a table
shaped like the paper's, against statsmodels' Holm and numpy accuracies."""

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from evaluation import analysis, statistics
from evaluation.analysis_figures import AnalysisFigures, compute, from_json, to_json

MODELS = [f"model-{n:02d}" for n in range(1, 16)] + ["Gemini-3.8-Flash"]
MAIN = ("no_retrieval", "naive_rag", "mem0", "personadb")
DIAGNOSTIC = ("disclosed_profile", "disclosed_profile_memory")
N_PERMUTATIONS = 199


def paper_shaped_table(seed=11, n_scenarios=8, per_scenario=3) -> analysis.PredictionTable:
    """16 models in the four main settings, plus the App. I diagnostic conditions for
    Gemini-3.8-Flash; memory helps, so the gains are positive on average."""
    rng = np.random.default_rng(seed)
    items = list(range(1, n_scenarios * per_scenario + 1))
    key = {i: "ABCD"[i % 4] for i in items}
    scenario = {i: f"SCN_{(i - 1) // per_scenario}" for i in items}
    columns = []
    run_id = 0
    for label in MODELS:
        settings = MAIN + (DIAGNOSTIC if label == "Gemini-3.8-Flash" else ())
        for setting in settings:
            run_id += 1
            p = 0.25 if setting == "no_retrieval" else 0.6
            answers = {i: key[i] if rng.random() < p else "ABCD"[(i + 1) % 4] for i in items}
            columns.append(analysis.Column(run_id, label, setting, answers))
    families = ("gemini", "claude", "gpt")
    return analysis.PredictionTable(
        tuple(items),
        key,
        scenario,
        {i: f"CHAR_{i % 4:02d}" for i in items},
        {i: "school_age" for i in items},
        {i: families[i % 3] for i in items},
        tuple(columns),
    )


def accuracy(table, column):
    return np.mean([column.answers[i] == table.key[i] for i in table.item_ids])


def test_holm_family_is_the_48_retrieval_gains():
    """seed 000 §3.2: "All 48 retrieval gains over No-Retrieval remain significant after
    Holm correction"; App. I reports Δprofile and Δmemory without tests, so a diagnostic
    pair is not in the family."""
    table = paper_shaped_table()
    settings = analysis.paired_comparisons(table, n_permutations=N_PERMUTATIONS)["settings"]
    family = [c for c in settings if c.p_holm is not None]  # the pairs Holm corrects
    assert len(family) == 48
    assert family == [c for c in settings if c.holm]
    for c in family:
        assert c.a.label == c.b.label
        assert c.a.setting in ("naive_rag", "mem0", "personadb")
        assert c.b.setting == "no_retrieval"
        # a gain: the memory-augmented run minus No-Retrieval
        assert c.difference == pytest.approx(accuracy(table, c.a) - accuracy(table, c.b))
    reject, adjusted, _, _ = multipletests([c.p_value for c in family], method="holm")
    assert [c.p_holm for c in family] == pytest.approx(list(adjusted))
    assert [c.reject for c in family] == list(reject)

    outside = [c for c in settings if not c.holm]
    # 16 models × C(4, 2) pairs, plus Gemini-3.8-Flash's pairs with its two diagnostics
    assert len(settings) == 16 * 6 + (4 * 2 + 1)
    pairs = {(c.a.setting, c.b.setting) for c in outside if c.a.label == "Gemini-3.8-Flash"}
    assert ("naive_rag", "disclosed_profile_memory") in pairs
    assert ("naive_rag", "mem0") in pairs
    for c in outside:
        assert c.p_holm is None and c.reject is False
        assert 0 < c.p_value <= 1


def test_outside_the_family_is_labelled_in_the_stored_figures_and_csv():
    """seed 000 App. I: the diagnostics are descriptive; the stored report keeps which
    pairs are in the Holm family, and the CSV names the others uncorrected."""
    table = paper_shaped_table(n_scenarios=4, per_scenario=2)
    table = analysis.PredictionTable(
        table.item_ids,
        table.key,
        table.scenario,
        table.character,
        table.stage,
        table.source_family,
        tuple(c for c in table.columns if c.label in ("model-01", "Gemini-3.8-Flash")),
    )
    figures = from_json(to_json(compute(table)))
    assert isinstance(figures, AnalysisFigures)
    settings = figures.comparisons["settings"]
    assert sum(c.p_holm is not None for c in settings) == 6
    assert sum(c.holm for c in settings) == 6
    names = {s: s for s in (*MAIN, *DIAGNOSTIC)}
    rows = statistics.analysis_rows(figures, names)
    sections = [r[0] for r in rows if r[0].startswith("paired_settings")]
    assert sections.count("paired_settings") == 6
    assert sections.count("paired_settings_uncorrected") == len(settings) - 6
    for r in rows:
        if r[0] == "paired_settings_uncorrected":
            assert r[10] == "" and r[9] != ""
