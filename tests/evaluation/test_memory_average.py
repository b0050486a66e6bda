"""The Memory-Augmented Avg. (seed 000 §3.1, Table 2, App. K.1): "the mean over Naive-RAG,
Mem0, and PersonaDB". With Mem0 and PersonaDB runs present (imported, under the settings
``mem0`` and ``personadb``), every one of them enters a model's average, its per-source
average (Table 20) and the pooled K.3/K.4 figures; checked against numpy."""

import numpy as np
import pytest

from evaluation import analysis, analysis_k

SETTINGS = ("no_retrieval", "naive_rag", "mem0", "personadb")
P_CORRECT = {"no_retrieval": 0.25, "naive_rag": 0.55, "mem0": 0.35, "personadb": 0.8}


def table_with_three_backends(seed=5) -> analysis.PredictionTable:
    rng = np.random.default_rng(seed)
    items = list(range(1, 41))
    key = {i: "ABCD"[i % 4] for i in items}
    columns = []
    for n, label in enumerate(("gemini-x", "claude-y")):
        for s, setting in enumerate(SETTINGS):
            answers = {
                i: key[i] if rng.random() < P_CORRECT[setting] else "ABCD"[(i + 2) % 4]
                for i in items
            }
            family = label.split("-")[0]
            columns.append(analysis.Column(10 * n + s, label, setting, answers, family=family))
    return analysis.PredictionTable(
        tuple(items),
        key,
        {i: f"SCN_{i // 4}" for i in items},
        {i: f"CHAR_{i % 3}" for i in items},
        {i: "school_age" if i % 2 else "adolescence" for i in items},
        {i: ("gemini", "claude", "gpt")[i % 3] for i in items},
        tuple(columns),
    )


def accuracy(table, column, items=None):
    items = table.item_ids if items is None else items
    return float(np.mean([column.answers[i] == table.key[i] for i in items]))


def test_memory_augmented_average_includes_mem0_and_personadb():
    """seed 000 §3.1 and App. K.1: Memory-Augmented Avg. is the mean over Naive-RAG,
    Mem0 and PersonaDB (not Naive-RAG alone)."""
    table = table_with_three_backends()
    averages = {m.label: m for m in analysis_k.memory_averages(table)}
    assert set(averages) == {"gemini-x", "claude-y"}
    for label, row in averages.items():
        cols = {c.setting: c for c in table.columns if c.label == label}
        expected = np.mean([accuracy(table, cols[s]) for s in ("naive_rag", "mem0", "personadb")])
        assert set(row.settings) == {"naive_rag", "mem0", "personadb"}
        assert row.average == pytest.approx(expected)
        assert row.average != pytest.approx(accuracy(table, cols["naive_rag"]))


def test_source_table_and_pooled_groups_use_every_memory_backend():
    """seed 000 App. K.1 (Table 20), K.3 and K.4: the per-source Memory-Augmented Avg. and
    the pooled life-stage accuracy cover the three memory-augmented settings."""
    table = table_with_three_backends()
    source_table = analysis_k.source_stratified(table)
    assert source_table.settings == (*SETTINGS, analysis_k.MEMORY_AVG)
    for row in source_table.rows:
        cols = {c.setting: c for c in table.columns if c.label == row.label}
        for source in source_table.sources:
            items = [i for i in table.item_ids if table.source_family[i] == source]
            expected = np.mean(
                [accuracy(table, cols[s], items) for s in ("naive_rag", "mem0", "personadb")]
            )
            assert row.cells[(source, analysis_k.MEMORY_AVG)].accuracy == pytest.approx(expected)
    stages = {g.group: g for g in analysis_k.group_accuracy(table, "stage")}
    for stage, group in stages.items():
        items = [i for i in table.item_ids if table.stage[i] == stage]
        memory = [c for c in table.columns if c.setting != "no_retrieval"]
        assert group.n == len(items) * len(memory) == len(items) * 6
        correct = sum(sum(c.answers[i] == table.key[i] for i in items) for c in memory)
        assert group.correct == correct
        assert set(group.per_setting) == {"naive_rag", "mem0", "personadb"}


def test_the_analysis_and_the_runs_name_the_same_memory_augmented_settings():
    """seed 000 §3.1: the analysis (Django-free) keeps its own list of the memory-augmented
    settings; it must be the runs' list, or a run marked memory-augmented would be left out
    of the Memory-Augmented Avg. and of Holm's family."""
    from evaluation import analysis, models

    assert analysis.MEMORY_AUGMENTED_SETTINGS == tuple(
        s.value for s in models.MEMORY_AUGMENTED_SETTINGS
    )
