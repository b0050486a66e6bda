"""App. K.1's two further checks (seed 000 App. K.1): the item-fixed-effect linear
probability model, against a least-squares fit on the full dummy design (numpy) and
statsmodels' clustered errors on that design; and the distractor provenance counts on
the public release, against a direct count of its options. Both reach the stored
figures, the page and the CSV."""

import hashlib
import json

import numpy as np
import pytest
from statsmodels.regression.linear_model import OLS
from statsmodels.stats.multitest import multipletests

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.models import McqItem
from annotation.corpus_import.importing import import_paths
from evaluation import analysis, analysis_k1, selectors
from evaluation.prediction_import import evaluation_run_import
from tests.stored_reports import compute_analysis

MEMORY = ("naive_rag", "mem0", "personadb")
FAMILIES = ("gemini", "claude", "gpt")
MODELS = (
    ("gemini-a", "gemini"),
    ("gemini-b", "gemini"),
    ("claude-a", "claude"),
    ("claude-b", "claude"),
    ("gpt-a", "gpt"),
    ("open-x", ""),
)


def provenance_table(seed=21) -> analysis.PredictionTable:
    """Six models (one of no family) in the three memory-augmented settings over 48
    items in 12 scenarios, a model of family f a little better on f's items."""
    rng = np.random.default_rng(seed)
    items = list(range(1, 49))
    key = {i: "ABCD"[i % 4] for i in items}
    source = {i: FAMILIES[(i * 7) % 3] if i % 5 else "gemini" for i in items}
    columns = []
    for m, (label, family) in enumerate(MODELS):
        for s, setting in enumerate(MEMORY):
            base = 0.3 + 0.05 * m + 0.05 * s
            answers = {}
            for i in items:
                p = base + (0.15 if source[i] == family else 0.0)
                answers[i] = key[i] if rng.random() < p else "ABCD"[(i + 1) % 4]
            columns.append(analysis.Column(10 * m + s, label, setting, answers, family=family))
    return analysis.PredictionTable(
        tuple(items),
        key,
        {i: f"SCN_{(i - 1) // 4}" for i in items},
        {i: f"CHAR_{i % 5}" for i in items},
        {i: "school_age" for i in items},
        source,
        tuple(columns),
    )


def test_item_fixed_effect_coefficients_equal_a_full_dummy_fit():
    """seed 000 App. K.1: "an item-fixed-effect linear probability model controlling for
    model-by-retrieval-setting effects and jointly fitting the three home-family
    interactions"; the coefficients, clustered intervals and Holm p-values equal those
    of the full design (item dummies, run dummies, three interactions)."""
    table = provenance_table()
    check = analysis_k1.item_fixed_effect_check(table)
    assert check is not None
    assert [t.family for t in check.terms] == list(FAMILIES)

    items, runs = list(table.item_ids), list(table.columns)
    rows, y, groups = [], [], []
    for a, i in enumerate(items):
        for r, col in enumerate(runs):
            item_dummies = np.eye(len(items))[a]
            run_dummies = np.eye(len(runs))[r][1:]  # one run is the reference level
            home = [float(col.family == f and table.source_family[i] == f) for f in FAMILIES]
            rows.append(np.concatenate([item_dummies, run_dummies, home]))
            y.append(float(col.answers[i] == table.key[i]))
            groups.append(table.scenario[i])
    design, y = np.array(rows), np.array(y)
    coefficients = np.linalg.lstsq(design, y, rcond=None)[0][-3:]
    assert [t.coefficient for t in check.terms] == pytest.approx(list(coefficients), abs=1e-10)

    # The same sandwich on the full design, with the small-sample factor of the within
    # fit (its three interaction terms): G/(G−1)·(N−1)/(N−3).
    clusters = np.unique(groups, return_inverse=True)[1]
    full = OLS(y, design).fit(
        cov_type="cluster", cov_kwds={"groups": clusters, "use_correction": False}
    )
    n, g = len(y), len(set(groups))
    factor = np.sqrt(g / (g - 1) * (n - 1) / (n - 3))
    se = np.asarray(full.bse)[-3:] * factor
    for t, coef, s in zip(check.terms, coefficients, se, strict=True):
        assert (t.ci_low, t.ci_high) == pytest.approx((coef - 1.959964 * s, coef + 1.959964 * s))
    p = [t.p_value for t in check.terms]
    reject, adjusted, _, _ = multipletests(p, alpha=0.05, method="holm")
    assert [t.p_holm for t in check.terms] == pytest.approx(list(adjusted))
    assert (check.n_observations, check.n_items, check.n_runs, check.n_clusters) == (
        len(items) * len(runs),
        len(items),
        len(runs),
        12,
    )


def test_a_family_without_models_outside_it_is_not_fitted():
    """seed 000 App. K.1: an interaction needs models inside and outside the family."""
    table = provenance_table()
    gemini_only = [c for c in table.columns if c.family in ("gemini", "claude")]
    check = analysis_k1.item_fixed_effect_check(
        analysis.PredictionTable(
            table.item_ids,
            table.key,
            table.scenario,
            table.character,
            table.stage,
            table.source_family,
            tuple(gemini_only),
        )
    )
    assert [t.family for t in check.terms] == ["gemini", "claude"]


def stand_in_family(character_key: str, scenario_id: str) -> str:
    """A fixed stand-in source for a release pair (the release records none)."""
    digest = hashlib.sha256(f"{character_key}|{scenario_id}".encode()).digest()[0]
    return "gemini" if digest < 190 else "claude" if digest < 240 else "gpt"


@pytest.mark.django_db
def test_distractor_provenance_on_the_release_equals_a_direct_count(
    client, admin_user, release_dir
):
    """seed 000 App. K.1: "of the 2,019 distractors, 1,471 (72.9%) are Gemini-origin ...
    and 486 of the 497 Gemini-origin items contain at least one Gemini-origin
    distractor". On the release's 673 items (stand-in sources), the stored figures, the
    page and the CSV give the counts a direct count of the options gives."""
    import_paths([release_dir])
    for ref in ReferenceResponse.objects.filter(superseded_at__isnull=True).select_related(
        "character", "scenario"
    ):
        ref.source_family = stand_in_family(ref.character.key, ref.scenario.scenario_id)
        ref.save(update_fields=["source_family"])
    items = list(McqItem.objects.order_by("pk").prefetch_related("options"))
    assert len(items) == 673
    answers = {item.question_id: item.correct_answer for item in items}
    payload = {"model": "gemini-test", "setting": "naive_rag", "predictions": answers}
    evaluation_run_import(
        created_by=admin_user, filename="gemini.json", content=json.dumps(payload).encode()
    )

    # The direct count: each distractor's family is that of its source character's
    # reference in the item's scenario.
    pair_family = {
        (ref.character.key, ref.scenario_id): ref.source_family
        for ref in ReferenceResponse.objects.filter(superseded_at__isnull=True).select_related(
            "character"
        )
    }
    by_family, own, by_source = {}, {}, {}
    for item in items:
        key_family = pair_family[(item.character.key, item.scenario_id)]
        by_source[key_family] = by_source.get(key_family, 0) + 1
        distractors = [
            pair_family[(o.source_character, item.scenario_id)]
            for o in item.options.all()
            if not o.is_correct
        ]
        assert len(distractors) == 3
        for f in distractors:
            by_family[f] = by_family.get(f, 0) + 1
        own[key_family] = own.get(key_family, 0) + (key_family in distractors)

    table = selectors.prediction_table(selectors.analysis_runs())
    counts = analysis_k1.distractor_provenance(table)
    assert counts.n_items == 673 and counts.n_distractors == 2019 == sum(by_family.values())
    assert counts.by_family == {f: by_family[f] for f in FAMILIES if f in by_family}
    assert counts.items_by_source == {f: by_source[f] for f in FAMILIES if f in by_source}
    assert counts.own_family_items == {f: own[f] for f in FAMILIES if f in by_source}

    client.force_login(admin_user)
    compute_analysis()
    page = client.get("/evaluation/analysis/")
    stored = page.context["distractors"]
    assert stored == counts
    html = page.content.decode()
    gemini = by_family["gemini"]
    assert f"{gemini:,} ({100 * gemini / 2019:.1f}%) Gemini" in html
    assert f"Gemini {own['gemini']} of {by_source['gemini']}" in html
    csv_text = client.get("/evaluation/analysis.csv").content.decode()
    assert f"k1_distractor_family,,,gemini,2019,{gemini}," in csv_text
    assert f"k1_own_family_distractor,,,gemini,{by_source['gemini']},{own['gemini']}," in csv_text
