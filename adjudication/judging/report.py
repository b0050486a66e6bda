"""The calibration report of a judge run (issue 22): the run's records turned into the
inputs of :mod:`agreement.judge_calibration` (a fixed number of queries), and its figures.

A pair counts when every order of the run returned a verdict and the pair has the modal
number of human judgments (three by default). Selections are coded by the selected
candidate's model family. The judge's first order stands for it where one selection per
pair is needed (κ, agreement with the outcome, replace one expert, the candidate whose
ratings are compared); position consistency and self-preference use every order, and the
rating every order that selected that candidate.

!!! BLINDING !!!  Admins only: the judge's output never reaches annotators.
"""

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from adjudication.arbitration.analytics import CANDIDATE_SOURCED
from adjudication.arbitration.models import ReferenceResponse
from adjudication.judging.models import JudgeCall, JudgeRun
from agreement import MISSING, AgreementInputError, UndefinedStatisticError
from agreement import judge_calibration as jc
from annotation.comparison.models import (
    COMPARISON_LETTERS,
    ComparisonJudgment,
    ComparisonPair,
    Rating,
    Suitability,
)
from annotation.generation.models import ModelFamily
from core.protocol import CI_LEVEL, N_BOOTSTRAP

FAMILIES = tuple(ModelFamily.values)
ROUTED = (ComparisonPair.Status.ADOPTED, ComparisonPair.Status.RESOLVED)


@dataclass
class ReportInputs:
    """Per pair (rows), the arrays the pure functions take."""

    pair_ids: list
    judge_family: int
    judge_selected: np.ndarray  # (n, orders) family codes
    judge_candidate: np.ndarray  # (n, orders) candidate pks
    judge_letters: np.ndarray  # (n, orders) letter codes
    judge_as_is: np.ndarray
    judge_flagged: np.ndarray
    human_selected: np.ndarray  # (n, m) family codes
    human_candidate: np.ndarray
    human_as_is: np.ndarray
    human_flagged: np.ndarray
    reference: np.ndarray  # (n,) source candidate pk of a routed pair's reference, or MISSING
    reference_family: np.ndarray  # (n,) that candidate's family code, or MISSING


def report_inputs(run: JudgeRun) -> ReportInputs:
    """Four queries, whatever the size of the run."""
    verdicts = defaultdict(dict)
    for pair_id, order, letter, candidate, family, rating, suitability in JudgeCall.objects.filter(
        run=run, status=JudgeCall.Status.SUCCEEDED, verdict__isnull=False
    ).values_list(
        "pair_id",
        "order_index",
        "verdict__selected_letter",
        "verdict__selected_candidate_id",
        "verdict__selected_candidate__family",
        "verdict__rating",
        "verdict__suitability",
    ):
        verdicts[pair_id][order] = (candidate, family, letter, rating, suitability)
    humans = defaultdict(list)
    for pair_id, candidate, family, rating, suitability in (
        ComparisonJudgment.objects.filter(assignment__pair__in=list(verdicts))
        .order_by("assignment__pair_id", "assignment_id")
        .values_list(
            "assignment__pair_id",
            "selected_candidate_id",
            "selected_candidate__family",
            "rating",
            "suitability",
        )
    ):
        humans[pair_id].append((candidate, family, rating, suitability))
    pairs = {
        pk: (status, c, s)
        for pk, status, c, s in ComparisonPair.objects.filter(pk__in=list(verdicts)).values_list(
            "pk", "status", "character_id", "scenario_id"
        )
    }
    references = {
        (c, s): (source, family)
        for c, s, source, family in ReferenceResponse.objects.filter(
            superseded_at__isnull=True, decision_type__in=CANDIDATE_SOURCED
        ).values_list(
            "character_id", "scenario_id", "source_candidate_id", "source_candidate__family"
        )
    }
    sizes = [len(v) for v in humans.values()]
    m = max(set(sizes), key=sizes.count) if sizes else 0
    orders = run.orders_per_pair
    kept = sorted(
        p for p, v in verdicts.items() if len(v) == orders and len(humans[p]) == m and m >= 2
    )
    code = {f: i for i, f in enumerate(FAMILIES)}
    letter = {x: i for i, x in enumerate(COMPARISON_LETTERS)}

    def judge_field(i):
        return np.array([[verdicts[p][o][i] for o in sorted(verdicts[p])] for p in kept])

    def human_field(i):
        return np.array([[h[i] for h in humans[p]] for p in kept])

    def reference_of(p):
        status, c, s = pairs[p]
        return references.get((c, s), (MISSING, None)) if status in ROUTED else (MISSING, None)

    adopted = [reference_of(p) for p in kept]

    shape = (len(kept), orders)
    return ReportInputs(
        pair_ids=kept,
        judge_family=code[run.judge_family],
        judge_selected=np.vectorize(code.get)(judge_field(1)).reshape(shape) if kept else None,
        judge_candidate=judge_field(0).reshape(shape),
        judge_letters=np.vectorize(letter.get)(judge_field(2)).reshape(shape) if kept else None,
        judge_as_is=(judge_field(3) == Rating.AS_IS).reshape(shape),
        judge_flagged=(judge_field(4) == Suitability.FLAGGED).reshape(shape),
        human_selected=np.vectorize(code.get)(human_field(1)) if kept else None,
        human_candidate=human_field(0),
        human_as_is=human_field(2) == Rating.AS_IS,
        human_flagged=human_field(3) == Suitability.FLAGGED,
        reference=np.array([source for source, _ in adopted], dtype=np.int64),
        # The reference's own family: the arbitrator may adopt or edit a candidate that
        # nobody selected, and that pair still counts (as a miss for everyone).
        reference_family=np.array(
            [MISSING if family is None else code[family] for _, family in adopted],
            dtype=np.int64,
        ),
    )


def same_candidate_scores(inputs: ReportInputs) -> tuple[np.ndarray, np.ndarray]:
    """Per pair, the judge's and the annotators' mean rating score of one candidate: the
    one the judge selected in its first order. The judge's score averages the orders that
    selected it, the annotators' score the annotators who selected it; a pair where no
    annotator selected it is left out, since a rating is a rating of the selected
    candidate and two ratings of different candidates say nothing about each other."""
    scores_judge = jc.rating_scores(flagged=inputs.judge_flagged, as_is=inputs.judge_as_is)
    scores_human = jc.rating_scores(flagged=inputs.human_flagged, as_is=inputs.human_as_is)
    candidate = inputs.judge_candidate[:, :1]
    judge_same = inputs.judge_candidate == candidate
    human_same = inputs.human_candidate == candidate
    kept = human_same.any(axis=1)
    judge_same, human_same = judge_same[kept], human_same[kept]
    return (
        (scores_judge[kept] * judge_same).sum(axis=1) / judge_same.sum(axis=1),
        (scores_human[kept] * human_same).sum(axis=1) / human_same.sum(axis=1),
    )


@dataclass
class JudgeReport:
    """``inputs`` are the arrays the figures were computed from; a report read back from
    its stored form (:mod:`adjudication.judging.stored_reports`) has none."""

    run: JudgeRun
    n_pairs: int
    inputs: ReportInputs | None
    figures: dict = field(default_factory=dict)  # name → result dataclass
    notes: dict = field(default_factory=dict)  # name → why the figure has no value
    judge_family: int = 0  # the judge's family code (an index of FAMILIES)


def judge_report(*, run_id: int, n_boot: int = N_BOOTSTRAP) -> JudgeReport | None:
    run = JudgeRun.objects.filter(pk=run_id).first()
    if run is None:
        return None
    inputs = report_inputs(run)
    report = JudgeReport(
        run=run, n_pairs=len(inputs.pair_ids), inputs=inputs, judge_family=inputs.judge_family
    )
    if not inputs.pair_ids:
        report.notes["all"] = (
            "No pair has a verdict in every order and a judgment from every annotator yet."
        )
        return report
    k = len(FAMILIES)
    boot = {"n_boot": n_boot, "seed": run.seed, "ci_level": CI_LEVEL}
    judge_rated, human_rated = same_candidate_scores(inputs)
    first = inputs.judge_selected[:, 0]
    computations = {
        "selection": lambda: jc.selection_agreement(
            first, inputs.human_selected, n_categories=k, **boot
        ),
        "outcome": lambda: jc.outcome_agreement(
            first, inputs.human_selected, inputs.reference_family, n_categories=k, **boot
        ),
        "replace": lambda: jc.replace_one_expert(
            judge_selected=inputs.judge_candidate[:, 0],
            judge_as_is=inputs.judge_as_is[:, 0],
            judge_flagged=inputs.judge_flagged[:, 0],
            human_selected=inputs.human_candidate,
            human_as_is=inputs.human_as_is,
            human_flagged=inputs.human_flagged,
            reference=inputs.reference,
            **boot,
        ),
        "position": lambda: jc.position_consistency(
            inputs.judge_candidate, inputs.judge_letters, **boot
        ),
        "self_preference": lambda: jc.self_preference(
            inputs.judge_selected,
            inputs.human_selected,
            judge_family=inputs.judge_family,
            n_categories=k,
            **boot,
        ),
        "rating": lambda: jc.rating_calibration(judge_rated, human_rated, **boot),
    }
    for name, compute in computations.items():
        try:
            report.figures[name] = compute()
        except (UndefinedStatisticError, AgreementInputError) as error:
            report.notes[name] = str(error)
    return report
