"""Intraclass correlation between judges (seed 004 reports it for two judges' scores).

The six forms of Shrout & Fleiss (1979), named as in McGraw & Wong (1996) and R's psych:

=======  ==================  ===========================================================
form     Shrout & Fleiss     meaning
=======  ==================  ===========================================================
ICC1     ICC(1,1)            one-way random; each target rated by its own judges
ICC2     ICC(2,1)            two-way random, absolute agreement, a single judge
ICC3     ICC(3,1)            two-way mixed, consistency, a single judge
ICC1k    ICC(1,k)            as ICC1, for the mean of k judges
ICC2k    ICC(2,k)            as ICC2, for the mean of k judges
ICC3k    ICC(3,k)            as ICC3, for the mean of k judges
=======  ==================  ===========================================================

Confidence intervals are the F-distribution intervals of Shrout & Fleiss (ICC2 with the
Satterthwaite degrees of freedom of McGraw & Wong; ICC2k's bounds are ICC2's through the
Spearman–Brown formula, so a very small sample can give a lower bound of -inf).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from ._core import AgreementInputError, UndefinedStatisticError, check_ci_level

FORMS = ("ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k")


@dataclass(frozen=True, slots=True)
class IntraclassCorrelation:
    form: str
    estimate: float
    ci_low: float
    ci_high: float
    ci_level: float
    f_statistic: float
    df_numerator: int
    df_denominator: int
    p_value: float
    n_targets: int
    n_judges: int


def _mean_squares(scores: np.ndarray) -> dict[str, float]:
    n, k = scores.shape
    grand = scores.mean()
    ss_total = ((scores - grand) ** 2).sum()
    ss_rows = k * ((scores.mean(axis=1) - grand) ** 2).sum()
    ss_cols = n * ((scores.mean(axis=0) - grand) ** 2).sum()
    ss_error = ss_total - ss_rows - ss_cols
    return {
        "rows": ss_rows / (n - 1),
        "cols": ss_cols / (k - 1),
        "error": ss_error / ((n - 1) * (k - 1)),
        "within": (ss_total - ss_rows) / (n * (k - 1)),
    }


def intraclass_correlation(scores, *, form: str, ci_level: float = 0.95) -> IntraclassCorrelation:
    """ICC of an ``(n_targets, n_judges)`` score matrix with no missing scores.

    ``form`` is required because the forms answer different questions: "ICC2" if the judges
    stand for a population of judges and absolute scores matter, "ICC3" if only these judges
    and their rank order matter. Add "k" for the reliability of the judges' mean score.
    """
    if form not in FORMS:
        raise AgreementInputError(f"form must be one of {FORMS}; got {form!r}")
    ci_level = check_ci_level(ci_level)
    matrix = np.asarray(scores, dtype=object)
    if matrix.ndim != 2:
        raise AgreementInputError(
            f"scores must be a 2-D array of shape (n_targets, n_judges); got shape {matrix.shape}"
        )
    try:
        values = np.array(
            [[np.nan if v is None else float(v) for v in row] for row in matrix], dtype=float
        ).reshape(matrix.shape)
    except (TypeError, ValueError):
        raise AgreementInputError("scores must be numbers") from None
    n, k = values.shape
    if n < 2 or k < 2:
        raise AgreementInputError(
            f"ICC needs at least 2 targets and 2 judges; got {n} target{'' if n == 1 else 's'} and "
            f"{k} judge{'' if k == 1 else 's'}"
        )
    if np.isnan(values).any():
        target, judge = (int(i) for i in np.argwhere(np.isnan(values))[0])
        raise AgreementInputError(
            f"score missing for target {target}, judge {judge}; ICC needs a complete matrix"
        )
    ms = _mean_squares(values)
    if np.isclose(ms["rows"], 0.0) and np.isclose(ms["within"], 0.0):
        raise UndefinedStatisticError("every score is identical: the ICC is undefined")
    if np.isclose(ms["rows"], 0.0, atol=1e-12):
        raise UndefinedStatisticError(
            "the targets' mean scores are all equal (no between-target variance): the ICC is "
            "undefined"
        )
    alpha = 1.0 - ci_level
    single = not form.endswith("k")
    family = form[:4]
    if family == "ICC1":
        f_stat = ms["rows"] / ms["within"] if ms["within"] > 0 else np.inf
        df1, df2 = n - 1, n * (k - 1)
        estimate = (
            (ms["rows"] - ms["within"]) / (ms["rows"] + (k - 1) * ms["within"])
            if single
            else (ms["rows"] - ms["within"]) / ms["rows"]
        )
        low, high = _f_interval(f_stat, df1, df2, alpha, k, single)
    elif family == "ICC3":
        f_stat = ms["rows"] / ms["error"] if ms["error"] > 0 else np.inf
        df1, df2 = n - 1, (n - 1) * (k - 1)
        estimate = (
            (ms["rows"] - ms["error"]) / (ms["rows"] + (k - 1) * ms["error"])
            if single
            else (ms["rows"] - ms["error"]) / ms["rows"]
        )
        low, high = _f_interval(f_stat, df1, df2, alpha, k, single)
    else:
        f_stat = ms["rows"] / ms["error"] if ms["error"] > 0 else np.inf
        df1, df2 = n - 1, (n - 1) * (k - 1)
        icc2 = (ms["rows"] - ms["error"]) / (
            ms["rows"] + (k - 1) * ms["error"] + k * (ms["cols"] - ms["error"]) / n
        )
        average_denominator = ms["rows"] + (ms["cols"] - ms["error"]) / n
        if not single and average_denominator <= 0:
            raise UndefinedStatisticError(
                "the targets differ less than the judges disagree (ICC2 is at or below "
                f"-1/(k-1) = {-1 / (k - 1):.3f}): the mean-of-k ICC2k is undefined"
            )
        estimate = icc2 if single else (ms["rows"] - ms["error"]) / average_denominator
        low, high = _icc2_interval(ms, icc2, n, k, alpha, single)
    p_value = float(stats.f.sf(f_stat, df1, df2)) if np.isfinite(f_stat) else 0.0
    return IntraclassCorrelation(
        form=form,
        estimate=float(estimate),
        ci_low=float(low),
        ci_high=float(high),
        ci_level=ci_level,
        f_statistic=float(f_stat),
        df_numerator=int(df1),
        df_denominator=int(df2),
        p_value=p_value,
        n_targets=n,
        n_judges=k,
    )


def _f_interval(
    f_stat: float, df1: int, df2: int, alpha: float, k: int, single: bool
) -> tuple[float, float]:
    if not np.isfinite(f_stat):
        return 1.0, 1.0
    f_low = f_stat / stats.f.ppf(1 - alpha / 2, df1, df2)
    f_high = f_stat * stats.f.ppf(1 - alpha / 2, df2, df1)
    if single:
        return (f_low - 1) / (f_low + k - 1), (f_high - 1) / (f_high + k - 1)
    return 1 - 1 / f_low, 1 - 1 / f_high


def _icc2_interval(
    ms: dict[str, float], icc2: float, n: int, k: int, alpha: float, single: bool
) -> tuple[float, float]:
    if ms["error"] <= 0:
        return 1.0, 1.0
    f_judges = ms["cols"] / ms["error"]
    # Satterthwaite's df is derived for ρ ≥ 0; a negative estimate can drive it to 0 or
    # below (and the bounds to NaN). At ρ = 0 it is the error df, (n−1)(k−1): use that.
    rho = max(icc2, 0.0)
    numerator = (k - 1) * (n - 1) * (k * rho * f_judges + n * (1 + (k - 1) * rho) - k * rho) ** 2
    denominator = (n - 1) * k**2 * rho**2 * f_judges**2 + (n * (1 + (k - 1) * rho) - k * rho) ** 2
    df = numerator / denominator
    f_star = stats.f.ppf(1 - alpha / 2, n - 1, df)
    f_star_inv = stats.f.ppf(1 - alpha / 2, df, n - 1)
    spread = k * ms["cols"] + (k * n - k - n) * ms["error"]
    low = n * (ms["rows"] - f_star * ms["error"]) / (f_star * spread + n * ms["rows"])
    high = n * (f_star_inv * ms["rows"] - ms["error"]) / (spread + n * f_star_inv * ms["rows"])
    if single:
        return low, high
    return _spearman_brown(low, k), _spearman_brown(high, k)


def _spearman_brown(single: float, k: int) -> float:
    """The mean-of-k reliability of a single-judge value; -inf at or below -1/(k-1), where
    the mapping runs off the bottom of the scale (tiny samples with a negative bound)."""
    denominator = 1 + single * (k - 1)
    return single * k / denominator if denominator > 0 else -np.inf
