"""Reads of scenario review, shaped for pages, the API and the home card.

Blinding lives here (DESIGN.md): ``scenario_review_page`` gives a scenario reviewer the
other reviewer's pass-2 rating only once their own is submitted. Each selector issues a
fixed number of queries whatever the number of rows.
"""

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from django.db.models import Exists, OuterRef, Q, Subquery
from django.http import Http404
from django.urls import reverse

from agreement import AgreementInputError, UndefinedStatisticError, cohen_kappa, krippendorff_alpha
from annotation.corpus.models import Scenario
from annotation.scenario_review.models import (
    DIAMONDS_DIMENSIONS,
    DIAMONDS_FIELDS,
    DIAMONDS_SCALE,
    DiamondsRating,
    ReassessmentProposal,
    ScenarioBlueprint,
    ScenarioReview,
    ScenarioVersion,
    ScreeningDecision,
)
from annotation.scenario_review.services import disagreements
from core.life_stages import BY_KEY as LIFE_STAGES
from core.life_stages import LIFE_STAGE_BINS
from core.plurals import agree, counted
from core.protocol import SCENARIOS_PER_LIFE_STAGE
from core.roles import Role, user_roles
from core.text_diff import identity_anchors


@dataclass
class ScenarioQueueRow:
    scenario: Scenario
    review: ScenarioReview | None
    you_screened: bool
    you_rated: bool
    you_proposed: bool = False  # the caller made the re-assessment proposal now pending

    @property
    def needs_you(self) -> bool:
        if self.review is None:
            return True
        stage = self.review.stage
        return (
            (stage == ScenarioReview.Stage.SCREENING and not self.you_screened)
            or stage == ScenarioReview.Stage.REVISION
            or (stage == ScenarioReview.Stage.RATING and not self.you_rated)
            or (stage == ScenarioReview.Stage.REASSESSMENT and not self.you_proposed)
        )

    @property
    def your_status(self) -> str:
        if self.review is None:
            return "Pass 1: not started"
        stage = self.review.stage
        if stage == ScenarioReview.Stage.SCREENING:
            return (
                "Pass 1: awaiting the other reviewer" if self.you_screened else "Pass 1: screen it"
            )
        if stage == ScenarioReview.Stage.RATING:
            return (
                "Pass 2: rated, awaiting the other reviewer"
                if self.you_rated
                else "Pass 2: rate it"
            )
        if stage == ScenarioReview.Stage.REASSESSMENT:
            return (
                "Re-assessment: proposed, awaiting the other reviewer's confirmation"
                if self.you_proposed
                else "Re-assessment: propose or confirm the final ratings"
            )
        return self.review.get_stage_display()


def _last_proposer(review_ref: str = "pk"):
    """The proposer of a review's current (latest) re-assessment proposal, as a subquery."""
    return Subquery(
        ReassessmentProposal.objects.filter(review=OuterRef(review_ref))
        .order_by("-pk")
        .values("proposed_by")[:1]
    )


def scenario_review_queue(*, user) -> list[ScenarioQueueRow]:
    """Every scenario with its review stage and what the caller has done; never the other
    reviewer's ratings or whether they have rated."""
    reviews = {
        r.scenario_id: r
        for r in ScenarioReview.objects.select_related("version").annotate(
            you_screened=Exists(
                ScreeningDecision.objects.filter(
                    review=OuterRef("pk"), version=OuterRef("version"), reviewer=user
                )
            ),
            you_rated=Exists(DiamondsRating.objects.filter(review=OuterRef("pk"), reviewer=user)),
            last_proposer=_last_proposer(),
        )
    }
    rows = []
    for scenario in Scenario.objects.order_by("age", "scenario_id"):
        review = reviews.get(scenario.pk)
        rows.append(
            ScenarioQueueRow(
                scenario=scenario,
                review=review,
                you_screened=bool(review and review.you_screened),
                you_rated=bool(review and review.you_rated),
                you_proposed=bool(
                    review
                    and review.stage == ScenarioReview.Stage.REASSESSMENT
                    and review.last_proposer == user.pk
                ),
            )
        )
    return rows


@dataclass
class DimensionComparison:
    field: str
    label: str
    values: list[int]
    spread: int
    reassess: bool
    final: int | None


@dataclass
class ScenarioReviewPage:
    scenario: Scenario
    review: ScenarioReview | None
    version: ScenarioVersion | None
    versions: list[ScenarioVersion]
    screenings: list[ScreeningDecision]
    current_screenings: list[ScreeningDecision]
    own_rating: DiamondsRating | None
    visible_ratings: list[DiamondsRating]
    comparison: list[DimensionComparison]
    anchors: list[tuple[str, str]]
    you_screened: bool
    is_reviewer: bool
    user_id: int | None = None
    proposals: list[ReassessmentProposal] = field(default_factory=list)
    blueprint: ScenarioBlueprint | None = None

    @property
    def stage(self) -> str:
        return self.review.stage if self.review else ScenarioReview.Stage.SCREENING

    @property
    def can_rate(self) -> bool:
        return (
            self.is_reviewer and self.stage == ScenarioReview.Stage.RATING and not self.own_rating
        )

    @property
    def can_reassess(self) -> bool:
        """The caller is one of the two raters and the joint re-assessment is open: they
        may propose (or counter-propose) the final values."""
        return (
            self.is_reviewer
            and self.stage == ScenarioReview.Stage.REASSESSMENT
            and self.own_rating is not None
        )

    @property
    def current_proposal(self) -> ReassessmentProposal | None:
        """The proposal awaiting confirmation (the latest), while the re-assessment is open."""
        if self.stage != ScenarioReview.Stage.REASSESSMENT or not self.proposals:
            return None
        return self.proposals[-1]

    @property
    def awaiting(self) -> str:
        """Who the joint re-assessment waits for: the rater who did not make the current
        proposal; empty when nothing is proposed."""
        proposal = self.current_proposal
        if proposal is None:
            return ""
        return next(
            (
                r.reviewer.get_username()
                for r in self.visible_ratings
                if r.reviewer_id != proposal.proposed_by_id
            ),
            "",
        )

    @property
    def can_confirm(self) -> bool:
        proposal = self.current_proposal
        return (
            self.can_reassess and proposal is not None and proposal.proposed_by_id != self.user_id
        )

    @property
    def confirmed_proposal(self) -> ReassessmentProposal | None:
        final = getattr(self.review, "final", None) if self.review else None
        return final.proposal if final is not None else None


def scenario_review_page(*, scenario_id: str, user) -> ScenarioReviewPage:
    """A scenario's review as ``user`` may see it: pass-1 decisions (joint work) in full;
    pass-2 ratings of the other reviewer only once ``user`` has submitted their own."""
    scenario = Scenario.objects.filter(scenario_id=scenario_id).first()
    if scenario is None:
        raise Http404(f"No scenario {scenario_id}.")
    review = (
        ScenarioReview.objects.select_related(
            "version", "final", "final__recorded_by", "final__proposal__proposed_by"
        )
        .filter(scenario=scenario)
        .first()
    )
    versions = list(
        ScenarioVersion.objects.filter(scenario=scenario)
        .select_related("created_by")
        .order_by("-number")
    )
    screenings = (
        list(
            ScreeningDecision.objects.filter(review=review)
            .select_related("reviewer", "version")
            .order_by("created_at", "pk")
        )
        if review
        else []
    )
    is_reviewer = Role.SCENARIO_REVIEWER in user_roles(user)
    ratings = (
        list(DiamondsRating.objects.filter(review=review).select_related("reviewer").order_by("pk"))
        if review
        else []
    )
    own = next((r for r in ratings if r.reviewer_id == user.pk), None)
    # BLINDING: a reviewer who has not rated sees no rating at all; someone who is not a
    # scenario reviewer (the admin) sees the record as it is.
    visible = ratings if (own is not None or not is_reviewer) else []
    comparison = []
    final = getattr(review, "final", None) if review else None
    if len(visible) >= 2:
        first, second = visible[0].scores(), visible[1].scores()
        split = set(disagreements(first, second))
        for f, label, _ in DIAMONDS_DIMENSIONS:
            comparison.append(
                DimensionComparison(
                    f,
                    label,
                    [first[f], second[f]],
                    abs(first[f] - second[f]),
                    f in split,
                    getattr(final, f) if final else None,
                )
            )
    # Proposals exist only once both reviewers rated, so they reveal no rating early.
    proposals = (
        list(
            ReassessmentProposal.objects.filter(review=review)
            .select_related("proposed_by")
            .order_by("pk")
        )
        if review and review.stage == ScenarioReview.Stage.REASSESSMENT
        else []
    )
    version = review.version if review else (versions[0] if versions else None)
    content_source = version or scenario
    blueprint = ScenarioBlueprint.objects.filter(scenario=scenario).first()
    return ScenarioReviewPage(
        scenario=scenario,
        review=review,
        version=version,
        versions=versions,
        screenings=screenings,
        current_screenings=[s for s in screenings if version and s.version_id == version.pk],
        own_rating=own,
        visible_ratings=visible,
        comparison=comparison,
        anchors=identity_anchors(
            " ".join([content_source.context_text, content_source.trigger_message])
        ),
        you_screened=any(
            s.reviewer_id == user.pk and version and s.version_id == version.pk for s in screenings
        ),
        is_reviewer=is_reviewer,
        user_id=user.pk,
        proposals=proposals,
        blueprint=blueprint,
    )


def blueprint_list():
    return ScenarioBlueprint.objects.select_related("created_by", "scenario").order_by(
        "-created_at", "-pk"
    )


def blueprint_get(*, blueprint_id: int) -> ScenarioBlueprint:
    blueprint = blueprint_list().filter(pk=blueprint_id).first()
    if blueprint is None:
        raise Http404("No such blueprint.")
    return blueprint


# --- Coverage (App. C.2, Table 13) --------------------------------------------------------


@dataclass
class Statistic:
    value: float | None
    note: str = ""


@dataclass
class AgreementRow:
    label: str
    n_units: int
    exact: float | None
    within_one: float | None
    alpha: Statistic
    kappa_linear: Statistic
    kappa_quadratic: Statistic


def _stat(fn, *args, **kwargs) -> Statistic:
    try:
        return Statistic(round(fn(*args, **kwargs).estimate, 3))
    except (UndefinedStatisticError, AgreementInputError) as error:
        return Statistic(None, str(error))


def _agreement_row(label: str, pairs: list[tuple[int, int]]) -> AgreementRow:
    if not pairs:
        none = Statistic(None, "no scenario has two ratings yet")
        return AgreementRow(label, 0, None, None, none, none, none)
    matrix = np.array(pairs, dtype=float)
    a, b = matrix[:, 0].astype(int) - 1, matrix[:, 1].astype(int) - 1
    diff = np.abs(a - b)
    k = len(DIAMONDS_SCALE)
    return AgreementRow(
        label,
        len(pairs),
        round(100 * float(np.mean(diff == 0)), 1),
        round(100 * float(np.mean(diff <= 1)), 1),
        _stat(krippendorff_alpha, matrix, level="ordinal", value_domain=DIAMONDS_SCALE),
        _stat(cohen_kappa, a, b, n_categories=k, weights="linear"),
        _stat(cohen_kappa, a, b, n_categories=k, weights="quadratic"),
    )


@dataclass
class DistributionRow:
    field: str
    label: str
    counts: list[int]
    total: int


@dataclass
class StageRow:
    key: str
    label: str
    age_range: str
    total: int
    complete: int
    anchored: list[str]


@dataclass
class Coverage:
    n_final: int
    distribution: list[DistributionRow]
    stages: list[StageRow]
    agreement: list[AgreementRow]
    per_stage_target: int = SCENARIOS_PER_LIFE_STAGE
    scale: tuple[int, ...] = DIAMONDS_SCALE


def scenario_coverage() -> Coverage:
    """Table 13 (final ratings per dimension; each row sums to the number of scenarios
    with a final rating), scenarios per life-stage bin with the character-agnostic check,
    and inter-rater agreement of the two independent ratings before re-assessment."""
    finals = list(
        ScenarioReview.objects.filter(final__isnull=False)
        .select_related("final")
        .only("pk", *[f"final__{f}" for f in DIAMONDS_FIELDS])
    )
    distribution = []
    for f, label, _ in DIAMONDS_DIMENSIONS:
        counts = Counter(getattr(r.final, f) for r in finals)
        row = [counts.get(v, 0) for v in DIAMONDS_SCALE]
        distribution.append(DistributionRow(f, label, row, sum(row)))

    by_review: dict[int, list[DiamondsRating]] = {}
    for rating in DiamondsRating.objects.order_by("review_id", "pk"):
        by_review.setdefault(rating.review_id, []).append(rating)
    paired = [rs[:2] for rs in by_review.values() if len(rs) >= 2]
    agreement = [
        _agreement_row(label, [(getattr(a, f), getattr(b, f)) for a, b in paired])
        for f, label, _ in DIAMONDS_DIMENSIONS
    ]
    agreement.append(
        _agreement_row(
            "All dimensions pooled",
            [(getattr(a, f), getattr(b, f)) for a, b in paired for f in DIAMONDS_FIELDS],
        )
    )

    complete_ids = set(
        ScenarioReview.objects.filter(stage=ScenarioReview.Stage.COMPLETE).values_list(
            "scenario_id", flat=True
        )
    )
    stage_rows = {
        b.key: StageRow(b.key, b.label, b.release_age_range, 0, 0, []) for b in LIFE_STAGE_BINS
    }
    for scenario in Scenario.objects.only(
        "pk", "scenario_id", "stage", "context_text", "trigger_message"
    ).order_by("scenario_id"):
        row = stage_rows.get(scenario.stage)
        if row is None:
            continue
        row.total += 1
        row.complete += scenario.pk in complete_ids
        if identity_anchors(f"{scenario.context_text} {scenario.trigger_message}"):
            row.anchored.append(scenario.scenario_id)
    stages = list(stage_rows.values())
    return Coverage(
        n_final=len(finals),
        distribution=distribution,
        stages=stages,
        agreement=agreement,
    )


def life_stage_label(key: str) -> str:
    stage = LIFE_STAGES.get(key)
    return stage.label if stage else key


# --- Home card ----------------------------------------------------------------------------


def scenario_home_queues(*, user) -> dict:
    """What the scenario-review card of the home page shows, for a scenario reviewer only:
    ``{"scenario_review": {"count", "url", "label"}}``. One query."""
    if Role.SCENARIO_REVIEWER not in user_roles(user):
        return {}
    reviews = ScenarioReview.objects.filter(scenario=OuterRef("pk"))
    screened = ScreeningDecision.objects.filter(
        review__scenario=OuterRef("pk"), version=OuterRef("review__version"), reviewer=user
    )
    rated = DiamondsRating.objects.filter(review__scenario=OuterRef("pk"), reviewer=user)
    count = (
        Scenario.objects.alias(
            _screened=Exists(screened),
            _rated=Exists(rated),
            _last_proposer=_last_proposer("review"),
        )
        .filter(
            ~Exists(reviews)
            | Q(review__stage=ScenarioReview.Stage.SCREENING, _screened=False)
            | Q(review__stage=ScenarioReview.Stage.REVISION)
            | Q(review__stage=ScenarioReview.Stage.RATING, _rated=False)
            | (
                Q(review__stage=ScenarioReview.Stage.REASSESSMENT)
                & (Q(_last_proposer__isnull=True) | ~Q(_last_proposer=user.pk))
            )
        )
        .count()
    )
    return {
        "scenario_review": {
            "count": count,
            "url": reverse("review:scenario-list"),
            "label": f"{counted(count, 'scenario')} {agree(count, 'needs', 'need')} your review",
        }
    }
