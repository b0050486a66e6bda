"""Calibration of an LLM judge against the experts (issue 22): every figure against an
independent computation (scikit-learn, statsmodels, scipy, hand counts), and every interval
against a plain loop over the very resamples the function used."""

import itertools

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from agreement import MISSING, AgreementInputError, UndefinedStatisticError
from agreement import judge_calibration as jc
from agreement.agreement_lift import agreement_lift
from agreement.resampling import bootstrap_unit_indices

N_BOOT = 400
SEED = 7


def resamples(n):
    return bootstrap_unit_indices(np.arange(n)[:, None], N_BOOT, SEED)


def percentile(values, level=0.95):
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    tail = (1 - level) / 2
    return tuple(np.quantile(values, [tail, 1 - tail]))


def fixture(n=40, seed=3):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n)
    humans = np.where(rng.random((n, 3)) < 0.7, truth[:, None], rng.integers(0, 3, (n, 3)))
    judge = np.where(rng.random(n) < 0.6, truth, rng.integers(0, 3, n))
    return judge, humans


def judge_kappa(judge, humans):
    return np.mean([cohen_kappa_score(judge, humans[:, s]) for s in range(humans.shape[1])])


def pairwise_kappa(humans):
    return np.mean(
        [
            cohen_kappa_score(humans[:, r], humans[:, s])
            for r, s in itertools.combinations(range(3), 2)
        ]
    )


def fleiss(humans):
    return fleiss_kappa(aggregate_raters(humans, n_cat=3)[0])


# --- routing ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("selected", "as_is", "flagged", "adopted", "reasons"),
    [
        ([5, 5, 5], [True] * 3, [False] * 3, True, []),
        ([5, 6, 5], [True] * 3, [False] * 3, False, [jc.REASON_DIFFERENT]),
        ([5, 5, 5], [True, False, True], [False] * 3, False, [jc.REASON_PARTIAL]),
        (
            [5, 6, 5],
            [True, False, True],
            [False, True, False],
            False,
            [jc.REASON_FLAGGED, jc.REASON_DIFFERENT, jc.REASON_PARTIAL],
        ),
    ],
)
def test_consensus_routing_is_the_rule_of_app_d2(selected, as_is, flagged, adopted, reasons):
    assert jc.consensus_routing(selected=selected, as_is=as_is, flagged=flagged) == (
        adopted,
        reasons,
    )


# --- selection agreement ---------------------------------------------------------------------


def test_selection_agreement_matches_sklearn_and_statsmodels():
    judge, humans = fixture()
    result = jc.selection_agreement(judge, humans, n_categories=3, n_boot=N_BOOT, seed=SEED)
    assert result.n == 40
    assert result.judge_human_kappa.estimate == pytest.approx(judge_kappa(judge, humans))
    for slot in range(3):
        assert result.judge_kappa_by_slot[slot] == pytest.approx(
            cohen_kappa_score(judge, humans[:, slot])
        )
    assert result.human_fleiss_kappa.estimate == pytest.approx(fleiss(humans))
    assert result.human_pairwise_kappa.estimate == pytest.approx(pairwise_kappa(humans))
    assert result.difference.estimate == pytest.approx(
        judge_kappa(judge, humans) - pairwise_kappa(humans)
    )
    loops = {"judge": [], "fleiss": [], "pairwise": [], "difference": []}
    for idx in resamples(40):
        j, h = judge[idx], humans[idx]
        loops["judge"].append(judge_kappa(j, h))
        loops["fleiss"].append(fleiss(h))
        loops["pairwise"].append(pairwise_kappa(h))
        loops["difference"].append(loops["judge"][-1] - loops["pairwise"][-1])
    for name, estimate in (
        ("judge", result.judge_human_kappa),
        ("fleiss", result.human_fleiss_kappa),
        ("pairwise", result.human_pairwise_kappa),
        ("difference", result.difference),
    ):
        assert (estimate.ci_low, estimate.ci_high) == pytest.approx(percentile(loops[name]))
        assert estimate.n_boot == N_BOOT


def test_selection_agreement_refuses_an_undefined_kappa():
    humans = np.zeros((5, 3), dtype=int)
    with pytest.raises(UndefinedStatisticError, match="undefined"):
        jc.selection_agreement(np.zeros(5, dtype=int), humans, n_categories=3)
    with pytest.raises(AgreementInputError, match="at least 2 annotators"):
        jc.selection_agreement([0, 1], [[0], [1]], n_categories=3)
    with pytest.raises(AgreementInputError, match="expected 2"):
        jc.selection_agreement([0, 1, 2], [[0, 1], [1, 0]], n_categories=3)


# --- outcome agreement -----------------------------------------------------------------------


def test_outcome_agreement_by_hand():
    judge = [0, 1, 2, 0, 1]
    humans = [[0, 0, 1], [1, 1, 1], [0, 0, 0], [2, 0, 0], [1, 2, 0]]
    reference = [0, 1, MISSING, 2, 1]  # pair 2 was rewritten: left out
    result = jc.outcome_agreement(judge, humans, reference, n_categories=3)
    assert result.n == 4
    assert result.judge.estimate == pytest.approx(3 / 4)  # pairs 0, 1, 4
    # hits: pair 0: 2, pair 1: 3, pair 3: 1, pair 4: 1 → 7 of 12
    assert result.humans.estimate == pytest.approx(7 / 12)
    assert result.human_by_slot == pytest.approx((4 / 4, 2 / 4, 1 / 4))
    with pytest.raises(UndefinedStatisticError, match="none of the 1 pairs"):
        jc.outcome_agreement([0], [[0, 0]], [MISSING], n_categories=3)


def test_outcome_agreement_interval_matches_a_loop():
    judge, humans = fixture(30, seed=5)
    reference = humans[:, 0].copy()
    result = jc.outcome_agreement(
        judge, humans, reference, n_categories=3, n_boot=N_BOOT, seed=SEED
    )
    loop_j = [np.mean(judge[i] == reference[i]) for i in resamples(30)]
    loop_h = [np.mean(humans[i] == reference[i][:, None]) for i in resamples(30)]
    assert (result.judge.ci_low, result.judge.ci_high) == pytest.approx(percentile(loop_j))
    assert (result.humans.ci_low, result.humans.ci_high) == pytest.approx(percentile(loop_h))


# --- replace one expert ----------------------------------------------------------------------


def test_replace_one_expert_counts_route_and_reference_changes_by_hand():
    # pair 0: unanimous as-is on 10 → adopted; the judge picks 11 → escalated in every slot.
    # pair 1: escalated (annotator 2 chose 21, all as-is); the judge picks 20 → in slot 2 the
    #   pair becomes unanimous on 20, but the arbitrator had adopted 21: the reference changes.
    # pair 2: unanimous on 30 but annotator 0 asked for revisions → escalated; the judge
    #   replaces slot 0 with 30 as-is → adopted 30, the arbitrator's reference was 30 too.
    # pair 3: unanimous, the judge agrees but flags suitability → escalated in every slot.
    result = jc.replace_one_expert(
        judge_selected=[11, 20, 30, 40],
        judge_as_is=[True, True, True, True],
        judge_flagged=[False, False, False, True],
        human_selected=[[10, 10, 10], [20, 20, 21], [30, 30, 30], [40, 40, 40]],
        human_as_is=[[True] * 3, [True] * 3, [False, True, True], [True] * 3],
        human_flagged=[[False] * 3] * 4,
        reference=[10, 21, 30, 40],
    )
    assert result.to_arbitration == (2, 2, 2)
    assert result.to_adoption == (1, 0, 1)
    assert result.routing_changed == (3, 2, 3)
    assert result.reference_changed == (0, 0, 1)
    assert result.routing_changed_share.estimate == pytest.approx(8 / 12)
    assert result.reference_changed_share.estimate == pytest.approx(1 / 12)


def test_replace_one_expert_interval_matches_a_loop():
    judge, humans = fixture(25, seed=9)
    rng = np.random.default_rng(1)
    as_is = rng.random((25, 3)) < 0.8
    judge_as_is = rng.random(25) < 0.8
    flagged = np.zeros((25, 3), bool)
    reference = humans[:, 0]
    kwargs = dict(
        judge_selected=judge,
        judge_as_is=judge_as_is,
        judge_flagged=np.zeros(25, bool),
        human_selected=humans,
        human_as_is=as_is,
        human_flagged=flagged,
        reference=reference,
    )
    result = jc.replace_one_expert(**kwargs, n_boot=N_BOOT, seed=SEED)
    per_pair = []
    for i in range(25):
        actual = len(set(humans[i])) == 1 and as_is[i].all()
        changed = 0
        for s in range(3):
            h, a = humans[i].copy(), as_is[i].copy()
            h[s], a[s] = judge[i], judge_as_is[i]
            changed += (len(set(h)) == 1 and a.all()) != actual
        per_pair.append(changed / 3)
    per_pair = np.array(per_pair)
    assert result.routing_changed_share.estimate == pytest.approx(per_pair.mean())
    loop = [per_pair[idx].mean() for idx in resamples(25)]
    assert (
        result.routing_changed_share.ci_low,
        result.routing_changed_share.ci_high,
    ) == pytest.approx(percentile(loop))


# --- position consistency ----------------------------------------------------------------------


def test_position_consistency_by_hand():
    selected = [[1, 1], [2, 3], [4, 4], [5, 5]]
    letters = [[0, 1], [0, 0], [2, 0], [0, 1]]
    result = jc.position_consistency(selected, letters, n_boot=N_BOOT, seed=SEED)
    assert result.consistent.estimate == pytest.approx(3 / 4)
    assert result.letter_counts == (5, 2, 1)
    assert [s.estimate for s in result.letter_shares] == pytest.approx([5 / 8, 2 / 8, 1 / 8])
    assert result.chi2_p == pytest.approx(stats.chisquare([5, 2, 1]).pvalue)
    letters = np.array(letters)
    loop = [np.mean(letters[idx] == 0) for idx in resamples(4)]
    first = result.letter_shares[0]
    assert (first.ci_low, first.ci_high) == pytest.approx(percentile(loop))
    single = jc.position_consistency([1, 2], [0, 1])
    assert single.consistent is None and single.n_orders == 1


# --- self-preference -----------------------------------------------------------------------------


def test_self_preference_by_hand_and_loop():
    judge = np.array([[0, 0], [0, 1], [2, 2], [0, 0]])  # own family 0: 1, ½, 0, 1
    humans = np.array([[0, 1, 1], [0, 0, 0], [2, 2, 2], [1, 1, 1]])  # ⅓, 1, 0, 0
    result = jc.self_preference(
        judge, humans, judge_family=0, n_categories=3, n_boot=N_BOOT, seed=SEED
    )
    assert result.judge_rate.estimate == pytest.approx(2.5 / 4)
    assert result.human_rate.estimate == pytest.approx((4 / 3) / 4)
    assert result.difference.estimate == pytest.approx(2.5 / 4 - (4 / 3) / 4)
    loop = [(judge[i] == 0).mean() - (humans[i] == 0).mean() for i in resamples(4)]
    assert (result.difference.ci_low, result.difference.ci_high) == pytest.approx(percentile(loop))
    with pytest.raises(AgreementInputError, match="judge_family"):
        jc.self_preference(judge, humans, judge_family=3, n_categories=3)


# --- rating calibration ---------------------------------------------------------------------------


def test_rating_scores():
    scores = jc.rating_scores(flagged=[True, False, False, True], as_is=[True, True, False, False])
    assert scores.tolist() == [0, 2, 1, 0]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rating_calibration_matches_scipy_on_the_same_resamples(seed):
    rng = np.random.default_rng(seed)
    n = 30
    human = rng.integers(0, 3, (n, 3))
    judge = np.clip(np.round(human.mean(axis=1)[:, None] + rng.normal(0, 0.7, (n, 2))), 0, 2)
    result = jc.rating_calibration(judge, human, n_boot=N_BOOT, seed=SEED)
    x, y = judge.mean(axis=1), human.mean(axis=1)
    assert result.agreement.pearson_r == pytest.approx(stats.pearsonr(x, y).statistic)
    assert result.agreement.spearman_rho == pytest.approx(stats.spearmanr(x, y).statistic)
    assert result.agreement.kendall_tau == pytest.approx(stats.kendalltau(x, y).statistic)
    assert result.agreement.kendall_p == pytest.approx(stats.kendalltau(x, y).pvalue)
    assert result.bias.estimate == pytest.approx(x.mean() - y.mean())
    fit = stats.linregress(x, y)
    assert (result.agreement.slope, result.agreement.intercept) == pytest.approx(
        (fit.slope, fit.intercept)
    )
    loops = {"pearson": [], "spearman": [], "kendall": [], "bias": []}
    for idx in bootstrap_unit_indices(np.arange(n)[:, None], N_BOOT, SEED):
        xs, ys = x[idx], y[idx]
        constant = np.all(xs == xs[0]) or np.all(ys == ys[0])
        loops["pearson"].append(np.nan if constant else stats.pearsonr(xs, ys).statistic)
        loops["spearman"].append(np.nan if constant else stats.spearmanr(xs, ys).statistic)
        loops["kendall"].append(np.nan if constant else stats.kendalltau(xs, ys).statistic)
        loops["bias"].append(xs.mean() - ys.mean())
    for name in loops:
        estimate = getattr(result, name)
        assert (estimate.ci_low, estimate.ci_high) == pytest.approx(percentile(loops[name]))


def test_rating_calibration_refuses_a_constant_judge():
    with pytest.raises(UndefinedStatisticError, match="every judge score is 2"):
        jc.rating_calibration([2, 2, 2, 2], [[0, 1, 2], [2, 2, 2], [1, 1, 1], [0, 0, 0]])


# --- agreement lift ---------------------------------------------------------------------


def test_agreement_lift_by_hand_and_loop():
    selected = np.array([[1, 1, 2], [3, 3, 3], [5, 6, 7], [8, 8, 9]])
    reference = np.array([1, 3, 7, 9])
    result = agreement_lift(selected, reference, n_boot=N_BOOT, seed=SEED)
    # agreeing annotator pairs: 1, 3, 0, 1 of 3 each → 5/12; hits: 2, 3, 1, 1 of 3 → 7/12
    assert result.blind_agreement.estimate == pytest.approx(5 / 12)
    assert result.outcome_agreement.estimate == pytest.approx(7 / 12)
    assert result.lift.estimate == pytest.approx(2 / 12)
    agreeing = np.array([1, 3, 0, 1]) / 3
    hits = np.array([2, 3, 1, 1]) / 3
    loop = [hits[i].mean() - agreeing[i].mean() for i in resamples(4)]
    assert (result.lift.ci_low, result.lift.ci_high) == pytest.approx(percentile(loop))
