"""Reads of character drafting, shaped for the admin's pages and the API. Each selector
issues a fixed number of queries whatever the number of rows."""

from dataclasses import dataclass

from django.db.models import Count, Prefetch, Q, QuerySet, Sum
from django.shortcuts import get_object_or_404

from annotation.character_drafting.design import PlannedCharacter
from annotation.character_drafting.models import (
    CharacterDraft,
    DraftingCall,
    DraftingJob,
    DraftingPrompt,
)
from annotation.corpus.models import Character, ProfileVersion
from annotation.profile_review.models import ChangeRequest, ProfileReviewCase, Recommendation
from core.protocol import PROFILE_REVIEWERS


def drafting_job_list() -> QuerySet[DraftingJob]:
    """Jobs, newest first, with their draft counts (one query)."""
    return (
        DraftingJob.objects.select_related("created_by", "prompt")
        .annotate(
            drafts_total=Count("drafts"),
            drafts_succeeded=Count("drafts", filter=Q(drafts__status="succeeded")),
            drafts_failed=Count("drafts", filter=Q(drafts__status="failed")),
        )
        .order_by("-created_at", "-pk")
    )


def drafting_job_get(*, job_id: int) -> DraftingJob:
    return get_object_or_404(DraftingJob.objects.select_related("created_by", "prompt"), pk=job_id)


@dataclass
class DraftRow:
    draft: CharacterDraft
    planned: PlannedCharacter
    calls: int
    failed_calls: int
    tokens_in: int
    tokens_out: int


def drafting_job_progress(*, job: DraftingJob) -> dict:
    """The job page's table: one row per draft with its call counts and tokens, and the
    totals. Two queries."""
    drafts = (
        job.drafts.select_related("profile_version", "redraft_of")
        .annotate(
            n_calls=Count("calls"),
            n_failed_calls=Count("calls", filter=Q(calls__ok=False)),
            sum_in=Sum("calls__tokens_in"),
            sum_out=Sum("calls__tokens_out"),
        )
        .order_by("char_key", "pk")
    )
    rows = [
        DraftRow(
            draft=d,
            planned=PlannedCharacter.from_dict(d.planned),
            calls=d.n_calls,
            failed_calls=d.n_failed_calls,
            tokens_in=d.sum_in or 0,
            tokens_out=d.sum_out or 0,
        )
        for d in drafts
    ]
    counts = {status: 0 for status in CharacterDraft.Status.values}
    for row in rows:
        counts[row.draft.status] += 1
    total = len(rows)
    done = counts["succeeded"] + counts["failed"] + counts["cancelled"]
    return {
        "rows": rows,
        "total": total,
        "done": done,
        "percent": round(100 * done / total) if total else 100,
        "counts": counts,
        "calls": sum(r.calls for r in rows),
        "tokens_in": sum(r.tokens_in for r in rows),
        "tokens_out": sum(r.tokens_out for r in rows),
    }


def character_draft_get(*, job_id: int, draft_id: int) -> CharacterDraft:
    """A draft with its calls in ``draft.call_list`` (oldest first)."""
    return get_object_or_404(
        CharacterDraft.objects.select_related(
            "job__prompt", "job__created_by", "profile_version", "redraft_of"
        ).prefetch_related(
            Prefetch(
                "calls",
                queryset=DraftingCall.objects.order_by("attempt", "pk"),
                to_attr="call_list",
            )
        ),
        pk=draft_id,
        job_id=job_id,
    )


def drafting_prompt_list() -> list[DraftingPrompt]:
    return list(
        DraftingPrompt.objects.select_related("created_by")
        .annotate(job_count=Count("jobs"))
        .order_by("-number")
    )


def drafting_prompt_latest() -> DraftingPrompt | None:
    return DraftingPrompt.objects.order_by("-number").first()


@dataclass
class RedraftRow:
    character: Character
    latest: ProfileVersion | None
    case: ProfileReviewCase | None
    reviews_begun: int
    submitted: int
    open_requests: int
    blocker: str

    @property
    def can_redraft(self) -> bool:
        return not self.blocker


def redraft_overview() -> list[RedraftRow]:
    """Every character with its latest version, open review case, and whether it can be
    redrafted now (the same rules as ``services.redraft_rules.redraft_blocker``, read
    for all characters at once). Three queries."""
    characters = Character.objects.prefetch_related(
        Prefetch(
            "versions",
            queryset=ProfileVersion.objects.order_by("-number"),
            to_attr="versions_desc",
        )
    ).order_by("key")
    cases = {
        c.character_id: c
        for c in ProfileReviewCase.objects.exclude(status=ProfileReviewCase.Status.FROZEN)
        .select_related("reviewed_version")
        .annotate(
            begun=Count("reviews", distinct=True),
            submitted=Count(
                "reviews", filter=Q(reviews__submitted_at__isnull=False), distinct=True
            ),
            accepted=Count(
                "reviews",
                filter=Q(
                    reviews__submitted_at__isnull=False,
                    reviews__recommendation=Recommendation.ACCEPT,
                ),
                distinct=True,
            ),
            open_requests=Count(
                "reviews__requests",
                filter=Q(
                    reviews__requests__status=ChangeRequest.Status.OPEN,
                    reviews__submitted_at__isnull=False,
                ),
                distinct=True,
            ),
        )
    }
    rows = []
    for character in characters:
        latest = character.versions_desc[0] if character.versions_desc else None
        case = cases.get(character.pk)
        begun = case.begun if case else 0
        blocker = ""
        if latest is None:
            blocker = "No profile version yet."
        elif latest.is_frozen:
            blocker = f"v{latest.number} is frozen."
        elif case is not None and case.status == ProfileReviewCase.Status.REVIEWING and begun:
            blocker = (
                f"With the reviewers ({case.submitted} of {PROFILE_REVIEWERS} reviews submitted)."
            )
        elif case is not None and case.status == ProfileReviewCase.Status.ADJUDICATING:
            if case.submitted >= PROFILE_REVIEWERS and case.accepted == case.submitted:
                blocker = "Accepted as-is by every reviewer: kept unchanged."
            elif not case.open_requests:
                blocker = "No open change request: the senior expert edits fields directly."
        rows.append(
            RedraftRow(
                character=character,
                latest=latest,
                case=case,
                reviews_begun=begun,
                submitted=case.submitted if case else 0,
                open_requests=case.open_requests if case else 0,
                blocker=blocker,
            )
        )
    return rows


def redraft_requests(*, character: Character) -> list[ChangeRequest]:
    """The open change requests of the character's open case (submitted reviews)."""
    return list(
        ChangeRequest.objects.filter(
            review__case__character=character,
            review__submitted_at__isnull=False,
            status=ChangeRequest.Status.OPEN,
        )
        .exclude(review__case__status=ProfileReviewCase.Status.FROZEN)
        .order_by("pk")
    )
