"""Release hygiene screens (MRBench App. D.5, issue #37): start a screen, screen one
character's published texts on a worker, record a memory reviewer's decision on a flag.

A screen has one unit per character (``HygieneUnit``) and the one ``RunStatus`` of the
shared run machinery (``FLOW``): starting it queues one task per character; cancel stops
the characters not yet screened; retry screens the failed ones again. A unit's flags,
its ``done`` state and the run's progress commit together under the unit's row lock, so a
redelivered task finds the unit done and changes nothing.
"""

import logging
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotation.corpus.models import Character
from audit.hygiene import rules
from audit.hygiene.corpus import published_texts, texts_count
from audit.hygiene.models import (
    HygieneDecision,
    HygieneError,
    HygieneFlag,
    HygieneRun,
    HygieneUnit,
)
from core.llm_runs.models import RunStatus
from core.llm_runs.services import RunFlow
from core.roles import Role, has_any_role
from core.tasks import enqueue_on_commit
from core.text_rules import check_text

logger = logging.getLogger(__name__)

FLOW = RunFlow(
    run_model=HygieneRun, unit_model=HygieneUnit, error=HygieneError, label="Hygiene screen"
)
TASK = "audit.screen_release_hygiene"
#: A screen that holds the corpus: a new one waits until it has ended.
BUSY = (RunStatus.PENDING, RunStatus.RUNNING, RunStatus.CANCELLING)
NOTE_MAX_CHARS = 300
REASON_MAX_CHARS = 2000


def lexicon_path():
    return getattr(settings, "HEARTBENCH_HYGIENE_LEXICON", None) or rules.DEFAULT_LEXICON


def allowed_words_path():
    return getattr(settings, "HEARTBENCH_HYGIENE_ALLOWED_WORDS", None) or (
        rules.DEFAULT_ALLOWED_WORDS
    )


@lru_cache(maxsize=4)
def _screen_for(lexicon: str, allowed: str, _stamp: tuple) -> rules.Screen:
    return rules.Screen(
        lexicon=rules.load_lexicon(lexicon), allowed=rules.load_allowed_words(allowed)
    )


def current_screen() -> rules.Screen:
    """The lexicon and allowed words the settings name (re-read when a file changes)."""
    lexicon, allowed = str(lexicon_path()), str(allowed_words_path())
    try:
        stamp = (Path(lexicon).stat().st_mtime_ns, Path(allowed).stat().st_mtime_ns)
    except OSError:
        stamp = ()
    try:
        return _screen_for(lexicon, allowed, stamp)
    except (rules.LexiconError, OSError) as error:
        raise HygieneError(str(error)) from None


def _queue(unit_ids, run, on_unavailable=None) -> None:
    if unit_ids:
        enqueue_on_commit(
            TASK,
            what=FLOW.name(run),
            on_unavailable=on_unavailable,
            calls=[(pk,) for pk in unit_ids],
        )


@transaction.atomic
def hygiene_run_start(*, created_by, note: str = "", on_unavailable=None) -> HygieneRun:
    """A new screen of every character's published texts, started at once: one task per
    character is queued when the transaction commits."""
    if created_by is not None and not has_any_role(created_by, [Role.ADMIN]):
        raise HygieneError("Only an admin can start a release hygiene screen.")
    check_text(note or "", label="Note", limit=NOTE_MAX_CHARS, error=HygieneError)
    busy = HygieneRun.objects.select_for_update().filter(status__in=BUSY).first()
    if busy is not None:
        raise HygieneError(
            f"{FLOW.name(busy)} is {busy.get_status_display().lower()}; wait for it to "
            "finish or cancel it first."
        )
    screen = current_screen()
    characters = list(Character.objects.order_by("key"))
    if not characters:
        raise HygieneError("There is no character to screen yet: import or draft a corpus first.")
    run = HygieneRun.objects.create(
        created_by=created_by,
        note=note,
        lexicon_name=screen.lexicon.name[:200],
        lexicon_sha256=screen.lexicon.sha256,
        lexicon_size=screen.lexicon.size,
        text_total=texts_count([c.pk for c in characters]),
    )
    HygieneUnit.objects.bulk_create(HygieneUnit(run=run, character=c) for c in characters)
    run = FLOW.lock(run.pk)
    _queue(FLOW.start_locked(run), run, on_unavailable)
    return run


@transaction.atomic
def hygiene_run_cancel(*, run_id: int) -> HygieneRun:
    run = FLOW.lock(run_id, missing="No such hygiene screen.")
    FLOW.cancel_locked(run)
    return run


@transaction.atomic
def hygiene_run_retry(*, run_id: int, on_unavailable=None) -> HygieneRun:
    run = FLOW.lock(run_id, missing="No such hygiene screen.")
    if run.status not in (RunStatus.FINISHED_WITH_FAILURES, RunStatus.CANCELLED):
        raise FLOW.refusal(run, "a screen that finished with failures or was cancelled")
    statuses = (HygieneUnit.Status.FAILED, HygieneUnit.Status.CANCELLED)
    ids = list(FLOW.units(run.pk).filter(status__in=statuses).values_list("pk", flat=True))
    if not ids:
        raise HygieneError(f"{FLOW.name(run)} has no failed or cancelled character to screen.")
    FLOW.reopen_locked(run, ids=ids)
    _queue(ids, run, on_unavailable)
    return run


# --- the worker ---------------------------------------------------------------------------


def hygiene_unit_screen(*, unit_id: int) -> str:
    """Screen one character's published texts (the task). Idempotent: a unit already
    final, or of a run cancelled meanwhile, is left as it is."""
    with transaction.atomic():
        unit = HygieneUnit.objects.select_for_update().get(pk=unit_id)
        if unit.is_terminal:
            return unit.status
        if FLOW.cancel_requested(run_id=unit.run_id):
            unit.status = HygieneUnit.Status.CANCELLED
            unit.save(update_fields=["status", "updated_at"])
            transaction.on_commit(lambda: FLOW.finish_if_done(run_id=unit.run_id))
            return unit.status
        unit.status = HygieneUnit.Status.RUNNING
        unit.attempts += 1
        unit.save(update_fields=["status", "attempts", "updated_at"])
    try:
        with transaction.atomic():
            unit = (
                HygieneUnit.objects.select_for_update(of=("self",))
                .select_related("character", "run")
                .get(pk=unit_id)
            )
            if unit.is_terminal:
                return unit.status
            screen = current_screen()
            if screen.lexicon.sha256 != unit.run.lexicon_sha256:
                # One screen, one lexicon: the card names the file the screen started with.
                raise HygieneError(
                    "The lexicon file changed after this screen started; start a new screen."
                )
            _screen_unit(unit, screen)
    except Exception as error:  # the unit fails, the screen goes on with the others
        logger.exception("Hygiene unit %s failed", unit_id)
        HygieneUnit.objects.filter(pk=unit_id).update(
            status=HygieneUnit.Status.FAILED,
            error_kind=type(error).__name__[:40],
            error_message=str(error)[:2000],
            updated_at=timezone.now(),
        )
    FLOW.finish_if_done(run_id=HygieneUnit.objects.values_list("run_id", flat=True).get(pk=unit_id))
    return HygieneUnit.objects.values_list("status", flat=True).get(pk=unit_id)


def _decided_before(character_id: int) -> dict:
    """(text, field, rule, matched) → the latest decided flag of an earlier screen: its
    decision carries over to the same span found again."""
    earlier = {}
    for flag in HygieneFlag.objects.filter(
        character_id=character_id,
        status__in=(HygieneFlag.Status.DISMISSED, HygieneFlag.Status.CONFIRMED),
    ).order_by("pk"):
        earlier[(*flag.text_key, flag.rule, flag.matched)] = flag
    return earlier


def _screen_unit(unit: HygieneUnit, screen: rules.Screen) -> None:
    texts = published_texts(unit.character)
    earlier = _decided_before(unit.character_id)
    flags = []
    for text in texts:
        for field_name, value in text.fields:
            for match in rules.screen_field(
                field_name, value, screen=screen, profile_words=text.profile_words
            ):
                before, matched, after = rules.excerpt(value, match.start, match.end)
                flag = HygieneFlag(
                    run_id=unit.run_id,
                    unit=unit,
                    character_id=unit.character_id,
                    text_kind=text.kind,
                    memory_id=text.memory_id,
                    reference_id=text.reference_id,
                    option_id=text.option_id,
                    text_label=text.label[:200],
                    field=field_name,
                    rule=match.rule.value,
                    start=match.start,
                    end=match.end,
                    matched=matched[:300],
                    detail=match.detail[:300],
                    before=before[-200:],
                    after=after[:200],
                )
                decided = earlier.get((*flag.text_key, flag.rule, flag.matched))
                if decided is not None:
                    flag.status, flag.carried_from = decided.status, decided
                flags.append(flag)
    HygieneFlag.objects.bulk_create(flags)
    unit.status = HygieneUnit.Status.DONE
    unit.texts = len(texts)
    unit.save(update_fields=["status", "texts", "updated_at"])
    HygieneRun.objects.filter(pk=unit.run_id).update(text_done=F("text_done") + len(texts))


# --- the memory reviewers' decisions ------------------------------------------------------


@transaction.atomic
def hygiene_flag_decide(*, flag_id: int, reviewer, decision: str, reason: str = "") -> HygieneFlag:
    """Record a memory reviewer's decision: dismiss the flag (the text is fine; a reason
    is required) or confirm it (the text goes for repair). A later decision on the same
    flag is recorded too and replaces the flag's status; every decision is kept."""
    if not has_any_role(reviewer, [Role.MEMORY_REVIEWER]):
        raise HygieneError("Only a memory reviewer can decide on a hygiene flag.")
    flag = HygieneFlag.objects.select_for_update().filter(pk=flag_id).first()
    if flag is None:
        raise HygieneError("This flag no longer exists; reload the list.")
    if decision not in HygieneDecision.Decision.values:
        raise HygieneError("Choose whether to dismiss the flag or confirm it.")
    reason = (reason or "").strip()
    check_text(reason, label="Reason", limit=REASON_MAX_CHARS, error=HygieneError)
    if decision == HygieneDecision.Decision.DISMISS and not reason:
        raise HygieneError("Say why the flagged text is fine before dismissing the flag.")
    HygieneDecision.objects.create(flag=flag, decision=decision, reason=reason, reviewer=reviewer)
    flag.status = (
        HygieneFlag.Status.DISMISSED
        if decision == HygieneDecision.Decision.DISMISS
        else HygieneFlag.Status.CONFIRMED
    )
    flag.save(update_fields=["status"])
    return flag
