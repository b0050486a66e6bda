"""Reads of arbitration and of the comparison outcome statistics (App. D.2)."""

import random
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
from django.db.models import Q
from django.urls import reverse

from adjudication.arbitration.models import (
    AdjudicationSettings,
    ArbitrationDecision,
    ReferenceResponse,
)
from agreement import UndefinedStatisticError, fleiss_kappa
from annotation.blinding.guess_rates import letter_counts
from annotation.comparison.models import (
    COMPARISON_LETTERS,
    ComparisonJudgment,
    ComparisonPair,
    Suitability,
)
from annotation.comparison.selectors import by_item_of_pair
from annotation.generation.models import ModelFamily
from audit.memory_quality.corpus import audited_memories
from core.plurals import counted
from core.protocol import CI_LEVEL, N_BOOTSTRAP, PROTOCOL_SEED
from core.roles import Role, user_roles
from core.text_diff import word_diff

EDIT_RATE_BINS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0)


def escalated_count() -> int:
    return ComparisonPair.objects.filter(status=ComparisonPair.Status.ESCALATED).count()


def arbitration_home_queues(*, user) -> dict:
    """The arbitrators' home card: escalated pairs awaiting a decision (one query)."""
    if Role.ARBITRATOR not in user_roles(user):
        return {}
    count = escalated_count()
    return {
        "escalated": {
            "count": count,
            "url": reverse("adjudication:queue"),
            "label": f"{counted(count, 'escalated comparison')} awaiting arbitration",
        }
    }


def arbitration_queue():
    """The open cases only: escalated pairs awaiting a decision, by pair. A queryset, so
    the page takes its rows in the database (a count and one LIMIT query per page)."""
    return (
        ComparisonPair.objects.filter(status=ComparisonPair.Status.ESCALATED)
        .select_related("character", "scenario")
        .order_by("character__key", "scenario__scenario_id", "round", "pk")
    )


# Routed pairs that need no arbitration any more: adopted unanimously or decided.
DECIDED_STATUSES = (
    ComparisonPair.Status.ADOPTED,
    ComparisonPair.Status.RESOLVED,
    ComparisonPair.Status.DISCARDED,
)


def arbitration_decided():
    """The history beside the queue: routed pairs already adopted, resolved or discarded,
    by status, then pair. A queryset, so the page takes its rows in the database (a count
    and one LIMIT query per page), never a pass over every decided pair."""
    return (
        ComparisonPair.objects.filter(status__in=DECIDED_STATUSES)
        .select_related("character", "scenario")
        .order_by("status", "character__key", "scenario__scenario_id", "round", "pk")
    )


def arbitration_decisions_by(*, pair_ids, arbitrator_ids) -> list[ArbitrationDecision]:
    """Every decision (reopened ones included) these people took on these pairs or on an
    earlier round of them: who has arbitrated a pair may not judge it (App. D.2), nor
    the round a regeneration of their decision started (issue #22)."""
    rounds = ComparisonPair.objects.filter(pk__in=pair_ids).values_list(
        "character_id", "scenario_id", "round"
    )
    earlier = Q(pk__in=pair_ids)
    for character_id, scenario_id, number in rounds:
        earlier |= Q(character_id=character_id, scenario_id=scenario_id, round__lt=number)
    return list(
        ArbitrationDecision.objects.filter(
            pair__in=ComparisonPair.objects.filter(earlier), arbitrator__in=arbitrator_ids
        )
        .select_related("pair__character", "pair__scenario", "arbitrator")
        .order_by("decided_at", "pk")
    )


@dataclass
class ArbiterCandidate:
    number: int
    candidate: object
    family_label: str
    memories: list
    chosen_by: list = field(default_factory=list)


@dataclass
class ArbitrationPage:
    pair: ComparisonPair
    candidates: list[ArbiterCandidate]
    judgments: list[dict]
    flagged: bool
    show_family: bool
    decision: ArbitrationDecision | None
    history: list[ArbitrationDecision]
    reference: ReferenceResponse | None
    # Every round of this (character, scenario), oldest first, each with the guidance
    # its regeneration was asked with (issue #22); one entry for a pair never sent back.
    rounds: list[dict] = field(default_factory=list)

    def by_number(self, number):
        return next((c for c in self.candidates if c.number == number), None)

    @property
    def decided_reference(self) -> ReferenceResponse | None:
        """The reference this pair's routing set: none while the pair is still with the
        annotators or awaits arbitration."""
        routed = (ComparisonPair.Status.ADOPTED, ComparisonPair.Status.RESOLVED)
        return self.reference if self.pair.status in routed else None

    @property
    def earlier_reference(self) -> ReferenceResponse | None:
        """A current reference from before this pair's decision (imported from a release,
        or the one a reopened decision superseded): the decision will replace it."""
        waiting = (ComparisonPair.Status.ANNOTATING, ComparisonPair.Status.ESCALATED)
        return self.reference if self.pair.status in waiting else None


def guidance_choices(page: ArbitrationPage) -> list[tuple[int, str]]:
    """The revision guidance an edit may follow, as the arbitration form offers it:
    (judgment id, "annotator: guidance")."""
    return [
        (j["judgment"].pk, f"{j['annotator'].get_username()}: {j['judgment'].revision_guidance}")
        for j in page.judgments
        if j["judgment"].revision_guidance
    ]


def arbiter_order(pair: ComparisonPair, candidates) -> list:
    """A stable order that follows neither database ids nor families (seeded by pair)."""
    ordered = sorted(candidates, key=lambda c: c.pk)
    random.Random(f"arbitration-{pair.pk}").shuffle(ordered)
    return ordered


def arbitration_page(*, pair_id: int) -> ArbitrationPage | None:
    pair = (
        ComparisonPair.objects.select_related("character", "scenario", "profile_version")
        .filter(pk=pair_id)
        .first()
    )
    if pair is None:
        return None
    show_family = AdjudicationSettings.current().show_family_to_arbitrator
    candidates = arbiter_order(pair, pair.candidates.all())
    wanted = {i for c in candidates for i in c.activated_memory_ids or []}
    memories = {}
    # The audited corpus only: a memory the audit left out is never shown (App. B.6).
    for m in audited_memories(pair.character_id).filter(memory_id__in=wanted):
        memories[m.memory_id] = m
    views = [
        ArbiterCandidate(
            number=i + 1,
            candidate=c,
            family_label=ModelFamily(c.family).label if show_family else "",
            memories=[memories[m] for m in c.activated_memory_ids or [] if m in memories],
        )
        for i, c in enumerate(candidates)
    ]
    number_of = {v.candidate.pk: v.number for v in views}
    judgments = []
    for j in (
        ComparisonJudgment.objects.filter(assignment__pair=pair)
        .select_related("assignment__annotator")
        .order_by("assignment__annotator__username")
    ):
        n = number_of.get(j.selected_candidate_id)
        judgments.append({"judgment": j, "annotator": j.assignment.annotator, "number": n})
        views[n - 1].chosen_by.append(j.assignment.annotator.get_username())
    history = list(
        ArbitrationDecision.objects.filter(pair=pair)
        .select_related("arbitrator", "reopened_by", "reference")
        .order_by("decided_at")
    )
    open_decision = next((d for d in history if d.reopened_at is None), None)
    reference = (
        ReferenceResponse.objects.filter(
            character=pair.character_id, scenario=pair.scenario_id, superseded_at__isnull=True
        )
        .select_related("arbitrator")
        .first()
    )
    return ArbitrationPage(
        rounds=pair_rounds(pair),
        pair=pair,
        candidates=views,
        judgments=judgments,
        flagged=any(j["judgment"].suitability == Suitability.FLAGGED for j in judgments),
        show_family=show_family,
        decision=open_decision,
        history=history,
        reference=reference,
    )


def pair_rounds(pair: ComparisonPair) -> list[dict]:
    """Every round of the pair's (character, scenario), oldest first, with the guidance
    of the regeneration that ended it, if any (two queries)."""
    rounds = list(
        ComparisonPair.objects.filter(character=pair.character_id, scenario=pair.scenario_id)
        .select_related("regeneration_run")
        .order_by("round")
    )
    guidance = dict(
        ArbitrationDecision.objects.filter(
            pair__in=rounds, kind=ArbitrationDecision.Kind.REGENERATE
        ).values_list("pair_id", "reason")
    )
    return [{"pair": r, "guidance": guidance.get(r.pk, "")} for r in rounds]


def edit_diff(before: str, after: str) -> list[tuple[str, str]]:
    return word_diff(before, after)


@dataclass
class Outcomes:
    pairs_total: int
    by_status: dict
    discarded_at_suitability: int
    discarded_at_arbitration: int
    routed: int
    unanimous: int
    unanimous_share: float | None
    references_by_family: dict
    # App. D.2's word edit rate two ways (adjudication.arbitration.services.edit_rates):
    # on the keyed final decision, the rate the paper's "≈15%" reports, and on all text
    # fields (rationale and decision). Rewrites have no candidate and no rate.
    keyed_edit_rates: list[float]
    mean_keyed_edit_rate: float | None
    keyed_edit_rate_bins: list[tuple[str, int]]
    edit_rates: list[float]
    mean_edit_rate: float | None
    edit_rate_bins: list[tuple[str, int]]
    kappa: float | None
    kappa_ci: tuple | None
    kappa_note: str
    kappa_items: int
    position_counts: dict
    position_total: int
    decision_types: dict = field(default_factory=dict)

    def csv_rows(self):
        rows = [
            ("pairs_total", self.pairs_total),
            *[(f"pairs_{k}", v) for k, v in self.by_status.items()],
            ("discarded_at_suitability", self.discarded_at_suitability),
            ("discarded_at_arbitration", self.discarded_at_arbitration),
            ("adopted_unanimously", self.unanimous),
            ("adopted_unanimously_share", self.unanimous_share),
            *[(f"references_from_{k}", v) for k, v in self.references_by_family.items()],
            ("mean_word_edit_rate_keyed_decision", self.mean_keyed_edit_rate),
            ("word_edit_rate_keyed_decision_references", len(self.keyed_edit_rates)),
            *[
                (f"keyed_decision_edit_rate_bin_{label}", n)
                for label, n in self.keyed_edit_rate_bins
            ],
            ("mean_word_edit_rate_all_fields", self.mean_edit_rate),
            ("word_edit_rate_all_fields_references", len(self.edit_rates)),
            *[(f"all_fields_edit_rate_bin_{label}", n) for label, n in self.edit_rate_bins],
            ("fleiss_kappa", self.kappa),
            ("fleiss_kappa_ci_low", self.kappa_ci[0] if self.kappa_ci else None),
            ("fleiss_kappa_ci_high", self.kappa_ci[1] if self.kappa_ci else None),
            ("fleiss_kappa_items", self.kappa_items),
            *[(f"selected_letter_{k}", v) for k, v in self.position_counts.items()],
        ]
        return rows


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _edit_rate_bins(rates: list[float]) -> list[tuple[str, int]]:
    bins = []
    for lo, hi in zip(EDIT_RATE_BINS, EDIT_RATE_BINS[1:], strict=False):
        last = hi == EDIT_RATE_BINS[-1]
        n = sum(1 for r in rates if lo <= r < hi or (last and r >= hi))
        bins.append((f"{lo:.0%}–{hi:.0%}" + ("+" if last else ""), n))
    return bins


def comparison_outcomes(*, n_boot: int = N_BOOTSTRAP) -> Outcomes:
    """The outcome statistics of App. D.2 for the pairs of the comparison workflow."""
    statuses = dict.fromkeys(ComparisonPair.Status.values, 0)
    for status in ComparisonPair.objects.values_list("status", flat=True):
        statuses[status] += 1
    total = sum(statuses.values())
    discards = list(
        ArbitrationDecision.objects.filter(
            reopened_at__isnull=True, kind=ArbitrationDecision.Kind.DISCARDED
        ).values_list("pair_id", flat=True)
    )
    flagged_pairs = set(
        ComparisonJudgment.objects.filter(
            suitability=Suitability.FLAGGED, assignment__pair__in=discards
        ).values_list("assignment__pair_id", flat=True)
    )
    at_suitability = len(flagged_pairs)
    references = list(
        ReferenceResponse.objects.filter(superseded_at__isnull=True)
        .exclude(decision_type=ReferenceResponse.DecisionType.IMPORTED)
        .values_list("source_family", "word_edit_rate", "keyed_word_edit_rate", "decision_type")
    )
    by_family = {f.label: 0 for f in ModelFamily}
    by_family["(rewritten)"] = 0
    decision_types = {}
    rates, keyed_rates = [], []
    for family, rate, keyed_rate, kind in references:
        by_family[ModelFamily(family).label if family else "(rewritten)"] += 1
        decision_types[kind] = decision_types.get(kind, 0) + 1
        if rate is not None:
            rates.append(rate)
        if keyed_rate is not None:
            keyed_rates.append(keyed_rate)
    surviving = statuses["adopted"] + statuses["resolved"]
    judgments = list(
        ComparisonJudgment.objects.values_list(
            "assignment__pair_id", "selected_candidate__family", "selected_letter"
        )
    )
    # The same count as the blinding report's (annotation.blinding).
    positions = letter_counts((letter for *_, letter in judgments), COMPARISON_LETTERS)
    per_pair: dict[int, list[str]] = {}
    for pair_id, family, _ in judgments:
        per_pair.setdefault(pair_id, []).append(family)
    # κ needs the same number of raters per item: the modal count (three by default).
    kappa = ci = None
    note = ""
    sizes = [len(v) for v in per_pair.values()]
    n_raters = max(set(sizes), key=sizes.count) if sizes else 0
    items = [v for v in per_pair.values() if len(v) == n_raters and n_raters >= 2]
    if items:
        codes = {f: i for i, f in enumerate(ModelFamily.values)}
        ratings = np.array([[codes[f] for f in v] for v in items])
        try:
            estimate = fleiss_kappa(
                ratings,
                n_categories=len(codes),
                n_boot=n_boot if len(items) > 1 else 0,
                seed=PROTOCOL_SEED,  # the κ bootstrap of the outcome page (App. J seed)
                ci_level=CI_LEVEL,
            )
            kappa = estimate.estimate
            if estimate.ci_low is not None:
                ci = (estimate.ci_low, estimate.ci_high)
        except UndefinedStatisticError as error:
            note = str(error)
    else:
        note = "No pair has judgments from every assigned annotator yet."
    return Outcomes(
        pairs_total=total,
        by_status=statuses,
        discarded_at_suitability=at_suitability,
        discarded_at_arbitration=len(discards) - at_suitability,
        routed=total - statuses["annotating"],
        unanimous=statuses["adopted"],
        unanimous_share=statuses["adopted"] / surviving if surviving else None,
        references_by_family=by_family,
        keyed_edit_rates=keyed_rates,
        mean_keyed_edit_rate=_mean(keyed_rates),
        keyed_edit_rate_bins=_edit_rate_bins(keyed_rates),
        edit_rates=rates,
        mean_edit_rate=_mean(rates),
        edit_rate_bins=_edit_rate_bins(rates),
        kappa=kappa,
        kappa_ci=ci,
        kappa_note=note,
        kappa_items=len(items),
        position_counts=positions,
        position_total=sum(positions.values()),
        decision_types=decision_types,
    )


# --- Construction-export chain section (adjudication.export.chain) ------------------------


def _iso(value):
    return value.isoformat() if value is not None else None


def _username(user):
    return user.get_username() if user is not None else None


def chain_arbitration(items) -> dict:
    """Construction-export chain section "arbitration": every arbitration decision on the
    item's pair, reopened ones included, oldest first (a fixed number of queries)."""
    if not items:
        return {}
    rows = defaultdict(list)
    decisions = (
        ArbitrationDecision.objects.filter(
            pair__character_id__in=sorted({i.character_id for i in items}),
            pair__scenario_id__in=sorted({i.scenario_id for i in items}),
        )
        .select_related("pair", "arbitrator", "reopened_by")
        .order_by("decided_at", "pk")
    )
    for d in decisions:
        rows[(d.pair.character_id, d.pair.scenario_id)].append(
            {
                "id": d.pk,
                "kind": d.kind,
                "round": d.pair.round,
                "regeneration_run": (
                    d.pair.regeneration_run_id
                    if d.kind == ArbitrationDecision.Kind.REGENERATE
                    else None
                ),
                "arbitrator": _username(d.arbitrator),
                "source_candidate": d.source_candidate_id,
                "reason": d.reason,
                "reference": d.reference_id,
                "decided_at": _iso(d.decided_at),
                "reopened_at": _iso(d.reopened_at),
                "reopened_by": _username(d.reopened_by),
                "reopen_reason": d.reopen_reason,
            }
        )
    return by_item_of_pair(items, rows)
