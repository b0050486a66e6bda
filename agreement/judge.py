"""Validation of an LLM judge against blind human ratings (seed 002 §4.5, App. J there).

Per metric and language the paper reports Pearson r, Spearman ρ and Kendall τ (with
p-values) between judge and human scores, the two means, and a linear calibration
``HumanScore = a + b · JudgeScore`` fitted by least squares on the validation set.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from ._core import AgreementInputError, UndefinedStatisticError, as_vector


@dataclass(frozen=True, slots=True)
class JudgeHumanAgreement:
    n: int
    pearson_r: float
    pearson_p: float
    spearman_rho: float
    spearman_p: float
    kendall_tau: float
    kendall_p: float
    judge_mean: float
    human_mean: float
    intercept: float
    slope: float

    def calibrate(self, judge_scores) -> np.ndarray:
        """Judge scores mapped onto the human scale with the fitted line."""
        return self.intercept + self.slope * np.asarray(judge_scores, dtype=np.float64)


def judge_human_agreement(judge_scores, human_scores) -> JudgeHumanAgreement:
    """Correlations (Kendall's τ-b, as ratings have ties) and the calibration line."""
    judge = as_vector(judge_scores, name="judge_scores")
    human = as_vector(human_scores, name="human_scores")
    if judge.size != human.size:
        raise AgreementInputError(
            f"judge_scores has {judge.size} scores and human_scores {human.size}; they must "
            f"score the same instances"
        )
    for name, values in (("judge_scores", judge), ("human_scores", human)):
        if not np.isfinite(values).all():
            index = int(np.argmax(~np.isfinite(values)))
            raise AgreementInputError(f"{name} has a missing or infinite score at {index}")
    if judge.size < 3:
        raise AgreementInputError(f"correlations need at least 3 instances; got {judge.size}")
    for name, values in (("judge_scores", judge), ("human_scores", human)):
        if np.all(values == values[0]):
            raise UndefinedStatisticError(
                f"every {name[:-7]} score is {values[0]:g}: correlations are undefined"
            )
    pearson = stats.pearsonr(judge, human)
    spearman = stats.spearmanr(judge, human)
    kendall = stats.kendalltau(judge, human, variant="b")
    fit = stats.linregress(judge, human)
    return JudgeHumanAgreement(
        n=int(judge.size),
        pearson_r=float(pearson.statistic),
        pearson_p=float(pearson.pvalue),
        spearman_rho=float(spearman.statistic),
        spearman_p=float(spearman.pvalue),
        kendall_tau=float(kendall.statistic),
        kendall_p=float(kendall.pvalue),
        judge_mean=float(judge.mean()),
        human_mean=float(human.mean()),
        intercept=float(fit.intercept),
        slope=float(fit.slope),
    )
