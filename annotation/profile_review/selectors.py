"""Reads of the construction-stage reviews, shaped for pages, the API and the home cards.

Blinding lives here (DESIGN.md): ``profile_review_page`` gives a primary annotator only
their own review until the case is frozen, and ``scenario_review_page`` gives a scenario
reviewer the other reviewer's pass-2 rating only once their own is submitted. Each
selector issues a fixed number of queries whatever the number of rows.
"""

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from django.db.models import Count, Exists, OuterRef, Prefetch, Q
from django.http import Http404
from django.urls import reverse

from agreement import AgreementInputError, UndefinedStatisticError, cohen_kappa, krippendorff_alpha
from annotation.corpus.life_stages import BY_KEY as LIFE_STAGES
from annotation.corpus.life_stages import LIFE_STAGE_BINS
from annotation.corpus.models import Character, ProfileVersion, Scenario
from annotation.profile_review.models import (
    DIAMONDS_DIMENSIONS,
    DIAMONDS_FIELDS,
    DIAMONDS_SCALE,
    PROFILE_FIELD_CHOICES,
    PROFILE_REVIEWERS_REQUIRED,
    ChangeRequest,
    DiamondsRating,
    ProfileEdit,
    ProfileReview,
    ProfileReviewCase,
    Recommendation,
    ScenarioBlueprint,
    ScenarioReview,
    ScenarioVersion,
    ScreeningDecision,
    profile_field_text,
)
from annotation.profile_review.services import disagreements
from heartbench_site.base import charts as review_charts
from heartbench_site.base.roles import Role, user_roles
from heartbench_site.base.text_diff import identity_anchors

# Seed 000 §2.3 Stage 1: exactly 8 scenarios per life-stage bin.
SCENARIOS_PER_LIFE_STAGE = 8


# --- Profile review -----------------------------------------------------------------------


def _latest_versions_prefetch() -> Prefetch:
    return Prefetch(
        "versions",
        queryset=ProfileVersion.objects.select_related("frozen_by").order_by("-number"),
        to_attr="versions_desc",
    )


@dataclass
class ProfileQueueRow:
    character: Character
    latest: ProfileVersion | None
    case: ProfileReviewCase | None
    own_review: ProfileReview | None = None
    submitted: int = 0
    open_requests: int = 0

    @property
    def state(self) -> str:
        if self.latest is None:
            return "no profile"
        if self.case is None:
            return "frozen" if self.latest.is_frozen else "to review"
        return self.case.status


def _open_cases():
    return ProfileReviewCase.objects.exclude(status=ProfileReviewCase.Status.FROZEN)


def profile_review_queue(*, user) -> list[ProfileQueueRow]:
    """Every character with its latest version and open case; the caller's own review
    (annotators) or the review counts (the senior expert)."""
    characters = Character.objects.prefetch_related(_latest_versions_prefetch()).order_by("key")
    cases = {
        c.character_id: c
        for c in _open_cases()
        .select_related("reviewed_version")
        .annotate(
            submitted=Count(
                "reviews", filter=Q(reviews__submitted_at__isnull=False), distinct=True
            ),
            open_requests=Count(
                "reviews__requests",
                filter=Q(reviews__requests__status=ChangeRequest.Status.OPEN),
                distinct=True,
            ),
        )
    }
    own = {
        r.case_id: r for r in ProfileReview.objects.filter(reviewer=user, case__in=cases.values())
    }
    rows = []
    is_senior = Role.ARBITRATOR in user_roles(user)
    for character in characters:
        case = cases.get(character.pk)
        row = ProfileQueueRow(
            character=character,
            latest=character.versions_desc[0] if character.versions_desc else None,
            case=case,
            own_review=own.get(case.pk) if case else None,
        )
        if case is not None and is_senior:
            row.submitted, row.open_requests = case.submitted, case.open_requests
        rows.append(row)
    return rows


@dataclass
class ProfileField:
    name: str
    label: str
    text: str


def profile_fields(version: ProfileVersion) -> list[ProfileField]:
    return [
        ProfileField(n, label, profile_field_text(version, n)) for n, label in PROFILE_FIELD_CHOICES
    ]


@dataclass
class ProfileReviewPage:
    character: Character
    version: ProfileVersion | None
    case: ProfileReviewCase | None
    own_review: ProfileReview | None
    own_requests: list[ChangeRequest]
    fields: list[ProfileField]
    can_review: bool
    closed_reason: str
    adjudicated_reviews: list[ProfileReview] = field(default_factory=list)


def _reviews_prefetch() -> Prefetch:
    return Prefetch(
        "reviews",
        queryset=ProfileReview.objects.select_related("reviewer")
        .prefetch_related(
            Prefetch(
                "requests",
                queryset=ChangeRequest.objects.select_related(
                    "resolved_by", "resolved_in_version"
                ).order_by("pk"),
            )
        )
        .order_by("submitted_at", "pk"),
        to_attr="review_list",
    )


def profile_review_page(*, character_key: str, user) -> ProfileReviewPage:
    """What a primary annotator sees: the version under review and their own review.

    Other annotators' reviews are loaded only for a frozen case (after adjudication).
    """
    character = (
        Character.objects.prefetch_related(_latest_versions_prefetch())
        .filter(key=character_key)
        .first()
    )
    if character is None:
        raise Http404(f"No character {character_key}.")
    latest = character.versions_desc[0] if character.versions_desc else None
    case = (
        ProfileReviewCase.objects.select_related("reviewed_version", "final_version", "frozen_by")
        .filter(character=character)
        .order_by("-created_at", "-pk")
        .first()
    )
    if case is not None and case.status == ProfileReviewCase.Status.FROZEN and latest is not None:
        if not latest.is_frozen:
            case = None  # a newer draft than the last frozen round: a fresh review
    version = (
        case.reviewed_version if case else (latest if latest and not latest.is_frozen else None)
    )
    own_review, own_requests, adjudicated = None, [], []
    if case is not None:
        own_review = (
            ProfileReview.objects.filter(case=case, reviewer=user)
            .prefetch_related(Prefetch("requests", queryset=ChangeRequest.objects.order_by("pk")))
            .first()
        )
        own_requests = list(own_review.requests.all()) if own_review else []
        if case.status == ProfileReviewCase.Status.FROZEN:
            adjudicated = (
                ProfileReviewCase.objects.prefetch_related(_reviews_prefetch())
                .get(pk=case.pk)
                .review_list
            )
    closed = ""
    if version is None:
        closed = (
            f"{latest} is frozen; there is nothing to review."
            if latest
            else "No profile version yet."
        )
    elif case is not None and case.status != ProfileReviewCase.Status.REVIEWING:
        closed = (
            "Frozen after adjudication."
            if case.status == ProfileReviewCase.Status.FROZEN
            else "All reviews are in; the senior expert is adjudicating."
        )
    elif own_review is not None and own_review.is_submitted:
        closed = "You submitted your review."
    if case is not None and case.status == ProfileReviewCase.Status.FROZEN:
        version = case.final_version or version
    return ProfileReviewPage(
        character=character,
        version=version,
        case=case,
        own_review=own_review,
        own_requests=own_requests,
        fields=profile_fields(version) if version else [],
        can_review=not closed,
        closed_reason=closed,
        adjudicated_reviews=adjudicated,
    )


@dataclass
class FieldRequests:
    name: str
    label: str
    text: str
    requests: list[ChangeRequest]


@dataclass
class AdjudicationPage:
    character: Character
    case: ProfileReviewCase | None
    reviewed: ProfileVersion | None
    latest: ProfileVersion | None
    reviews: list[ProfileReview]
    by_field: list[FieldRequests]
    edits: list[ProfileEdit]
    submitted: int
    open_requests: int
    required: int = PROFILE_REVIEWERS_REQUIRED

    @property
    def has_requests(self) -> bool:
        return any(group.requests for group in self.by_field)

    @property
    def can_adjudicate(self) -> bool:
        return self.case is not None and self.case.status == ProfileReviewCase.Status.ADJUDICATING

    @property
    def can_freeze(self) -> bool:
        return self.can_adjudicate and not self.open_requests


def profile_adjudication_page(*, character_key: str) -> AdjudicationPage:
    """The senior expert's view: every review side by side per field, the edits so far."""
    character = (
        Character.objects.prefetch_related(_latest_versions_prefetch())
        .filter(key=character_key)
        .first()
    )
    if character is None:
        raise Http404(f"No character {character_key}.")
    case = (
        ProfileReviewCase.objects.select_related("reviewed_version", "final_version", "frozen_by")
        .prefetch_related(
            _reviews_prefetch(),
            Prefetch(
                "edits",
                queryset=ProfileEdit.objects.select_related(
                    "editor", "from_version", "to_version"
                ).order_by("created_at", "pk"),
                to_attr="edit_list",
            ),
        )
        .filter(character=character)
        .order_by("-created_at", "-pk")
        .first()
    )
    latest = character.versions_desc[0] if character.versions_desc else None
    reviews = case.review_list if case else []
    submitted = [r for r in reviews if r.is_submitted]
    requests = [cr for r in submitted for cr in r.requests.all()]
    reviewed = case.reviewed_version if case else None
    by_field = []
    if reviewed is not None:
        for name, label in PROFILE_FIELD_CHOICES:
            field_requests = [cr for cr in requests if cr.field == name]
            by_field.append(
                FieldRequests(name, label, profile_field_text(reviewed, name), field_requests)
            )
    return AdjudicationPage(
        character=character,
        case=case,
        reviewed=reviewed,
        latest=latest,
        reviews=submitted,
        by_field=by_field,
        edits=case.edit_list if case else [],
        submitted=len(submitted),
        open_requests=sum(cr.status == ChangeRequest.Status.OPEN for cr in requests),
    )


def edit_get(*, edit_id: int) -> ProfileEdit:
    edit = (
        ProfileEdit.objects.select_related(
            "case__character", "editor", "from_version", "to_version"
        )
        .filter(pk=edit_id)
        .first()
    )
    if edit is None:
        raise Http404("No such edit.")
    return edit


# Table 6 rows, in the paper's order.
OUTCOME_ROWS = (
    ("accepted", "Accepted as-is by all reviewers"),
    ("local_1", "Local revision requested by one reviewer"),
    ("local_2", "Local revision requested by two reviewers"),
    ("local_3", "Local revision requested by three reviewers"),
    ("flagged", "Flagged for further adjudication by at least one reviewer"),
    ("in_progress", "Initial review in progress"),
    ("not_started", "Not yet reviewed"),
)


@dataclass
class OutcomeRow:
    key: str
    label: str
    count: int
    percent: float | None
    characters: list[str]


@dataclass
class OutcomeTable:
    rows: list[OutcomeRow]
    total: int


def profile_outcome_table() -> OutcomeTable:
    """The paper's Table 6: each profile by its reviewers' initial recommendations
    (the latest review round of each character); percentages over every profile."""
    characters = list(Character.objects.filter(versions__isnull=False).distinct().order_by("key"))
    latest_case = {}
    for case in (
        ProfileReviewCase.objects.filter(character__in=characters)
        .prefetch_related(
            Prefetch(
                "reviews",
                queryset=ProfileReview.objects.filter(submitted_at__isnull=False).only(
                    "case_id", "recommendation", "submitted_at"
                ),
                to_attr="submitted_reviews",
            )
        )
        .order_by("created_at", "pk")
    ):
        latest_case[case.character_id] = case
    buckets: dict[str, list[str]] = {key: [] for key, _ in OUTCOME_ROWS}
    for character in characters:
        case = latest_case.get(character.pk)
        if case is None:
            buckets["not_started"].append(character.key)
            continue
        recs = Counter(r.recommendation for r in case.submitted_reviews)
        if sum(recs.values()) < PROFILE_REVIEWERS_REQUIRED:
            buckets["in_progress"].append(character.key)
        elif recs[Recommendation.FLAG]:
            buckets["flagged"].append(character.key)
        elif recs[Recommendation.LOCAL_REVISION]:
            buckets[f"local_{min(recs[Recommendation.LOCAL_REVISION], 3)}"].append(character.key)
        else:
            buckets["accepted"].append(character.key)
    total = len(characters)
    rows = [
        OutcomeRow(
            key,
            label,
            len(buckets[key]),
            round(100 * len(buckets[key]) / total, 1) if total else None,
            buckets[key],
        )
        for key, label in OUTCOME_ROWS
        if key not in ("in_progress", "not_started", "local_3") or buckets[key]
    ]
    return OutcomeTable(rows=rows, total=total)


# --- Scenario review ----------------------------------------------------------------------


@dataclass
class ScenarioQueueRow:
    scenario: Scenario
    review: ScenarioReview | None
    you_screened: bool
    you_rated: bool

    @property
    def needs_you(self) -> bool:
        if self.review is None:
            return True
        stage = self.review.stage
        return (
            (stage == ScenarioReview.Stage.SCREENING and not self.you_screened)
            or stage == ScenarioReview.Stage.REVISION
            or (stage == ScenarioReview.Stage.RATING and not self.you_rated)
            or stage == ScenarioReview.Stage.REASSESSMENT
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
        return self.review.get_stage_display()


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
        return (
            self.is_reviewer
            and self.stage == ScenarioReview.Stage.REASSESSMENT
            and self.own_rating is not None
        )


def scenario_review_page(*, scenario_id: str, user) -> ScenarioReviewPage:
    """A scenario's review as ``user`` may see it: pass-1 decisions (joint work) in full;
    pass-2 ratings of the other reviewer only once ``user`` has submitted their own."""
    scenario = Scenario.objects.filter(scenario_id=scenario_id).first()
    if scenario is None:
        raise Http404(f"No scenario {scenario_id}.")
    review = (
        ScenarioReview.objects.select_related("version", "final", "final__recorded_by")
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
    distribution_chart: review_charts.Chart
    stage_chart: review_charts.Chart
    per_stage_target: int = SCENARIOS_PER_LIFE_STAGE
    scale: tuple[int, ...] = DIAMONDS_SCALE
    colours: tuple[str, ...] = review_charts.RATING_COLOURS


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
        distribution_chart=review_charts.stacked_rows(
            [(r.label, r.counts) for r in distribution], total=len(finals)
        ),
        stage_chart=review_charts.bars(
            [(s.label, s.total) for s in stages], target=SCENARIOS_PER_LIFE_STAGE
        ),
    )


def life_stage_label(key: str) -> str:
    stage = LIFE_STAGES.get(key)
    return stage.label if stage else key


# --- Home cards ---------------------------------------------------------------------------


def review_home_queues(*, user) -> dict:
    """What each review card of the home page shows, for the roles ``user`` holds only:
    ``{"profile_review": {"count", "url", "label"}, "profile_adjudication": ...,
    "scenario_review": ...}``. One query per card."""
    held = user_roles(user)
    cards = {}
    if Role.PRIMARY_ANNOTATOR in held:
        newer = ProfileVersion.objects.filter(
            character=OuterRef("character"), number__gt=OuterRef("number")
        )
        closed_case = ProfileReviewCase.objects.filter(
            character=OuterRef("character"), status=ProfileReviewCase.Status.ADJUDICATING
        )
        done = ProfileReview.objects.filter(
            case__character=OuterRef("character"),
            case__status=ProfileReviewCase.Status.REVIEWING,
            reviewer=user,
            submitted_at__isnull=False,
        )
        count = (
            ProfileVersion.objects.filter(frozen_at__isnull=True)
            .exclude(Exists(newer))
            .exclude(Exists(closed_case))
            .exclude(Exists(done))
            .count()
        )
        cards["profile_review"] = {
            "count": count,
            "url": reverse("review:profile-list"),
            "label": f"{count} profile(s) awaiting your review",
        }
    if Role.ARBITRATOR in held:
        count = ProfileReviewCase.objects.filter(
            status=ProfileReviewCase.Status.ADJUDICATING
        ).count()
        cards["profile_adjudication"] = {
            "count": count,
            "url": reverse("review:profile-list"),
            "label": f"{count} profile(s) awaiting adjudication",
        }
    if Role.SCENARIO_REVIEWER in held:
        reviews = ScenarioReview.objects.filter(scenario=OuterRef("pk"))
        screened = ScreeningDecision.objects.filter(
            review__scenario=OuterRef("pk"), version=OuterRef("review__version"), reviewer=user
        )
        rated = DiamondsRating.objects.filter(review__scenario=OuterRef("pk"), reviewer=user)
        count = (
            Scenario.objects.alias(_screened=Exists(screened), _rated=Exists(rated))
            .filter(
                ~Exists(reviews)
                | Q(review__stage=ScenarioReview.Stage.SCREENING, _screened=False)
                | Q(review__stage=ScenarioReview.Stage.REVISION)
                | Q(review__stage=ScenarioReview.Stage.RATING, _rated=False)
                | Q(review__stage=ScenarioReview.Stage.REASSESSMENT)
            )
            .count()
        )
        cards["scenario_review"] = {
            "count": count,
            "url": reverse("review:scenario-list"),
            "label": f"{count} scenario(s) need your review",
        }
    return cards
