"""Drafting one character (seed 000 App. L.2): call the model, check the profile against
its design, ask again with the problems named, and turn a valid draft into a
``ProfileVersion`` that profile review (App. B.3) takes up. The worker's task
(``celery_tasks.execute_character_draft``) calls ``character_draft_execute``.

The profile version is created under the draft's row lock together with the draft's
final status, so no path (a redelivered task, two deliveries at once, a retried draft)
creates a second version for one draft.
"""

import json
import logging

from django.db import transaction

import llm
from annotation.character_drafting import prompts
from annotation.character_drafting.design import PlannedCharacter, design_brief
from annotation.character_drafting.models import CharacterDraft, DraftingCall
from annotation.character_drafting.profile_schema import (
    PROFILE_SCHEMA,
    ProfileCheck,
    check_profile,
    profile_as_json,
)
from annotation.character_drafting.services.common import (
    FLOW,
    NOT_CONFIGURED_MESSAGE,
    DraftingError,
    DraftStatus,
    JobStatus,
    drafting_prices,
    drafting_provider,
    job_finish_if_done,
)
from annotation.character_drafting.services.redraft_rules import (
    FIELD_LABELS,
    carry_over,
    merge_redraft,
    redraft_blocker,
    redraft_fields,
    version_values,
)
from annotation.corpus.models import Character, ProfileVersion
from annotation.profile_review.models import ChangeRequest, ProfileReviewCase
from annotation.profile_review.services import record_event
from core.llm_runs.services import record_call
from core.plurals import counted
from core.providers import storable
from llm.records import OUTPUT_RETRYABLE

logger = logging.getLogger(__name__)

#: Structured-output rounds inside one call (App. L.2 drafts are short): a reply that is
#: not JSON or breaks the schema is sent back once with the problem named.
SCHEMA_ROUNDS = 2
SOURCE_MAX = 300  # ProfileVersion.source


CANCELLED = (JobStatus.CANCELLING, JobStatus.CANCELLED)


class DraftFailed(Exception):
    def __init__(self, kind: str, message: str, problems: list[str] | None = None):
        super().__init__(message)
        self.kind, self.message, self.problems = kind, message, problems or []


class Stopped(Exception):
    """Another delivery of the same task finished the draft."""


def character_draft_execute(
    *, draft_id: int, provider: llm.ProviderConfig | None = None
) -> CharacterDraft:
    """Draft one character. Safe to call any number of times: a finished draft is
    returned unchanged, and at most one profile version is ever created for it.
    ``provider`` replaces the configured drafting model (the demo's offline provider)."""
    draft = _claim(draft_id)
    if draft is not None:
        job_id = draft.job_id
        try:
            _draft(draft, provider)
        except Stopped:
            logger.info("character draft %s stopped: another delivery finished it", draft_id)
        except DraftFailed as failure:
            _fail(draft_id, failure)
        except Exception as exc:
            logger.exception("character draft %s crashed", draft_id)
            _fail(draft_id, DraftFailed("internal_error", f"internal error: {exc}"))
            job_finish_if_done(job_id=job_id)
            raise
        job_finish_if_done(job_id=job_id)
    return CharacterDraft.objects.get(pk=draft_id)


def _claim(draft_id: int) -> CharacterDraft | None:
    """The draft marked drafting; None when there is nothing to draft: it is final, its
    job was cancelled (a waiting draft is cancelled with it), or its job is stopped at a
    spending limit, or has just reached one (issue #36): the draft waits for a resume."""
    waiting = CharacterDraft.objects.select_related("job").filter(pk=draft_id).first()
    if waiting is None or FLOW.held_at_spending_limit(waiting):
        return None
    with transaction.atomic():
        draft = (
            CharacterDraft.objects.select_for_update(of=("self",))
            .select_related("job__prompt", "redraft_of__character")
            .filter(pk=draft_id)
            .first()
        )
        if draft is None or draft.is_terminal:
            return None
        if draft.status == DraftStatus.PENDING and draft.job.status in CANCELLED:
            draft.status = DraftStatus.CANCELLED
            draft.save(update_fields=["status", "updated_at"])
            return None
        if draft.status == DraftStatus.PENDING and draft.job.status != JobStatus.RUNNING:
            return None
        draft.deliveries += 1
        draft.status = DraftStatus.RUNNING
        draft.save(update_fields=["deliveries", "status", "updated_at"])
        return draft


def _fail(draft_id: int, failure: DraftFailed) -> None:
    with transaction.atomic():
        draft = CharacterDraft.objects.select_for_update().get(pk=draft_id)
        if draft.is_terminal:
            return
        draft.status = DraftStatus.FAILED
        draft.error_kind = failure.kind[:40]
        draft.error_message = storable(failure.message)
        draft.problems = storable(failure.problems)
        draft.save(
            update_fields=["status", "error_kind", "error_message", "problems", "updated_at"]
        )


def json_field(profile: dict, field: str) -> tuple[str, object]:
    """A profile field's place in the drafting JSON ("core_patterns[2]") and its value."""
    if field == "construction_label":
        return "name", profile["name"]
    if field.startswith("core_pattern_"):
        index = int(field.removeprefix("core_pattern_")) - 1
        return f"core_patterns[{index}]", profile["core_patterns"][index]
    return field, profile[field]


def redraft_prompt_values(draft: CharacterDraft) -> dict:
    version = draft.redraft_of
    current = profile_as_json(version_values(version), draft.char_key)
    fields = redraft_fields(draft)
    if fields and len(fields) > 1:
        labels = ", ".join(f"“{FIELD_LABELS[f]}”" for f in fields)
        keys = ", ".join(json_field(current, f)[0] for f in fields)
        scope = (
            f"change only the fields {labels} (JSON keys: {keys}) that the requests below "
            "name. Write a new value for each that answers its requests, and copy every "
            f"other field exactly as it is in version {version.number}."
        )
    elif draft.redraft_field:
        label = FIELD_LABELS[draft.redraft_field]
        key, value = json_field(current, draft.redraft_field)
        # The JSON key and the current value are spelled out: a model that copies the
        # quoted version whole would return it unchanged, which is refused as identical.
        scope = (
            f"change only the field “{label}” (JSON: {key}), whose current value is "
            f"{json.dumps(value, ensure_ascii=False)}. Write a new value for it that answers "
            "the requests below (it must differ from the current one), and copy every other "
            f"field exactly as it is in version {version.number}."
        )
    else:
        scope = (
            "rewrite the whole profile so that it answers the requests below; the new "
            f"version must differ from version {version.number}."
        )
    return {
        "version_number": version.number,
        "scope": scope,
        "current_profile": json.dumps(current, ensure_ascii=False, indent=1),
        "change_requests": prompts.change_request_lines(draft.guidance),
        "admin_note": draft.admin_note or "(none)",
    }


def draft_prompt(draft: CharacterDraft) -> tuple[str, str]:
    """The system and first user message of a draft, from its job's prompt version."""
    prompt = draft.job.prompt
    planned = PlannedCharacter.from_dict(draft.planned)
    system = prompts.render(prompt.system_template, {})
    user = prompts.user_message(
        user_template=prompt.user_template,
        redraft_template=prompt.redraft_template,
        char_key=draft.char_key,
        design_brief=design_brief(planned),
        redraft=redraft_prompt_values(draft) if draft.redraft_of_id else None,
    )
    return system, user


def _draft(draft: CharacterDraft, provider: llm.ProviderConfig | None) -> None:
    job = draft.job
    config = provider or drafting_provider()
    if config is None:
        raise DraftFailed(
            "not_configured", f"{NOT_CONFIGURED_MESSAGE} (read by the worker that took it)"
        )
    config = config.with_options(model=job.model)
    try:
        prices = drafting_prices()
    except DraftingError as error:
        raise DraftFailed("not_configured", f"{error.messages[0]} (read by the worker)") from None
    planned = PlannedCharacter.from_dict(draft.planned)
    if _finish_from_record(draft, planned):
        return
    system, first_user = draft_prompt(draft)
    user = first_user
    done = draft.calls.count()
    client = llm.make_client(config)
    problems: list[str] = []
    try:
        for attempt in range(1, job.max_attempts + 1):
            result = client.complete_json(
                system=system, user=user, schema=PROFILE_SCHEMA, max_attempts=SCHEMA_ROUNDS
            )
            if not result.ok:
                output_problem = result.error_kind in OUTPUT_RETRYABLE
                problems = [f"{result.error_kind}: {result.error_message}"]
                _record(draft, done + attempt, result, system, user, problems, prices=prices)
                if not output_problem:
                    raise DraftFailed(
                        result.error_kind or "provider_error",
                        f"The drafting model ({config.kind.value} {config.model}) could not be "
                        f"used: {result.error_kind}: {result.error_message}",
                    )
                user = prompts.retry_message(
                    first_user, problems=problems, rejected=result.text or ""
                )
                continue
            merged = merge_redraft(draft, result.parsed)
            check = check_profile(merged, planned)
            check.values = carry_over(draft, check.values)
            if draft.redraft_of_id and check.values == version_values(draft.redraft_of):
                check.problems.append(
                    f"The redraft is identical to version {draft.redraft_of.number}: change "
                    f"{'the requested field' if draft.redraft_field else 'the profile'} "
                    "as the requests ask."
                )
            _record(
                draft,
                done + attempt,
                result,
                system,
                user,
                check.problems,
                ok=check.ok,
                prices=prices,
            )
            if check.ok:
                _finish(draft, check, model=result.model)
                return
            problems = check.problems
            user = prompts.retry_message(first_user, problems=problems, rejected=result.parsed)
    finally:
        close = getattr(client, "close", None)
        if close is not None:
            close()
    raise DraftFailed(
        "invalid_profile",
        f"The model's draft of {draft.char_key} still broke the drafting rules after "
        f"{counted(job.max_attempts, 'attempt')}; nothing was created. Retry the draft, or "
        "change the "
        "prompt or the model.",
        problems,
    )


def _finish_from_record(draft: CharacterDraft, planned: PlannedCharacter) -> bool:
    """Finish the draft from an answer already accepted and on record, without asking
    the model again: a worker killed after recording the call but before creating the
    version, then the task redelivered. True when it did."""
    accepted = draft.calls.filter(ok=True).order_by("-attempt").first()
    if accepted is None or not isinstance(accepted.parsed, dict):
        return False
    check = check_profile(merge_redraft(draft, accepted.parsed), planned)
    if not check.ok:
        return False
    check.values = carry_over(draft, check.values)
    _finish(draft, check, model=accepted.model)
    return True


def _record(draft, attempt, result, system, user, problems, *, ok=False, prices=None) -> None:
    """One call, recorded with its cost at ``prices`` and added to the draft's totals."""
    record_call(
        DraftingCall,
        result=result,
        totals=(CharacterDraft, draft.pk),
        prices=prices,
        draft=draft,
        attempt=attempt,
        system=storable(system),
        user=storable(user),
        raw_response=storable(result.text or result.raw_response or ""),
        parsed=storable(result.parsed),
        ok=ok,
        problems=storable(problems),
        rounds=result.rounds,
        details={"attempts": [a.as_dict() for a in result.attempts], "demo": result.demo},
    )


def _finish(draft: CharacterDraft, check: ProfileCheck, *, model: str) -> None:
    job = draft.job
    with transaction.atomic():
        locked = CharacterDraft.objects.select_for_update().get(pk=draft.pk)
        if locked.is_terminal:
            raise Stopped  # another delivery finished it: its version stands alone
        if locked.redraft_of_id:
            version = _redraft_version(locked, check, model=model)
            action = "profile_redraft"
        else:
            version = _first_version(locked, check, model=model)
            action = "profile_draft"
        locked.profile_version = version
        locked.character = version.character
        locked.status = DraftStatus.SUCCEEDED
        locked.warnings = check.warnings
        locked.problems = []
        locked.error_kind = locked.error_message = ""
        locked.save()
        record_event(
            actor=job.created_by,
            action=action,
            character=version.character,
            version=version.number,
            drafting_job=job.pk,
            model=model,
            prompt_version=job.prompt.number,
        )


def _source(draft: CharacterDraft, model: str, prefix: str) -> str:
    job = draft.job
    text = (
        f"{prefix} by drafting job {job.pk} ({job.provider} {model}, prompt v{job.prompt.number})"
    )
    return text[:SOURCE_MAX]


def _first_version(draft: CharacterDraft, check: ProfileCheck, *, model: str) -> ProfileVersion:
    if Character.objects.filter(key=draft.char_key).exists():
        raise DraftFailed(
            "character_exists",
            f"{draft.char_key} was created elsewhere while this draft ran; nothing was added. "
            "Redraft that character instead.",
        )
    character = Character.objects.create(key=draft.char_key)
    return ProfileVersion.objects.create(
        character=character,
        number=1,
        is_demo_standin=draft.job.is_demo,
        source=_source(draft, model, "drafted"),
        **check.values,
    )


def _check_requests_still_open(draft: CharacterDraft) -> None:
    """App. B.3: the senior expert reviews a redrafted field by resolving its change
    requests against the redrafted version. A request the senior resolved while the
    redraft ran was resolved against the older text, so the redraft adds nothing."""
    ids = [g["id"] for g in draft.guidance or []]
    resolved = list(
        ChangeRequest.objects.filter(pk__in=ids)
        .exclude(status=ChangeRequest.Status.OPEN)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    if resolved:
        raise DraftFailed(
            "redraft_refused",
            f"The senior expert resolved change request {', '.join(map(str, resolved))} "
            f"while the redraft of v{draft.redraft_of.number} ran, against that version's "
            "text; nothing was added. Redraft again for the requests still open.",
        )


def _redraft_version(draft: CharacterDraft, check: ProfileCheck, *, model: str) -> ProfileVersion:
    base = draft.redraft_of
    character = Character.objects.select_for_update().get(pk=base.character_id)
    blocker = redraft_blocker(character, expected=base)
    if blocker:
        raise DraftFailed("redraft_refused", blocker)
    _check_requests_still_open(draft)
    fields = redraft_fields(draft)
    what = ", ".join(FIELD_LABELS[f].lower() for f in fields) if fields else "whole profile"
    version = ProfileVersion.objects.create(
        character=character,
        number=base.number + 1,
        is_demo_standin=base.is_demo_standin,
        source=_source(draft, model, f"redraft of v{base.number} ({what})"),
        **check.values,
    )
    # A case opened on the old version before any review began now reviews the redraft.
    ProfileReviewCase.objects.filter(
        character=character, status=ProfileReviewCase.Status.REVIEWING, reviews__isnull=True
    ).update(reviewed_version=version)
    return version


__all__ = ["DraftingError", "character_draft_execute", "draft_prompt"]
