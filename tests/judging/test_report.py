"""The calibration report of a judge run (issue 22): a run over pairs with known human
judgments reproduces independently computed figures, in a fixed number of queries. The
verdict rows are made directly (helper J's tests drive the real worker)."""

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score

from adjudication.judging.models import JudgeCall, JudgeRun, JudgeVerdict
from adjudication.judging.report import judge_report
from tests.comparison.helpers import assign, judge, make_pair, people

pytestmark = pytest.mark.django_db

HUMANS = [  # per pair: three annotators' (family, rating)
    [("claude", "as_is"), ("claude", "as_is"), ("claude", "as_is")],
    [("claude", "as_is"), ("gpt", "partial"), ("gpt", "as_is")],
    [("gemini", "partial"), ("gemini", "as_is"), ("gpt", "partial")],
    [("gpt", "as_is"), ("gpt", "as_is"), ("gemini", "as_is")],
]
JUDGE = [  # per pair and order: (family, letter, rating)
    [("claude", "A", "as_is"), ("claude", "B", "as_is")],
    [("gpt", "A", "partial"), ("claude", "A", "as_is")],
    [("gemini", "C", "partial"), ("gemini", "A", "partial")],
    [("gpt", "A", "as_is"), ("gpt", "B", "as_is")],
]
SCORE = {"as_is": 2, "partial": 1}
CODE = {"claude": 0, "gpt": 1, "gemini": 2}


@pytest.fixture
def run():
    who = people()
    judge_run = JudgeRun.objects.create(
        name="calibration", judge_family="gpt", provider_family="gpt", model="m",
        orders_per_pair=2, prompt_version="v1",
    )  # fmt: skip
    for i, (humans, verdicts) in enumerate(zip(HUMANS, JUDGE, strict=True)):
        pair = make_pair(key=f"CHAR_R{i}")
        for assignment, (family, rating) in zip(
            assign(pair, who["annotators"], who["admin"]).values(), humans, strict=True
        ):
            guidance = "Be concrete." if rating == "partial" else ""
            judge(assignment, family=family, rating=rating, guidance=guidance)
        judge_run.pairs.add(pair)
        for order, (family, letter, rating) in enumerate(verdicts):
            call = JudgeCall.objects.create(
                run=judge_run, pair=pair, order_index=order, permutation=[], status="succeeded"
            )
            JudgeVerdict.objects.create(
                call=call, suitability="suitable", selected_letter=letter,
                selected_candidate=pair.candidates.get(family=family), rating=rating,
                selection_rationale="fits",
            )  # fmt: skip
    return judge_run


def test_report_reproduces_independent_figures(run, django_assert_num_queries):
    with django_assert_num_queries(5):
        report = judge_report(run_id=run.pk, n_boot=200)
    assert report.n_pairs == 4 and not report.notes
    humans = np.array([[CODE[f] for f, _ in p] for p in HUMANS])
    first = np.array([CODE[v[0][0]] for v in JUDGE])
    selection = report.figures["selection"]
    assert selection.judge_human_kappa.estimate == pytest.approx(
        np.mean([cohen_kappa_score(first, humans[:, s]) for s in range(3)])
    )
    position = report.figures["position"]
    assert position.consistent.estimate == pytest.approx(3 / 4)  # pair 1 changed its mind
    assert position.letter_counts == (5, 2, 1)
    own = report.figures["self_preference"]  # the judge is GPT
    assert own.judge_rate.estimate == pytest.approx((0 + 0.5 + 0 + 1) / 4)
    assert own.human_rate.estimate == pytest.approx((0 + 2 / 3 + 1 / 3 + 2 / 3) / 4)
    # Ratings of the judge's first-order candidate only (test_rating_same_candidate.py).
    x = np.array([np.mean([SCORE[r] for f, _, r in v if f == v[0][0]]) for v in JUDGE])
    y = np.array(
        [
            np.mean([SCORE[r] for f, r in p if f == v[0][0]])
            for p, v in zip(HUMANS, JUDGE, strict=True)
        ]
    )
    assert list(x) == [2, 1, 1, 2] and list(y) == [2, 1.5, 1.5, 2]
    rating = report.figures["rating"]
    assert rating.agreement.pearson_r == pytest.approx(stats.pearsonr(x, y).statistic)
    assert rating.agreement.kendall_tau == pytest.approx(stats.kendalltau(x, y).statistic)
    assert rating.bias.estimate == pytest.approx(x.mean() - y.mean())
    # Pair 0 was adopted unanimously; the others await arbitration (no reference yet).
    outcome = report.figures["outcome"]
    assert outcome.n == 1 and outcome.judge.estimate == 1.0
    replace = report.figures["replace"]
    # The judge's first order keeps pair 0 unanimous as-is in every slot: nothing changes
    # there; pair 3 becomes unanimous (GPT, as-is) when it replaces annotator 3.
    assert replace.to_arbitration == (0, 0, 0)
    assert replace.to_adoption == (0, 0, 1)


def test_a_reference_nobody_selected_counts_as_a_miss(run):
    """The arbitrator may adopt a candidate no annotator and no judge order chose: the
    pair still has a candidate-sourced reference, so it counts, as a miss for all."""
    from django.contrib.auth import get_user_model

    from adjudication.arbitration.services import arbitration_resolve
    from annotation.comparison.models import ComparisonPair

    arbitrator = get_user_model().objects.get(username="cmp-arbitrator")
    pair = ComparisonPair.objects.get(character__key="CHAR_R2")  # gemini, gemini, gpt
    assert pair.status == "escalated"
    claude = pair.candidates.get(family="claude")
    arbitration_resolve(
        pair_id=pair.pk, arbitrator=arbitrator, kind="adopted", candidate_id=claude.pk
    )
    outcome = judge_report(run_id=run.pk, n_boot=200).figures["outcome"]
    assert outcome.n == 2
    assert outcome.judge.estimate == pytest.approx(1 / 2)  # pair 0 a hit, pair 2 a miss
    assert outcome.humans.estimate == pytest.approx((3 / 3 + 0 / 3) / 2)
