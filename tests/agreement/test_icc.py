"""ICC against Shrout & Fleiss (1979) and an independent two-way ANOVA from statsmodels."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.formula.api import ols
from statsmodels.stats.anova import anova_lm

import agreement
from agreement import AgreementInputError, UndefinedStatisticError

from .published import SHROUT_FLEISS_1979, SHROUT_FLEISS_1979_ICC


@pytest.mark.parametrize("form", list(SHROUT_FLEISS_1979_ICC))
def test_shrout_fleiss_table_reproduces_published_icc_f_p_and_bounds(form):
    icc, f_stat, df1, df2, p, low, high = SHROUT_FLEISS_1979_ICC[form]
    result = agreement.intraclass_correlation(SHROUT_FLEISS_1979, form=form)
    assert round(result.estimate, 2) == icc
    assert round(result.f_statistic, 1) == f_stat
    assert (result.df_numerator, result.df_denominator) == (df1, df2)
    assert result.p_value == pytest.approx(p, abs=5e-6)
    assert result.ci_low == pytest.approx(low, abs=5e-3 if len(str(low)) < 6 else 5e-4)
    assert result.ci_high == pytest.approx(high, abs=5e-3)


def anova_mean_squares(scores):
    n, k = scores.shape
    frame = pd.DataFrame(
        {
            "score": scores.ravel(),
            "target": np.repeat(np.arange(n), k).astype(str),
            "judge": np.tile(np.arange(k), n).astype(str),
        }
    )
    two_way = anova_lm(ols("score ~ C(target) + C(judge)", data=frame).fit())
    one_way = anova_lm(ols("score ~ C(target)", data=frame).fit())
    ms = two_way["sum_sq"] / two_way["df"]
    return {
        "rows": ms["C(target)"],
        "cols": ms["C(judge)"],
        "error": ms["Residual"],
        "within": one_way["sum_sq"]["Residual"] / one_way["df"]["Residual"],
        "f_two_way": two_way["F"]["C(target)"],
    }


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 25), st.integers(2, 5), st.integers(0, 2**32 - 1))
@example(3, 2, 82)  # ICC2k undefined: judges disagree more than the targets differ
def test_icc_matches_shrout_fleiss_formulas_on_statsmodels_anova(n, k, seed):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(n, 1)) * 2 + rng.normal(size=(1, k)) + rng.normal(size=(n, k))
    ms = anova_mean_squares(scores)
    bms, jms, ems, wms = ms["rows"], ms["cols"], ms["error"], ms["within"]
    expected = {
        "ICC1": (bms - wms) / (bms + (k - 1) * wms),
        "ICC2": (bms - ems) / (bms + (k - 1) * ems + k * (jms - ems) / n),
        "ICC3": (bms - ems) / (bms + (k - 1) * ems),
        "ICC1k": (bms - wms) / bms,
        "ICC2k": (bms - ems) / (bms + (jms - ems) / n),
        "ICC3k": (bms - ems) / bms,
    }
    for form, value in expected.items():
        if form == "ICC2k" and bms + (jms - ems) / n <= 0:
            # judges disagree more than targets differ: the mean-of-k form has no value
            with pytest.raises(UndefinedStatisticError, match="ICC2k is undefined"):
                agreement.intraclass_correlation(scores, form=form)
            continue
        result = agreement.intraclass_correlation(scores, form=form)
        assert result.estimate == pytest.approx(value, abs=1e-9)
        assert result.ci_low <= result.estimate <= result.ci_high
    # The one-way F of ICC1 is scipy's one-way ANOVA over targets; ICC3's is the two-way F.
    one_way = stats.f_oneway(*scores)
    icc1 = agreement.intraclass_correlation(scores, form="ICC1")
    assert icc1.f_statistic == pytest.approx(one_way.statistic)
    assert icc1.p_value == pytest.approx(one_way.pvalue)
    icc3 = agreement.intraclass_correlation(scores, form="ICC3")
    assert icc3.f_statistic == pytest.approx(ms["f_two_way"])


def test_two_judges_in_perfect_agreement_give_icc_one():
    scores = np.array([[1, 1], [3, 3], [2, 2], [5, 5.0]])
    for form in ("ICC1", "ICC2", "ICC3", "ICC2k"):
        result = agreement.intraclass_correlation(scores, form=form)
        assert result.estimate == pytest.approx(1.0)
        assert result.ci_low == result.ci_high == 1.0


def test_a_constant_offset_between_judges_hurts_absolute_agreement_not_consistency():
    scores = np.array([[1, 3], [3, 5], [2, 4], [5, 7.0]])
    assert agreement.intraclass_correlation(scores, form="ICC3").estimate == pytest.approx(1.0)
    assert agreement.intraclass_correlation(scores, form="ICC2").estimate < 0.8


@pytest.mark.parametrize(
    ("scores", "error", "message"),
    [
        ([[1, 2, 3]], AgreementInputError, "at least 2 targets and 2 judges"),
        ([[1], [2]], AgreementInputError, "at least 2 targets and 2 judges"),
        ([[1, 2], [None, 3]], AgreementInputError, "score missing for target 1, judge 0"),
        ([[1, 2], [1, 2]], UndefinedStatisticError, "no between-target variance"),
        ([[4, 4], [4, 4]], UndefinedStatisticError, "every score is identical"),
        ([1, 2, 3], AgreementInputError, "2-D array"),
    ],
)
def test_icc_input_errors(scores, error, message):
    with pytest.raises(error, match=message):
        agreement.intraclass_correlation(scores, form="ICC2")


def test_icc_needs_an_explicit_known_form():
    with pytest.raises(AgreementInputError, match="form must be one of"):
        agreement.intraclass_correlation(SHROUT_FLEISS_1979, form="ICC(2,1)")


def random_scores(seed):
    rng = np.random.default_rng(seed)
    n, k = rng.integers(3, 26), rng.integers(2, 6)
    return (
        rng.normal(size=(n, 1)) * rng.uniform(0, 3)
        + rng.normal(size=(1, k)) * rng.uniform(0, 2)
        + rng.normal(size=(n, k))
    )


def test_a_negative_icc2_still_gets_finite_bounds_around_it():
    scores = random_scores(325)  # ICC2 ≈ -0.44: Satterthwaite's df alone would give NaN
    result = agreement.intraclass_correlation(scores, form="ICC2")
    assert result.estimate < 0
    assert np.isfinite([result.ci_low, result.ci_high]).all()
    assert result.ci_low <= result.estimate <= result.ci_high


def test_icc2k_below_the_bottom_of_the_scale_is_an_error_not_a_value_above_one():
    scores = random_scores(823)  # 3 targets, 4 judges: the ICC2k formula would give 3.36
    assert agreement.intraclass_correlation(scores, form="ICC2").estimate < -1 / 3
    with pytest.raises(UndefinedStatisticError, match="ICC2k is undefined"):
        agreement.intraclass_correlation(scores, form="ICC2k")
