"""What the arbitrator's decisions say about each annotator (issue 22), read from the
records of consensus-then-arbitration (App. D.2). Admin and arbitrator only.

Per annotator, over the pairs already routed and decided:

* **agreement with the final reference**: their selected candidate is the source of the
  pair's current reference (adopted unanimously, adopted or edited by the arbitrator);
  rewritten and discarded pairs have no source candidate and are left out;
* **overturned**: the pair was escalated and the arbitrator adopted or edited another
  candidate, rewrote the response or discarded the pair;
* **guidance followed**: of their judgments with revision guidance on pairs decided by an
  edit, the share the arbitrator ticked as followed.

Each share has a Wilson score interval (one judgment per annotator and pair, so the
judgments of one annotator are independent pairs). The agreement lift compares the blind
judgments' agreement with one another with their agreement with the adjudicated outcome,
on the same pairs, with a bootstrap over pairs.
"""

from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from statsmodels.stats.proportion import proportion_confint

from adjudication.arbitration.models import ArbitrationDecision, ReferenceResponse
from agreement import BootstrapEstimate, UndefinedStatisticError, fleiss_kappa
from agreement.agreement_lift import agreement_lift
from annotation.comparison.models import ComparisonJudgment, ComparisonPair
from annotation.generation.models import ModelFamily
from core.protocol import CI_LEVEL, N_BOOTSTRAP, PROTOCOL_SEED

DECIDED = (
    ComparisonPair.Status.ADOPTED,
    ComparisonPair.Status.RESOLVED,
    ComparisonPair.Status.DISCARDED,
)
CANDIDATE_SOURCED = (
    ReferenceResponse.DecisionType.UNANIMOUS,
    ReferenceResponse.DecisionType.ADOPTED,
    ReferenceResponse.DecisionType.EDITED,
)


@dataclass(frozen=True)
class Rate:
    """``hits`` of ``n`` with a Wilson score interval (None when ``n`` is 0)."""

    hits: int
    n: int
    low: float | None
    high: float | None

    @property
    def share(self) -> float | None:
        return self.hits / self.n if self.n else None


def wilson(hits: int, n: int, ci_level: float = CI_LEVEL) -> Rate:
    if not n:
        return Rate(hits, n, None, None)
    low, high = proportion_confint(hits, n, alpha=1 - ci_level, method="wilson")
    return Rate(hits, n, float(low), float(high))


@dataclass(frozen=True)
class AnnotatorRecord:
    username: str
    agreement: Rate
    overturned: Rate
    guidance_followed: Rate


@dataclass(frozen=True)
class AgreementLift:
    """On pairs with every judgment and a candidate-sourced reference: the blind
    judgments' mean pairwise agreement and Fleiss' κ, and the share of selections that
    match the adjudicated reference; ``lift`` is the second share minus the first."""

    pairs: int
    fleiss: BootstrapEstimate | None
    fleiss_note: str
    blind_agreement: BootstrapEstimate
    outcome_agreement: BootstrapEstimate
    lift: BootstrapEstimate


@dataclass(frozen=True)
class ArbitrationAnalytics:
    annotators: list[AnnotatorRecord]
    lift: AgreementLift | None
    lift_note: str

    METRICS = ("agreement", "overturned", "guidance_followed")

    def csv_rows(self):
        yield ["annotator", "statistic", "hits", "n", "share", "ci_low", "ci_high", "ci_method"]
        for a in self.annotators:
            for name in self.METRICS:
                r = getattr(a, name)
                yield [a.username, name, r.hits, r.n, r.share, r.low, r.high, "wilson"]
        if self.lift is None:
            return
        lift = self.lift
        rows = [("blind_mean_pairwise_agreement", lift.blind_agreement)]
        rows += [("agreement_with_adjudicated_outcome", lift.outcome_agreement)]
        rows += [("agreement_lift", lift.lift)]
        if lift.fleiss is not None:
            rows.append(("blind_fleiss_kappa", lift.fleiss))
        for name, e in rows:
            yield ["(all)", name, "", lift.pairs, e.estimate, e.ci_low, e.ci_high, "bootstrap"]


def _references_by_pair(pairs) -> dict[int, int | None]:
    """Pair id → source candidate of its current reference (None: rewritten, no source)."""
    by_key = {
        (c, s): (source if kind in CANDIDATE_SOURCED else None)
        for c, s, source, kind in ReferenceResponse.objects.filter(
            superseded_at__isnull=True
        ).values_list("character_id", "scenario_id", "source_candidate_id", "decision_type")
    }
    return {
        pk: by_key.get((c, s))
        for pk, status, c, s in pairs
        if status in (ComparisonPair.Status.ADOPTED, ComparisonPair.Status.RESOLVED)
    }


def arbitration_analytics(*, n_boot: int = N_BOOTSTRAP, seed=PROTOCOL_SEED) -> ArbitrationAnalytics:
    """Five queries, whatever the number of pairs and annotators."""
    pairs = list(
        ComparisonPair.objects.filter(status__in=DECIDED).values_list(
            "pk", "status", "character_id", "scenario_id"
        )
    )
    reference = _references_by_pair(pairs)
    decisions = {
        pair_id: (pk, kind, source)
        for pk, pair_id, kind, source in ArbitrationDecision.objects.filter(
            reopened_at__isnull=True, pair__status__in=DECIDED
        ).values_list("pk", "pair_id", "kind", "source_candidate_id")
    }
    followed = set(
        ArbitrationDecision.guidance_followed.through.objects.filter(
            arbitrationdecision__reopened_at__isnull=True
        ).values_list("arbitrationdecision_id", "comparisonjudgment_id")
    )
    judgments = list(
        ComparisonJudgment.objects.filter(assignment__pair__status__in=DECIDED)
        .order_by("assignment__annotator__username", "assignment__pair_id")
        .values_list(
            "pk",
            "assignment__pair_id",
            "assignment__annotator__username",
            "selected_candidate_id",
            "selected_candidate__family",
            "revision_guidance",
        )
    )
    counts = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    by_pair = defaultdict(list)
    Kind = ArbitrationDecision.Kind
    for pk, pair_id, username, selected, family, guidance in judgments:
        tally = counts[username]
        by_pair[pair_id].append((selected, family))
        source = reference.get(pair_id)
        if source is not None:
            tally["agreement"][0] += selected == source
            tally["agreement"][1] += 1
        decision = decisions.get(pair_id)
        if decision is None:
            continue
        decision_pk, kind, decided_source = decision
        tally["overturned"][0] += kind in (Kind.DISCARDED, Kind.REWRITTEN) or (
            decided_source != selected
        )
        tally["overturned"][1] += 1
        if kind == Kind.EDITED and guidance.strip():
            tally["guidance_followed"][0] += (decision_pk, pk) in followed
            tally["guidance_followed"][1] += 1
    annotators = [
        AnnotatorRecord(
            username,
            *(wilson(*tally[name]) for name in ArbitrationAnalytics.METRICS),
        )
        for username, tally in counts.items()
    ]
    lift, note = _agreement_lift(by_pair, reference, n_boot=n_boot, seed=seed)
    return ArbitrationAnalytics(annotators=annotators, lift=lift, lift_note=note)


def _agreement_lift(by_pair, reference, *, n_boot, seed) -> tuple[AgreementLift | None, str]:
    sizes = [len(v) for v in by_pair.values()]
    n_raters = max(set(sizes), key=sizes.count) if sizes else 0
    items = [
        (pair_id, v)
        for pair_id, v in by_pair.items()
        if len(v) == n_raters and n_raters >= 2 and reference.get(pair_id) is not None
    ]
    if not items:
        return None, (
            "No decided pair has a judgment from every annotator and a reference adopted or "
            "edited from a candidate yet."
        )
    n_boot = n_boot if len(items) > 1 else 0
    shares = agreement_lift(
        [[s for s, _ in v] for _, v in items],
        [reference[pair_id] for pair_id, _ in items],
        n_boot=n_boot,
        seed=seed,
        ci_level=CI_LEVEL,
    )
    codes = {f: i for i, f in enumerate(ModelFamily.values)}
    fleiss, fleiss_note = None, ""
    try:
        fleiss = fleiss_kappa(
            np.array([[codes[f] for _, f in v] for _, v in items]),
            n_categories=len(codes),
            n_boot=n_boot,
            seed=seed,
            ci_level=CI_LEVEL,
        )
    except UndefinedStatisticError as error:
        fleiss_note = str(error)
    return (
        AgreementLift(
            pairs=len(items),
            fleiss=fleiss,
            fleiss_note=fleiss_note,
            blind_agreement=shares.blind_agreement,
            outcome_agreement=shares.outcome_agreement,
            lift=shares.lift,
        ),
        "",
    )
