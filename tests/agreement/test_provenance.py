"""App. K.1's source analyses against independent computations: loops over hand-drawn
scenario resamples, scipy's spearmanr, a statsmodels OLS for the difference-in-differences
and a full enumeration of the sign patterns (refitting the restricted model) for the
wild sign-flip p-value; Holm from statsmodels."""

import itertools

import numpy as np
import pytest
import statsmodels.api as sm
from scipy.stats import spearmanr
from statsmodels.stats.multitest import multipletests

import agreement

SEED = 11
N_BOOT = 400
FAMILIES = ("gemini", "claude", "gpt")


def dataset(n_clusters=8, per_cluster=6, n_models=5, seed=3):
    """Items in scenario clusters, each with a source; models of known families whose
    accuracy leans toward their home source."""
    rng = np.random.default_rng(seed)
    clusters, sources = [], []
    for g in range(n_clusters):
        for j in range(per_cluster):
            clusters.append(f"SCN_{g}")
            sources.append(FAMILIES[(g + j) % 3] if j % 4 else "gemini")
    model_families = ["gemini", "gemini", "claude", "gpt", "other"][:n_models]
    base = np.linspace(0.35, 0.7, n_models)
    correct = np.empty((len(clusters), n_models))
    for m, family in enumerate(model_families):
        p = base[m] + np.where(np.array(sources) == family, 0.12, 0.0)
        correct[:, m] = rng.random(len(clusters)) < p
    return correct, clusters, sources, model_families


def resampled_clusters(clusters, n_boot, seed):
    """The scenarios of each resample, drawn here with numpy directly."""
    labels = list(dict.fromkeys(clusters))
    draws = np.random.default_rng(seed).integers(0, len(labels), size=(n_boot, len(labels)))
    return [[labels[k] for k in row] for row in draws]


def loop_accuracy(correct, clusters, sources, drawn, keep):
    """Accuracy per model over the drawn scenarios' items whose source is in ``keep``."""
    rows = [
        correct[i]
        for label in drawn
        for i, c in enumerate(clusters)
        if c == label and sources[i] in keep
    ]
    return np.mean(rows, axis=0) if rows else np.full(correct.shape[1], np.nan)


def test_stratified_bootstrap_matches_a_loop_over_drawn_scenarios():
    correct, clusters, sources, _ = dataset()
    boot = agreement.stratified_cluster_bootstrap(
        correct, clusters, sources, n_boot=N_BOOT, seed=SEED
    )
    assert boot.strata == ("gemini", "claude", "gpt")
    for keep in (["gemini"], ["claude", "gpt"]):
        mask = np.isin(sources, keep)
        assert boot.accuracy(keep) == pytest.approx(correct[mask].mean(axis=0))
        replicates = boot.replicate_accuracy(keep)
        for b, drawn in enumerate(resampled_clusters(clusters, N_BOOT, SEED)[:60]):
            expected = loop_accuracy(correct, clusters, sources, drawn, keep)
            assert replicates[b] == pytest.approx(expected, nan_ok=True)


def test_spearman_between_sources_matches_scipy():
    correct, clusters, sources, _ = dataset(n_models=5)
    boot = agreement.stratified_cluster_bootstrap(
        correct, clusters, sources, n_boot=N_BOOT, seed=SEED
    )
    pairs = agreement.spearman_between_strata(boot)
    assert [(p.a, p.b) for p in pairs] == [
        ("gemini", "claude"),
        ("gemini", "gpt"),
        ("claude", "gpt"),
    ]
    draws = resampled_clusters(clusters, N_BOOT, SEED)
    for pair in pairs:
        acc = {s: correct[np.array(sources) == s].mean(axis=0) for s in (pair.a, pair.b)}
        assert pair.rho.estimate == pytest.approx(spearmanr(acc[pair.a], acc[pair.b])[0])
        rhos = []
        for drawn in draws:
            a = loop_accuracy(correct, clusters, sources, drawn, [pair.a])
            b = loop_accuracy(correct, clusters, sources, drawn, [pair.b])
            ok = np.isfinite(a).all() and np.isfinite(b).all()
            ok = ok and np.ptp(a) > 0 and np.ptp(b) > 0
            rhos.append(spearmanr(a, b)[0] if ok else np.nan)
        rhos = np.array(rhos)
        defined = rhos[np.isfinite(rhos)]
        assert pair.rho.n_undefined == N_BOOT - defined.size
        assert pair.rho.ci_low == pytest.approx(np.percentile(defined, 2.5))
        assert pair.rho.ci_high == pytest.approx(np.percentile(defined, 97.5))


def test_spearman_needs_three_models():
    correct, clusters, sources, _ = dataset(n_models=2)
    boot = agreement.stratified_cluster_bootstrap(correct, clusters, sources, n_boot=5, seed=1)
    with pytest.raises(agreement.AgreementInputError, match="at least 3 models"):
        agreement.spearman_between_strata(boot)


def test_difference_in_differences_is_the_ols_interaction():
    correct, _, sources, families = dataset()
    in_family = np.array([f == "gemini" for f in families])
    home = np.array([s == "gemini" for s in sources])
    # Long format: one row per (item, model); OLS with home, family and their product.
    y, h, f = [], [], []
    for i in range(correct.shape[0]):
        for m in range(correct.shape[1]):
            y.append(correct[i, m])
            h.append(float(home[i]))
            f.append(float(in_family[m]))
    h, f = np.array(h), np.array(f)
    design = sm.add_constant(np.c_[h, f, h * f])
    fit = sm.OLS(np.array(y), design).fit()
    # Balanced in models, so the saturated model's interaction is the
    # difference-in-differences of group means.
    did = agreement.difference_in_differences(correct, in_family, home)
    assert did == pytest.approx(fit.params[3])
    gemini = correct[:, in_family].mean(axis=1) - correct[:, ~in_family].mean(axis=1)
    assert did == pytest.approx(gemini[home].mean() - gemini[~home].mean())


def exact_sign_flip_p(correct, clusters, in_family, home):
    """Every sign pattern: rebuild the family gap under the null with flipped cluster
    residuals and refit gap ~ 1 + home by least squares."""
    gap = correct[:, in_family].mean(axis=1) - correct[:, ~in_family].mean(axis=1)
    design = np.c_[np.ones(gap.size), home.astype(float)]
    observed = np.linalg.lstsq(design, gap, rcond=None)[0][1]
    labels = list(dict.fromkeys(clusters))
    index = np.array([labels.index(c) for c in clusters])
    residual = gap - gap.mean()
    stats = []
    for signs in itertools.product((-1.0, 1.0), repeat=len(labels)):
        flipped = gap.mean() + np.array(signs)[index] * residual
        stats.append(np.linalg.lstsq(design, flipped, rcond=None)[0][1])
    stats = np.abs(np.array(stats))
    return observed, float(np.mean(stats >= abs(observed) - 1e-12))


def test_wild_sign_flip_p_value_agrees_with_full_enumeration():
    correct, clusters, sources, families = dataset(n_clusters=8)
    for family in FAMILIES:
        in_family = np.array([f == family for f in families])
        home = np.array([s == family for s in sources])
        observed, exact = exact_sign_flip_p(correct, clusters, in_family, home)
        test = agreement.wild_sign_flip_test(
            correct, clusters, in_family, home, n_flips=20_000, seed=SEED
        )
        assert test.statistic == pytest.approx(observed)
        assert test.n_clusters == 8
        # Monte Carlo error of 20,000 flips is below 0.004.
        assert test.p_value == pytest.approx(exact, abs=0.015)


def test_family_interactions_intervals_and_holm():
    correct, clusters, sources, families = dataset()
    boot = agreement.stratified_cluster_bootstrap(
        correct, clusters, sources, n_boot=N_BOOT, seed=SEED
    )
    rows = agreement.family_interactions(
        boot,
        correct,
        clusters,
        sources,
        families,
        families=FAMILIES,
        n_flips=2_000,
        seed=SEED + 1,
    )
    assert [r.family for r in rows] == list(FAMILIES)
    draws = resampled_clusters(clusters, N_BOOT, SEED)
    for row in rows:
        inside = np.array([f == row.family for f in families])
        home = np.array([s == row.family for s in sources])
        did = agreement.difference_in_differences(correct, inside, home)
        assert row.estimate.estimate == pytest.approx(did)
        assert row.advantage_home - row.advantage_other == pytest.approx(did)
        others = [s for s in FAMILIES if s != row.family]
        replicates = []
        for drawn in draws:
            a_home = loop_accuracy(correct, clusters, sources, drawn, [row.family])
            a_other = loop_accuracy(correct, clusters, sources, drawn, others)
            replicates.append(
                (a_home[inside].mean() - a_home[~inside].mean())
                - (a_other[inside].mean() - a_other[~inside].mean())
            )
        replicates = np.array(replicates)
        defined = replicates[np.isfinite(replicates)]
        assert row.estimate.ci_low == pytest.approx(np.percentile(defined, 2.5))
        assert row.estimate.ci_high == pytest.approx(np.percentile(defined, 97.5))
        alone = agreement.wild_sign_flip_test(
            correct, clusters, inside, home, n_flips=2_000, seed=SEED + 1
        )
        assert row.p_value == alone.p_value
    _, adjusted, _, _ = multipletests([r.p_value for r in rows], method="holm")
    assert [r.p_holm for r in rows] == pytest.approx(list(adjusted))


def test_a_family_without_models_outside_is_not_tested():
    correct, clusters, sources, _ = dataset(n_models=3)
    boot = agreement.stratified_cluster_bootstrap(correct, clusters, sources, n_boot=5, seed=1)
    rows = agreement.family_interactions(
        boot,
        correct,
        clusters,
        sources,
        ["gemini", "gemini", "gemini"],
        families=FAMILIES,
        n_flips=10,
        seed=1,
    )
    assert rows == []
