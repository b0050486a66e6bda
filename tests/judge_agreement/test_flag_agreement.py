"""The judge-versus-experts figures (agreement.flag_agreement) against independent
computations: κ, precision and recall from scikit-learn, the counts by hand, and the
bootstrap interval recomputed from the same seeded resamples with scikit-learn's κ on
each resample."""

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score, precision_score, recall_score

from agreement import bootstrap_unit_indices
from agreement.flag_agreement import flag_agreement, flag_agreement_table

SEED = 20261012


def flags(n, seed, share=0.4, agree=0.8):
    rng = np.random.default_rng(seed)
    expert = (rng.random(n) < share).astype(int)
    judge = np.where(rng.random(n) < agree, expert, 1 - expert)
    return judge, expert


def percentile_ci(values, level=0.95):
    values = np.asarray([v for v in values if np.isfinite(v)])
    tail = (1 - level) / 2
    return tuple(np.quantile(values, [tail, 1 - tail]))


@pytest.mark.parametrize("n", [12, 40, 300])  # 300 takes the multinomial sampler
def test_figures_equal_scikit_learn_and_the_resampled_interval(n):
    judge, expert = flags(n, seed=n)
    result = flag_agreement(judge, expert, n_boot=200, seed=SEED)
    assert result.n == n
    assert (result.tp, result.fp, result.fn, result.tn) == (
        int(((judge == 1) & (expert == 1)).sum()),
        int(((judge == 1) & (expert == 0)).sum()),
        int(((judge == 0) & (expert == 1)).sum()),
        int(((judge == 0) & (expert == 0)).sum()),
    )
    assert result.kappa.estimate == pytest.approx(cohen_kappa_score(judge, expert))
    assert result.precision.estimate == pytest.approx(precision_score(expert, judge))
    assert result.recall.estimate == pytest.approx(recall_score(expert, judge))

    # The same resamples, as unit indices: scikit-learn on each one.
    resamples = bootstrap_unit_indices(np.column_stack([judge, expert]), 200, SEED)
    kappas, precisions, recalls = [], [], []
    for rows in resamples:
        j, e = judge[rows], expert[rows]
        same_one_category = len(set(j) | set(e)) == 1
        kappas.append(np.nan if same_one_category else cohen_kappa_score(j, e))
        precisions.append(precision_score(e, j, zero_division=np.nan) if j.sum() else np.nan)
        recalls.append(recall_score(e, j, zero_division=np.nan) if e.sum() else np.nan)
    for estimate, replicates in (
        (result.kappa, kappas),
        (result.precision, precisions),
        (result.recall, recalls),
    ):
        low, high = percentile_ci(replicates)
        assert (estimate.ci_low, estimate.ci_high) == (pytest.approx(low), pytest.approx(high))
        assert estimate.n_undefined == int(np.isnan(np.asarray(replicates, float)).sum())
        assert estimate.n_boot == 200


def test_a_judge_that_flags_everything_has_kappa_zero_as_scikit_learn_says():
    expert = np.array([1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0])
    judge = np.ones_like(expert)
    result = flag_agreement(judge, expert, n_boot=200, seed=SEED)
    assert result.kappa.estimate == pytest.approx(cohen_kappa_score(judge, expert)) == 0.0
    assert result.precision.estimate == pytest.approx(expert.mean())
    assert result.recall.estimate == 1.0 and result.tn == result.fn == 0


def test_records_all_in_one_category_have_no_kappa_and_say_why():
    result = flag_agreement([1] * 12, [1] * 12, n_boot=50, seed=SEED)
    assert result.kappa is None and "same category" in result.undefined["kappa"]
    assert result.precision.estimate == result.recall.estimate == 1.0
    nothing = flag_agreement([0] * 12, [0] * 12, n_boot=50, seed=SEED)
    assert nothing.precision is None and "flagged no record" in nothing.undefined["precision"]
    assert nothing.recall is None and "found no defect" in nothing.undefined["recall"]


def test_the_table_withholds_figures_below_the_minimum_and_keeps_the_counts():
    judge, expert = flags(30, seed=3)
    table = flag_agreement_table(
        {"all": (judge, expert), "few": (judge[:4], expert[:4])},
        min_pairs=10,
        n_boot=100,
        seed=SEED,
    )
    assert table["all"]["enough"] and table["all"]["n"] == 30
    assert table["all"]["kappa"]["estimate"] == pytest.approx(cohen_kappa_score(judge, expert))
    few = table["few"]
    assert few["enough"] is False and few["n"] == 4 and "kappa" not in few
    j, e = judge[:4], expert[:4]
    assert [few[c] for c in ("tp", "fp", "fn", "tn")] == [
        int(((j == 1) & (e == 1)).sum()),
        int(((j == 1) & (e == 0)).sum()),
        int(((j == 0) & (e == 1)).sum()),
        int(((j == 0) & (e == 0)).sum()),
    ]


@pytest.mark.parametrize("n", [15, 300])  # 300 takes the multinomial sampler
def test_weighted_figures_equal_scikit_learn_with_sample_weights_and_the_resamples(n):
    from agreement.flag_agreement import weighted_flag_agreement

    judge, expert = flags(n, seed=n + 1)
    # Passed records stand for 4 or 7 records each (drawn from pools of two sizes).
    rng = np.random.default_rng(n)
    weight = np.where(judge == 1, 1.0, rng.choice([4.0, 7.0], size=n))
    result = weighted_flag_agreement(judge, expert, weight, n_boot=200, seed=SEED)
    assert (result.n, result.total) == (n, pytest.approx(weight.sum()))
    assert result.fn == pytest.approx(weight[(judge == 0) & (expert == 1)].sum())
    assert result.recall.estimate == pytest.approx(
        recall_score(expert, judge, sample_weight=weight)
    )
    assert result.precision.estimate == pytest.approx(
        precision_score(expert, judge, sample_weight=weight)
    )
    assert result.kappa.estimate == pytest.approx(
        cohen_kappa_score(judge, expert, sample_weight=weight)
    )
    resamples = bootstrap_unit_indices(np.column_stack([judge, expert, weight]), 200, SEED)
    recalls = []
    for rows in resamples:
        j, e, w = judge[rows], expert[rows], weight[rows]
        recalls.append(recall_score(e, j, sample_weight=w) if e.sum() else np.nan)
    low, high = percentile_ci(recalls)
    assert (result.recall.ci_low, result.recall.ci_high) == (
        pytest.approx(low),
        pytest.approx(high),
    )


def test_weights_must_be_positive_and_one_per_record():
    from agreement import AgreementInputError
    from agreement.flag_agreement import weighted_flag_agreement

    with pytest.raises(AgreementInputError, match="above 0"):
        weighted_flag_agreement([1, 0], [1, 1], [1.0, 0.0], n_boot=0, seed=SEED)
    with pytest.raises(AgreementInputError, match="same records"):
        weighted_flag_agreement([1, 0], [1, 1], [1.0], n_boot=0, seed=SEED)
