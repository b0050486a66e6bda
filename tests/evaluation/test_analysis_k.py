"""The App. K tables against independent computations on imported predictions: pandas
group-bys for Table 20, the Memory-Augmented Avg., K.3 and K.4; scipy's spearmanr and
a loop over scenario resamples drawn here with numpy for the ranks; a statsmodels OLS for
the interaction; statsmodels' Holm. Then the page shows them at a constant query count."""

import json
import re

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from django.urls import reverse
from scipy.stats import spearmanr
from statsmodels.stats.multitest import multipletests

from agreement import constants
from evaluation import analysis, analysis_k, analysis_k1, selectors
from evaluation.prediction_import import evaluation_run_import
from tests.stored_reports import compute_analysis

from .conftest import build_corpus

pytestmark = pytest.mark.django_db

#: (label, setting, accuracy on own-family items, elsewhere)
RUNS = [
    ("gemini-pro", "naive_rag", 0.75, 0.6),
    ("gemini-flash", "naive_rag", 0.7, 0.55),
    ("claude-sonnet", "naive_rag", 0.5, 0.45),
    ("gpt-5", "naive_rag", 0.45, 0.4),
    ("qwen-large", "naive_rag", 0.35, 0.35),
    ("gemini-pro", "no_retrieval", 0.3, 0.25),
    ("claude-sonnet", "no_retrieval", 0.25, 0.3),
    ("qwen-large", "no_retrieval", 0.25, 0.25),
]
N_BOOT = 300
N_FLIPS = 2_000


def import_runs(admin_user, items, runs=RUNS, seed=5):
    rng = np.random.default_rng(seed)
    records = []
    for label, setting, home, other in runs:
        family = analysis.model_family(label)
        predictions = {}
        for item in items:
            p = home if item.reference.source_family == family else other
            if rng.random() < p:
                letter = item.correct_answer
            else:
                letter = rng.choice([x for x in "ABCD" if x != item.correct_answer])
            predictions[item.question_id] = str(letter)
            records.append(
                {
                    "label": label,
                    "family": family,
                    "setting": setting,
                    "item": item.pk,
                    "scenario": item.scenario.scenario_id,
                    "character": item.character.key,
                    "stage": item.stage,
                    "source": item.reference.source_family,
                    "correct": float(letter == item.correct_answer),
                }
            )
        evaluation_run_import(
            created_by=admin_user,
            filename=f"{label}-{setting}.json",
            content=json.dumps(
                {"model": label, "setting": setting, "predictions": predictions}
            ).encode(),
        )
    return pd.DataFrame(records)


@pytest.fixture
def frame(admin_user):
    corpus = build_corpus(n_characters=4, n_scenarios=6)
    items = corpus["items"]
    # Two life stages and different characters per stage, so K.3 and K.4 differ.
    for n, item in enumerate(items):
        if n % 3 == 0:
            item.stage = "adolescence"
            item.save(update_fields=["stage"])
    return import_runs(admin_user, items)


def build_items():
    from adjudication.mcq.models import McqItem

    return McqItem.objects.select_related("reference", "scenario", "character").order_by("pk")


def table():
    return selectors.prediction_table(selectors.analysis_runs())


def test_model_family_from_label_or_provider():
    assert analysis.model_family("Gemini-3.1-Pro") == "gemini"
    assert analysis.model_family("claude-haiku-4.5") == "claude"
    assert analysis.model_family("GPT-5.4-mini") == "gpt"
    assert analysis.model_family("qwen3.5-122b", "openai_compatible") == ""
    assert analysis.model_family("my-model", "anthropic") == "claude"
    assert analysis.model_family("gemini vs gpt ensemble", "openai") == ""


def test_source_stratified_table_and_memory_average(frame):
    result = analysis_k.source_stratified(table())
    assert result.sources == ("gemini", "claude", "gpt")
    assert result.settings == ("no_retrieval", "naive_rag", analysis_k.MEMORY_AVG)
    expected = frame.groupby(["label", "setting", "source"])["correct"].mean()
    rows = {r.label: r for r in result.rows}
    for (label, setting, source), value in expected.items():
        assert rows[label].cells[(source, setting)].accuracy == pytest.approx(value)
    rag = frame[frame.setting == "naive_rag"].groupby(["label", "source"])["correct"].mean()
    for (label, source), value in rag.items():
        assert rows[label].cells[(source, analysis_k.MEMORY_AVG)].accuracy == pytest.approx(value)
    # Bold: the maximum of each (source, setting), ties included.
    for (setting, source), group in expected.groupby(level=["setting", "source"]):
        best = {lab for (lab, _, _), v in group.items() if v == group.max()}
        marked = {
            label
            for label, r in rows.items()
            if r.cells.get((source, setting), None) and r.cells[(source, setting)].best
        }
        assert marked == best
    averages = {m.label: m.average for m in analysis_k.memory_averages(table())}
    overall = frame[frame.setting == "naive_rag"].groupby("label")["correct"].mean()
    assert averages == pytest.approx(overall.to_dict())


def test_own_source_recognition_without_memories(frame):
    rows = {o.family: o for o in analysis_k.own_source_no_retrieval(table())}
    nr = frame[frame.setting == "no_retrieval"]
    for family in ("gemini", "claude"):
        acc = nr[nr.source == family].groupby(["label", "family"])["correct"].mean()
        inside = [v for (_, f), v in acc.items() if f == family]
        outside = [v for (_, f), v in acc.items() if f != family]
        assert rows[family].family_mean == pytest.approx(np.mean(inside))
        assert rows[family].other_mean == pytest.approx(np.mean(outside))
    assert "gpt" not in rows  # no GPT model without memories


def drawn_scenarios(scenarios, n_boot, seed):
    return np.random.default_rng(seed).integers(0, len(scenarios), size=(n_boot, len(scenarios)))


def test_rank_stability_spearman_and_interactions(frame):
    result = analysis_k.provenance_analysis(table(), n_boot=N_BOOT, n_flips=N_FLIPS)
    rag = frame[frame.setting == "naive_rag"]
    labels = list(result.matrix.labels)
    assert set(labels) == set(rag.label)
    wide = rag.pivot_table(index="item", columns="label", values="correct")[labels]
    meta = rag.drop_duplicates("item").set_index("item").loc[wide.index]
    scenarios = list(dict.fromkeys(meta.scenario))  # first appearance in item order
    # Point accuracies per source, and Spearman against scipy.
    acc = {s: wide[meta.source == s].mean() for s in ("gemini", "claude", "gpt")}
    for s in acc:
        assert [result.accuracy[s][label] for label in labels] == pytest.approx(list(acc[s]))
    for c in result.correlations:
        assert c.rho.estimate == pytest.approx(spearmanr(acc[c.a], acc[c.b])[0])
    assert len(result.correlations) == 3

    # Rank stability: the top two overall, jointly in the top two of each resample.
    overall = wide.mean()
    top = list(overall.sort_values(ascending=False, kind="stable").index[:2])
    assert list(result.stability.members) == top
    draws = drawn_scenarios(scenarios, N_BOOT, constants.CLUSTER_BOOTSTRAP_SEED)
    for source in ("gemini", "claude", "gpt"):
        inside = hits = 0
        for row in draws:
            picked = pd.concat(
                [wide[(meta.scenario == scenarios[k]) & (meta.source == source)] for k in row]
            )
            if picked.empty:
                continue
            inside += 1
            means = picked.mean()
            second = means.sort_values(ascending=False).iloc[1]
            hits += all(means[m] >= second for m in top)
        assert result.stability.n_defined[source] == inside
        assert result.stability.shares[source] == pytest.approx(hits / inside)

    # The interaction: an OLS of each item's family gap on its home indicator.
    p_values = []
    for row in result.interactions:
        inside = [label for label in labels if analysis.model_family(label) == row.family]
        gap = wide[inside].mean(axis=1) - wide.drop(columns=inside).mean(axis=1)
        home = (meta.source == row.family).astype(float)
        fit = sm.OLS(gap.to_numpy(), sm.add_constant(home.to_numpy())).fit()
        assert row.estimate.estimate == pytest.approx(fit.params[1])
        assert row.n_flips == N_FLIPS
        p_values.append(row.p_value)
    assert [r.family for r in result.interactions] == ["gemini", "claude", "gpt"]
    _, adjusted, _, _ = multipletests(p_values, method="holm")
    assert [r.p_holm for r in result.interactions] == pytest.approx(list(adjusted))


def test_life_stage_and_character_accuracy(frame):
    rag = frame[frame.setting == "naive_rag"]
    stages = analysis_k.group_accuracy(
        table(), "stage", order=("school_age", "adolescence", "settling_down")
    )
    assert [g.group for g in stages] == ["school_age", "adolescence"]
    pooled = rag.groupby("stage")["correct"].agg(["mean", "size"])
    per_model = rag.groupby(["stage", "label"])["correct"].mean()
    for g in stages:
        assert g.accuracy == pytest.approx(pooled.loc[g.group, "mean"])
        assert g.n == pooled.loc[g.group, "size"]
        assert g.per_model == pytest.approx(per_model.loc[g.group].to_dict())
    characters = analysis_k.group_accuracy(table(), "character")
    by_setting = rag.groupby(["character", "setting"])["correct"].mean()
    for g in characters:
        expected = by_setting.loc[g.group].mean()  # one memory-augmented setting here
        assert analysis_k.setting_mean(g) == pytest.approx(expected)


def test_page_shows_the_k_tables_at_a_constant_query_count(
    frame, admin_user, client, django_assert_num_queries
):
    client.force_login(admin_user)
    url = reverse("evaluation:analysis")
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    compute_analysis()
    with CaptureQueriesContext(connection) as ctx:
        html = client.get(url).content.decode()
    for testid in (
        "memory-average-table",
        "source-table",
        "own-source-table",
        "rank-stability-table",
        "spearman-table",
        "interaction-table",
        "life-stage-table",
        "life-stage-plot",
        "character-table",
        "character-plot",
    ):
        assert f'data-testid="{testid}"' in html, testid
    shown = [float(x) for x in re.findall(r'data-testid="rho">([-0-9.]+)<', html)]
    expected = analysis_k.provenance_analysis(table()).correlations
    assert shown == pytest.approx([round(c.rho.estimate, 3) for c in expected])
    # More runs, the same number of queries.
    items = [i for i in build_items()]
    import_runs(admin_user, items, runs=[("gpt-6", "naive_rag", 0.5, 0.5), *RUNS[:2]], seed=9)
    compute_analysis()
    with django_assert_num_queries(len(ctx.captured_queries)):
        assert client.get(url).status_code == 200


def test_page_shows_the_fixed_effect_check_and_the_distractor_counts(frame, admin_user, client):
    """seed 000 App. K.1: the item-fixed-effect robustness check and the distractor
    provenance counts are on the analysis page, from the stored figures."""
    client.force_login(admin_user)
    compute_analysis()
    html = client.get(reverse("evaluation:analysis")).content.decode()
    check = analysis_k1.item_fixed_effect_check(table())
    shown = [float(x) for x in re.findall(r'data-testid="fe-coefficient">([-0-9.]+)<', html)]
    assert shown and shown == pytest.approx([round(100 * t.coefficient, 1) for t in check.terms])
    counts = analysis_k1.distractor_provenance(table())
    assert counts.n_distractors == 3 * counts.n_items == 3 * len(frame["item"].unique())
    assert f"Of the {counts.n_distractors} distractors of the {counts.n_items} analysed" in html
    assert html.count('data-testid="distractor-family"') == len(counts.by_family)


def test_an_item_without_a_reference_link_takes_its_pairs_source(frame):
    """Release items are imported without a reference link; their source is that of the
    current reference of their (character, scenario) pair."""
    item = build_items().first()
    family = item.reference.source_family
    item.reference = None
    item.save(update_fields=["reference"])
    assert table().source_family[item.pk] == family
