"""Character and scenario construction (seed 000 §2.2, §2.3): the first four stages."""

from django.db.models import Count, Exists, F, OuterRef, Q
from django.urls import reverse

from annotation.character_drafting.models import CharacterDraft
from annotation.corpus.models import Character, Memory, ProfileVersion, Scenario
from annotation.memory_generation.models import GeneratedMemory, MemoryBatch, MemoryPlan, MemoryRun
from annotation.profile_review.models import ProfileReviewCase
from annotation.scenario_review.models import DiamondsRating, ScenarioReview, ScreeningDecision
from audit.memory_quality.corpus import finalized_runs_by_character
from audit.memory_quality.models import AuditRun, MemoryCase, TimelineEntry
from core.protocol import (
    PROFILE_REVIEWERS,
    SCENARIO_REVIEWERS,
)

from .rows import Blocker, Stage, Tally, done_by, named, plural, waits

# --- Character construction (§2.2) ------------------------------------------------------


def live_failure() -> Q:
    """A failed draft that retrying could still turn into a profile version: a first
    draft whose character does not exist yet (drafted since, or imported, its retry
    would be refused), or a redraft of a version that is still its character's latest
    and not frozen (a later version, or the freeze, ends it). Others are history, not
    blockers."""
    exists = Exists(Character.objects.filter(key=OuterRef("char_key")))
    newer = Exists(
        ProfileVersion.objects.filter(
            character_id=OuterRef("redraft_of__character_id"),
            number__gt=OuterRef("redraft_of__number"),
        )
    )
    return (Q(redraft_of__isnull=True) & ~exists) | (
        Q(redraft_of__isnull=False, redraft_of__frozen_at__isnull=True) & ~newer
    )


def characters_stage(characters: list[tuple[int, str]]) -> Stage:
    drafted = (
        CharacterDraft.objects.filter(status=CharacterDraft.Status.SUCCEEDED, redraft_of=None)
        .values("character_id")
        .distinct()
        .count()
    )
    unfinished = dict(
        CharacterDraft.objects.filter(
            status__in=(CharacterDraft.Status.PENDING, CharacterDraft.Status.RUNNING)
        )
        .values_list("job_id")
        .annotate(n=Count("pk"))
        .order_by()
    )
    failed = dict(
        CharacterDraft.objects.filter(status=CharacterDraft.Status.FAILED)
        .filter(live_failure())
        .values_list("job_id")
        .annotate(n=Count("pk"))
        .order_by()
    )
    jobs = [(pk, unfinished.get(pk, 0), failed.get(pk, 0)) for pk in sorted({*unfinished, *failed})]
    stage = Stage(
        "characters",
        "Characters",
        "§2.2 Stage 1, App. B.1, L.2",
        [
            Tally("characters", len(characters), emphasis=True),
            Tally("drafted on the platform", drafted),
        ],
        links=[
            ("Characters", reverse("corpus:character-list")),
            ("Distinctness between characters", reverse("corpus:distinctness")),
        ],
    )
    if not characters:
        stage.blockers.append(
            Blocker(
                "No character yet: draft the characters, or import a characters file.",
                reverse("drafting:job-new"),
            )
        )
    for job_id, unfinished, failed in jobs:
        url = reverse("drafting:job-detail", args=[job_id])
        if unfinished:
            drafts = plural(unfinished, "draft")
            stage.blockers.append(Blocker(f"Drafting job #{job_id}: {drafts} in progress.", url))
        elif failed:
            stage.blockers.append(
                Blocker(
                    f"Drafting job #{job_id}: {plural(failed, 'draft')} failed; retry them or "
                    "draft again (admin).",
                    url,
                )
            )
    stage.links.append(("Draft", reverse("drafting:job-list")))
    stage.links.append(("Import", reverse("corpus:import")))
    return stage


def profiles_stage(characters: list[tuple[int, str]]) -> Stage:
    frozen = set(
        ProfileVersion.objects.filter(frozen_at__isnull=False)
        .order_by()
        .values_list("character_id", flat=True)
        .distinct()
    )
    open_cases = list(
        ProfileReviewCase.objects.exclude(status=ProfileReviewCase.Status.FROZEN)
        .annotate(
            submitted=Count("reviews", filter=Q(reviews__submitted_at__isnull=False), distinct=True)
        )
        .order_by("character__key")
        .values_list("character_id", "character__key", "status", "submitted")
    )
    stage = Stage(
        "profiles",
        "Profiles frozen",
        "§2.2 Stage 1, App. B.3",
        [
            Tally("profiles frozen", sum(pk in frozen for pk, _ in characters), emphasis=True),
            Tally("characters", len(characters)),
        ],
        links=[("Profile review", reverse("review:profile-list"))],
    )
    adjudicating = [key for _, key, status, _ in open_cases if status == "adjudicating"]
    if adjudicating:
        stage.blockers.append(
            Blocker(
                f"{named(adjudicating)} {waits(len(adjudicating))} for the senior's freeze "
                "(arbitrator).",
                reverse("review:profile-list"),
            )
        )
    reviewing = [
        (key, submitted) for _, key, status, submitted in open_cases if status == "reviewing"
    ]
    if reviewing:
        described = [f"{key} ({submitted} of {PROFILE_REVIEWERS})" for key, submitted in reviewing]
        stage.blockers.append(
            Blocker(
                f"{named(described)} {waits(len(reviewing))} for the primary annotators' "
                "profile reviews.",
                reverse("review:profile-list"),
            )
        )
    in_review = {pk for pk, *_ in open_cases}
    untouched = [key for pk, key in characters if pk not in frozen and pk not in in_review]
    if untouched:
        stage.blockers.append(
            Blocker(
                f"{named(untouched)}: no frozen profile and no review started "
                "(primary annotators).",
                reverse("review:profile-list"),
            )
        )
    return stage


def memories_stage(characters: list[tuple[int, str]]) -> Stage:
    ids = [pk for pk, _ in characters]
    runs = finalized_runs_by_character(ids)
    stored = dict(Memory.objects.values_list("character_id").annotate(n=Count("pk")).order_by())
    kept_rows = (
        TimelineEntry.objects.filter(run_id__in=set(runs.values()), character_id__in=list(runs))
        .values_list("run_id", "character_id")
        .annotate(n=Count("pk"))
        .order_by()
    )
    accepted = sum(n for run_id, character_id, n in kept_rows if runs.get(character_id) == run_id)
    unfinished = list(
        AuditRun.objects.filter(finalized_at__isnull=True)
        .annotate(
            repairing=Count("cases", filter=Q(cases__status=MemoryCase.Status.REPAIRING)),
            review=Count("cases", filter=Q(cases__status=MemoryCase.Status.REVIEW)),
            senior=Count("cases", filter=Q(cases__status=MemoryCase.Status.SENIOR)),
        )
        .order_by("pk")
        .values_list("pk", "status", "repairing", "review", "senior", "character_keys")
    )
    stage = Stage(
        "memories",
        "Memories accepted after audit",
        "§2.2 Stage 3, App. B.6",
        [
            Tally("memories accepted after a finalized audit", accepted, emphasis=True),
            Tally("memories stored", sum(stored.values())),
            Tally("characters audited", len(runs)),
        ],
        links=[
            ("Audit runs", reverse("audit:run-list")),
            ("Flagged memories", reverse("audit:queue")),
            ("Classifier against the reviewers", reverse("audit:classifier-agreement")),
        ],
    )
    by_key = {key: pk for pk, key in characters}
    for run_id, status, repairing, review, senior, covered in unfinished:
        run_url = reverse("audit:run-detail", args=[run_id])
        covered_ids = [by_key[k] for k in covered if k in by_key] if covered else list(by_key)
        if covered_ids and all(runs.get(pk, 0) > run_id for pk in covered_ids):
            continue  # a later run was finalized for all its characters: superseded
        if status in (
            AuditRun.Status.PENDING,
            AuditRun.Status.RUNNING,
            AuditRun.Status.CANCELLING,
            AuditRun.Status.CANCELLED,  # waits for a resume
        ):
            stage.blockers.append(Blocker(f"Memory audit run #{run_id} is {status}.", run_url))
            continue
        if status == AuditRun.Status.FINISHED_WITH_FAILURES:  # the old "failed" (#33)
            continue  # a failed run finalizes nothing; a new run replaces it
        if review:
            stage.blockers.append(
                Blocker(
                    f"{plural(review, 'flagged memory', 'flagged memories')} of run #{run_id} "
                    f"{waits(review)} for a memory reviewer.",
                    reverse("audit:queue") + "?status=review",
                )
            )
        if senior:
            stage.blockers.append(
                Blocker(
                    f"{plural(senior, 'confirmed defect')} of run #{run_id} {waits(senior)} "
                    "for the senior's edit (arbitrator).",
                    reverse("audit:queue") + "?status=senior",
                )
            )
        if repairing:
            stage.blockers.append(
                Blocker(
                    f"{plural(repairing, 'memory', 'memories')} of run #{run_id} in automated "
                    "repair.",
                    run_url,
                )
            )
        stage.blockers.append(
            Blocker(f"Memory audit run #{run_id} not finalized (admin).", run_url)
        )
    unaudited = [key for pk, key in characters if pk not in runs and stored.get(pk)]
    if unaudited:
        stage.blockers.append(
            Blocker(
                f"{named(unaudited)}: memories without a finalized audit.",
                reverse("audit:run-list"),
            )
        )
    return stage


# --- Scenario construction (§2.3) -------------------------------------------------------


def scenarios_stage() -> Stage:
    by_stage = dict(
        Scenario.objects.values_list("review__stage").annotate(n=Count("pk")).order_by()
    )
    total = sum(by_stage.values())
    screened_by = list(
        ScreeningDecision.objects.filter(
            review__stage=ScenarioReview.Stage.SCREENING, version_id=F("review__version_id")
        )
        .values_list("reviewer__username")
        .annotate(n=Count("review_id", distinct=True))
        .order_by("reviewer__username")
    )
    rated_by = list(
        DiamondsRating.objects.filter(review__stage=ScenarioReview.Stage.RATING)
        .values_list("reviewer__username")
        .annotate(n=Count("review_id", distinct=True))
        .order_by("reviewer__username")
    )
    complete = by_stage.get(ScenarioReview.Stage.COMPLETE, 0)
    stage = Stage(
        "scenarios",
        "Scenarios reviewed",
        "§2.3 Stage 3, App. C.2",
        [
            Tally("scenarios reviewed", complete, emphasis=True),
            Tally("scenarios", total),
        ],
        links=[
            ("Scenario review", reverse("review:scenario-list")),
            ("Coverage", reverse("review:scenario-coverage")),
        ],
    )
    url = reverse("review:scenario-list")
    screening = by_stage.get(ScenarioReview.Stage.SCREENING, 0) + by_stage.get(None, 0)
    if screening:
        stage.blockers.append(
            Blocker(
                f"{plural(screening, 'scenario')} at pass 1 {waits(screening)} for the "
                f"{SCENARIO_REVIEWERS} scenario reviewers' joint screening"
                f"{done_by(screened_by, 'screened')}.",
                url,
            )
        )
    revision = by_stage.get(ScenarioReview.Stage.REVISION, 0)
    if revision:
        stage.blockers.append(
            Blocker(
                f"{plural(revision, 'flagged scenario')} {waits(revision)} for the scenario "
                "reviewers' consensus revision.",
                url,
            )
        )
    rating = by_stage.get(ScenarioReview.Stage.RATING, 0)
    if rating:
        stage.blockers.append(
            Blocker(
                f"{plural(rating, 'scenario')} at pass 2 {waits(rating)} for independent "
                f"DIAMONDS ratings{done_by(rated_by, 'rated')}.",
                url,
            )
        )
    reassessment = by_stage.get(ScenarioReview.Stage.REASSESSMENT, 0)
    if reassessment:
        stage.blockers.append(
            Blocker(
                f"{plural(reassessment, 'scenario')} {waits(reassessment)} for the scenario "
                "reviewers' joint re-assessment.",
                url,
            )
        )
    return stage


# --- Memory generation (§2.2 Stage 2) --------------------------------------------------


def memory_generation_stage(characters: list[tuple[int, str]]) -> Stage:
    generated = GeneratedMemory.objects.count()
    # Distinct character ids, without the models' ordering: ordered by the character's key
    # and a per-row column, DISTINCT would return (and this would read) every row.
    planned = set(MemoryPlan.objects.order_by().values_list("character_id", flat=True).distinct())
    frozen = set(
        ProfileVersion.objects.filter(frozen_at__isnull=False)
        .order_by()
        .values_list("character_id", flat=True)
        .distinct()
    )
    # Which characters have a memory: one index probe each, not a scan of every memory.
    with_memories = set(
        Character.objects.filter(Exists(Memory.objects.filter(character=OuterRef("pk"))))
        .order_by()
        .values_list("pk", flat=True)
    )
    runs = list(
        MemoryRun.objects.exclude(status=MemoryRun.Status.FINISHED)
        .annotate(
            failed=Count("batches", filter=Q(batches__status=MemoryBatch.Status.FAILED)),
            open=Count(
                "batches",
                filter=Q(
                    batches__status__in=(MemoryBatch.Status.PENDING, MemoryBatch.Status.RUNNING)
                ),
            ),
            cancelled=Count("batches", filter=Q(batches__status=MemoryBatch.Status.CANCELLED)),
        )
        .order_by("pk")
        .values_list("pk", "status", "failed", "open", "cancelled")
    )
    stage = Stage(
        "memory_generation",
        "Memories generated",
        "§2.2 Stage 2, App. B.4–B.5",
        [
            Tally("memories generated", generated, emphasis=True),
            Tally("characters planned", len(planned)),
        ],
        links=[("Memory generation", reverse("memory_generation:index"))],
    )
    for run_id, status, failed, unfinished, cancelled in runs:
        url = reverse("memory_generation:run-detail", args=[run_id])
        if status in (MemoryRun.Status.RUNNING, MemoryRun.Status.CANCELLING):
            to_go = plural(unfinished, "batch", "batches")
            text = f"Memory generation run #{run_id} is running ({to_go} to go)."
        elif status == MemoryRun.Status.PENDING:
            text = f"Memory generation run #{run_id} was created but not started (admin)."
        elif failed:
            text = (
                f"Memory generation run #{run_id}: {plural(failed, 'batch', 'batches')} failed; "
                "retry them (admin)."
            )
        elif cancelled:
            text = (
                f"Memory generation run #{run_id} was cancelled with "
                f"{plural(cancelled, 'batch', 'batches')} unfinished; resume it (admin)."
            )
        else:
            continue
        stage.blockers.append(Blocker(text, url))
    waiting = [
        key
        for pk, key in characters
        if pk in frozen and pk not in with_memories and pk not in planned
    ]
    if waiting:
        stage.blockers.append(
            Blocker(
                f"{named(waiting)}: frozen profile, no memories and no plan (admin).",
                reverse("memory_generation:index"),
            )
        )
    return stage
