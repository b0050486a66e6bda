"""The judge calibration's rating correlation (seed 002 §4.5: judge scores against blind
human ratings) compares ratings of the same candidate only: a rating is a rating of the
candidate the rater selected, so a judge that chose a candidate no annotator chose has
no human rating to be compared with, and that pair is left out."""

import numpy as np
import pytest
from scipy import stats

from adjudication.judging.models import JudgeCall, JudgeRun, JudgeVerdict
from adjudication.judging.report import judge_report
from tests.comparison.helpers import assign, judge, make_pair, people

pytestmark = pytest.mark.django_db

HUMANS = [  # per pair: three annotators' (family, rating)
    [("claude", "as_is"), ("claude", "as_is"), ("gpt", "partial")],
    [("gpt", "partial"), ("gpt", "partial"), ("claude", "as_is")],
    [("gemini", "partial"), ("gemini", "as_is"), ("gpt", "as_is")],
    [("gpt", "as_is"), ("gpt", "partial"), ("gemini", "as_is")],
    # The judge selects Gemini's candidate here, which no annotator selected.
    [("claude", "partial"), ("claude", "partial"), ("gpt", "partial")],
]
JUDGE = [  # per pair and order: (family, rating)
    [("claude", "as_is"), ("claude", "as_is")],
    [("gpt", "partial"), ("claude", "as_is")],  # the second order chose another candidate
    [("gemini", "partial"), ("gemini", "as_is")],
    [("gpt", "as_is"), ("gpt", "as_is")],
    [("gemini", "as_is"), ("gemini", "as_is")],
]
SCORE = {"as_is": 2, "partial": 1}


@pytest.fixture
def run():
    who = people()
    judge_run = JudgeRun.objects.create(
        name="same candidate", judge_family="gpt", provider_family="gpt", model="m",
        orders_per_pair=2, prompt_version="v1",
    )  # fmt: skip
    for i, (humans, verdicts) in enumerate(zip(HUMANS, JUDGE, strict=True)):
        pair = make_pair(key=f"CHAR_S{i}")
        for assignment, (family, rating) in zip(
            assign(pair, who["annotators"], who["admin"]).values(), humans, strict=True
        ):
            guidance = "Be concrete." if rating == "partial" else ""
            judge(assignment, family=family, rating=rating, guidance=guidance)
        judge_run.pairs.add(pair)
        for order, (family, rating) in enumerate(verdicts):
            call = JudgeCall.objects.create(
                run=judge_run, pair=pair, order_index=order, permutation=[], status="succeeded"
            )
            JudgeVerdict.objects.create(
                call=call, suitability="suitable", selected_letter="AB"[order],
                selected_candidate=pair.candidates.get(family=family), rating=rating,
                selection_rationale="fits",
            )  # fmt: skip
    return judge_run


def independent_same_candidate_scores():
    """Written out from the tables above: the judge's first-order family, then the mean
    of the ratings of that family's candidate on each side; None when no annotator chose
    it."""
    rows = []
    for humans, verdicts in zip(HUMANS, JUDGE, strict=True):
        chosen = verdicts[0][0]
        human = [SCORE[r] for f, r in humans if f == chosen]
        if human:
            rows.append((np.mean([SCORE[r] for f, r in verdicts if f == chosen]), np.mean(human)))
    return np.array(rows)


def test_a_pair_where_the_judge_chose_another_candidate_is_left_out(run):
    """seed 002 §4.5 (judge scores against human ratings; beyond seed 000): the pair whose
    judge chose a candidate no annotator chose leaves the correlation, and the judge order
    that chose another candidate than its first leaves its pair's score."""
    report = judge_report(run_id=run.pk, n_boot=0)
    assert report.n_pairs == 5
    rating = report.figures["rating"]
    xy = independent_same_candidate_scores()
    assert xy.tolist() == [[2, 2], [1, 1], [1.5, 1.5], [2, 1.5]]
    assert rating.n == 4
    assert rating.judge_scores.tolist() == xy[:, 0].tolist()
    assert rating.human_scores.tolist() == xy[:, 1].tolist()
    assert rating.agreement.pearson_r == pytest.approx(stats.pearsonr(*xy.T).statistic)
    assert rating.agreement.spearman_rho == pytest.approx(stats.spearmanr(*xy.T).statistic)
    assert rating.agreement.kendall_tau == pytest.approx(stats.kendalltau(*xy.T).statistic)
    assert rating.bias.estimate == pytest.approx(xy[:, 0].mean() - xy[:, 1].mean())
    # Pairing every rating of every pair, whatever the candidate, gives another figure.
    mixed_x = [np.mean([SCORE[r] for _, r in v]) for v in JUDGE]
    mixed_y = [np.mean([SCORE[r] for _, r in h]) for h in HUMANS]
    assert stats.pearsonr(mixed_x, mixed_y).statistic != pytest.approx(rating.agreement.pearson_r)
