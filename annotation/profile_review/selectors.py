"""Reads of profile review, shaped for pages, the API and the home cards.

Blinding lives here (DESIGN.md): ``profile_review_page`` gives a primary annotator only
their own review until the case is frozen. Each selector issues a fixed number of
queries whatever the number of rows.
"""

from collections import Counter
from dataclasses import dataclass, field

from django.db.models import Count, Exists, OuterRef, Prefetch, Q
from django.http import Http404
from django.urls import reverse

from annotation.corpus.models import Character, ProfileVersion
from annotation.profile_review.models import (
    PROFILE_FIELD_CHOICES,
    ChangeRequest,
    ProfileEdit,
    ProfileReview,
    ProfileReviewCase,
    Recommendation,
    accepted_as_is,
    accepted_as_is_message,
    profile_field_text,
)
from core.plurals import counted
from core.protocol import PROFILE_REVIEWERS
from core.roles import Role, user_roles


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
            f"Version {latest.number} is frozen; there is nothing to review."
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
    required: int = PROFILE_REVIEWERS

    @property
    def has_requests(self) -> bool:
        return any(group.requests for group in self.by_field)

    @property
    def can_adjudicate(self) -> bool:
        return self.case is not None and self.case.status == ProfileReviewCase.Status.ADJUDICATING

    @property
    def can_freeze(self) -> bool:
        return self.can_adjudicate and not self.open_requests

    @property
    def accepted_as_is(self) -> bool:
        """All the reviewers accepted the profile as-is: App. B.3 retains it unchanged."""
        return accepted_as_is(r.recommendation for r in self.reviews)

    @property
    def accepted_as_is_message(self) -> str:
        return accepted_as_is_message(self.character.key)


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
        if sum(recs.values()) < PROFILE_REVIEWERS:
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


# --- Home cards ---------------------------------------------------------------------------


def profile_home_queues(*, user) -> dict:
    """What each profile-review card of the home page shows, for the roles ``user`` holds
    only: ``{"profile_review": {"count", "url", "label"}, "profile_adjudication": ...}``.
    One query per card."""
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
            "label": f"{counted(count, 'profile')} awaiting your review",
        }
    if Role.ARBITRATOR in held:
        count = ProfileReviewCase.objects.filter(
            status=ProfileReviewCase.Status.ADJUDICATING
        ).count()
        cards["profile_adjudication"] = {
            "count": count,
            "url": reverse("review:profile-list"),
            "label": f"{counted(count, 'profile')} awaiting adjudication",
        }
    return cards
