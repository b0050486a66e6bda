"""Launching drafting jobs, retrying their failed drafts, the prompt versions and the
drafting model's configuration (seed 000 §2.2 Stage 1, App. L.2)."""

from django.db import transaction
from django.db.models import Max

import llm
from annotation.character_drafting import prompts
from annotation.character_drafting.design import PlannedCharacter
from annotation.character_drafting.models import CharacterDraft, DraftingJob, DraftingPrompt
from annotation.character_drafting.services.common import (
    FLOW,
    NOT_CONFIGURED_MESSAGE,
    DraftingError,
    DraftStatus,
    drafting_provider,
    max_attempts_setting,
    require_admin,
)
from annotation.corpus.models import Character
from core.llm_runs.spending import parse_budget
from core.tasks import enqueue_on_commit
from core.text_rules import NAME, NOTE, TEXT, check_text

# --- prompts --------------------------------------------------------------------------


@transaction.atomic
def drafting_prompt_create(
    *, system_template: str, user_template: str, redraft_template: str, note: str = "", user=None
) -> DraftingPrompt:
    """The next numbered prompt version; new jobs use the latest."""
    check_text(system_template, label="System prompt", limit=TEXT, error=DraftingError)
    check_text(user_template, label="User prompt", limit=TEXT, error=DraftingError)
    check_text(redraft_template, label="Redraft block", limit=TEXT, error=DraftingError)
    check_text(note, label="What changed", limit=NOTE, error=DraftingError)
    require_admin(user, "write drafting prompts")
    templates = {
        "system_template": system_template,
        "user_template": user_template,
        "redraft_template": redraft_template,
    }
    problems = []
    for name, text in templates.items():
        if not text.strip():
            problems.append(f"The {name.replace('_', ' ')} needs text.")
        else:
            problems += prompts.template_problems(name, text)
    if problems:
        raise DraftingError(problems)
    # Lock the versions so two admins saving at once get consecutive numbers.
    list(DraftingPrompt.objects.select_for_update().values_list("pk"))
    last = DraftingPrompt.objects.aggregate(n=Max("number"))["n"] or 0
    return DraftingPrompt.objects.create(number=last + 1, note=note, created_by=user, **templates)


def drafting_prompt_current() -> DraftingPrompt:
    """The latest version; the project's default text becomes version 1 on first use."""
    latest = DraftingPrompt.objects.order_by("-number").first()
    if latest is not None:
        return latest
    with transaction.atomic():
        list(DraftingPrompt.objects.select_for_update().values_list("pk"))
        return DraftingPrompt.objects.order_by("-number").first() or DraftingPrompt.objects.create(
            number=1,
            note="The project's default text carrying every rule of App. L.2.",
            **prompts.DEFAULT_TEMPLATES,
        )


# --- jobs -----------------------------------------------------------------------------


def provider_for(model: str) -> llm.ProviderConfig:
    config = drafting_provider()
    if config is None:
        raise DraftingError(NOT_CONFIGURED_MESSAGE)
    model = (model or "").strip()
    return config.with_options(model=model) if model else config


def enqueue_drafts(job: DraftingJob, draft_ids: list[int], on_unavailable) -> None:
    enqueue_on_commit(
        "annotation.execute_character_draft",
        what=f"Drafting job {job.pk}",
        on_unavailable=on_unavailable,
        calls=[(draft_id,) for draft_id in draft_ids],
    )


@transaction.atomic
def drafting_job_create(
    *,
    user,
    plan: list[PlannedCharacter],
    design: str,
    design_text: str = "",
    model: str = "",
    note: str = "",
    on_unavailable=None,
    provider: llm.ProviderConfig | None = None,
    queue: bool = True,
    is_demo: bool = False,
    budget_usd=None,
) -> DraftingJob:
    """A job drafting every planned character whose key is free, queued at once.

    Keys that already name a character are left out (``skipped_keys``, said on the job
    page); a plan with no free key is refused. Nothing is written when refused.
    ``provider`` and ``queue=False`` are the demo's: its offline provider, drafted in
    the same process (``execution.character_draft_execute``) instead of by workers.
    ``budget_usd`` (None: no budget) stops the job once its recorded cost reaches it
    (``core.llm_runs.spending``); drafts already taken up finish.
    """
    check_text(design_text, label="Custom requirements", limit=TEXT, error=DraftingError)
    check_text(model, label="Model", limit=NAME, error=DraftingError)
    check_text(note, label="Note", limit=NOTE, error=DraftingError)
    require_admin(user, "launch character drafting")
    budget = job_budget(budget_usd)
    if design not in (DraftingJob.Design.TABLE4, DraftingJob.Design.CUSTOM):
        raise DraftingError(f"Unknown design {design!r}.")
    if not plan:
        raise DraftingError("The design has no characters to draft.")
    config = provider or provider_for(model)
    keys = [p.char_key for p in plan]
    existing = set(Character.objects.filter(key__in=keys).values_list("key", flat=True))
    waiting = set(
        CharacterDraft.objects.filter(
            char_key__in=keys,
            job__kind=DraftingJob.Kind.DRAFT,
            status__in=(DraftStatus.PENDING, DraftStatus.RUNNING),
        ).values_list("char_key", flat=True)
    )
    if waiting:
        raise DraftingError(
            f"{', '.join(sorted(waiting))} already have a draft in another job that is "
            "waiting or running: let it finish, or leave those keys out of the design."
        )
    todo = [p for p in plan if p.char_key not in existing]
    if not todo:
        raise DraftingError(
            f"Every character of the design exists already ({', '.join(sorted(existing))}); "
            "there is nothing to draft. Use a custom design with new keys, or redraft a "
            "reviewed profile."
        )
    job = DraftingJob.objects.create(
        kind=DraftingJob.Kind.DRAFT,
        design=design,
        design_text=design_text,
        skipped_keys=sorted(existing),
        provider=config.kind.value,
        model=config.model,
        prompt=drafting_prompt_current(),
        max_attempts=max_attempts_setting(),
        note=note.strip(),
        created_by=user,
        is_demo=is_demo,
        budget_usd=budget,
    )
    drafts = CharacterDraft.objects.bulk_create(
        [CharacterDraft(job=job, char_key=p.char_key, planned=p.as_dict()) for p in todo]
    )
    if queue:
        enqueue_drafts(job, [d.pk for d in drafts], on_unavailable)
    return job


def stranded_drafts():
    """(draft id, last written) of every waiting draft of a running job a worker should take: the
    worker's sweep (``core.tasks.resend_stranded``) sends those with no message in the
    broker again (a broker restart can lose one). A demo job's drafts are drafted in
    the process that made them, never by a worker."""
    return CharacterDraft.objects.filter(
        status=DraftStatus.PENDING,
        job__status=DraftingJob.Status.RUNNING,
        job__is_demo=False,
    ).values_list("pk", "updated_at")


#: A job whose failed drafts can be queued again (a stopped one is resumed first).
RETRYABLE = (
    DraftingJob.Status.RUNNING,
    DraftingJob.Status.FINISHED,
    DraftingJob.Status.FINISHED_WITH_FAILURES,
)


def job_budget(value):
    """A budget as typed (``parse_budget``), refused as a ``DraftingError``."""
    try:
        return parse_budget(value)
    except ValueError as error:
        raise DraftingError(str(error)) from None


@transaction.atomic
def drafting_job_retry_failed(*, job_id: int, user, on_unavailable=None) -> DraftingJob:
    """Queue the job's failed drafts again, with the job's model and prompt version."""
    require_admin(user, "retry drafts")
    job = FLOW.lock(job_id)
    if job.status not in RETRYABLE:
        raise FLOW.refusal(
            job,
            "a running or finished job can retry its failed drafts",
            hint=" (resume it first)." if job.is_stopped_at_budget else ".",
        )
    failed = FLOW.failed_unit_ids_locked(job)
    if not failed:
        raise DraftingError(f"Drafting job {job.pk} has no failed drafts to retry.")
    FLOW.reopen_locked(job, ids=failed)
    enqueue_drafts(job, failed, on_unavailable)
    return job


@transaction.atomic
def drafting_job_resume(*, job_id: int, user, budget_usd=None, on_unavailable=None) -> DraftingJob:
    """Resume a job stopped at its budget or at a monthly cap, with ``budget_usd`` as its
    new budget (None: no budget): its waiting drafts are queued again; the drafts it
    finished keep their profile versions and are not drafted again. Refused, saying why,
    while it would stop again at once."""
    require_admin(user, "resume drafting jobs")
    job = FLOW.lock(job_id, missing=f"There is no drafting job {job_id}.")
    draft_ids = FLOW.resume_locked(job, budget_usd=job_budget(budget_usd))
    if draft_ids:
        enqueue_drafts(job, draft_ids, on_unavailable)
    else:
        FLOW.finish_locked(job)
    return job


@transaction.atomic
def drafting_job_cancel(*, job_id: int, user) -> DraftingJob:
    """Stop a running job or one stopped at budget: its waiting drafts are cancelled now;
    a draft a worker holds finishes its attempts. Drafted characters stay."""
    require_admin(user, "cancel drafting jobs")
    job = FLOW.lock(job_id, missing=f"There is no drafting job {job_id}.")
    FLOW.cancel_locked(job)
    return job
