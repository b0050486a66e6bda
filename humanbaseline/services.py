"""Every write of the human baseline: keyword-only, atomic, guarded by status."""

import csv
import io
import random
import re
from datetime import timedelta

import numpy as np
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.models import OPTION_LABELS, McqItem
from annotation.corpus.life_stages import LIFE_STAGE_KEYS
from evaluation.models import RetrievalSet
from evaluation.retrieval import retrieve_for_item
from heartbench_site.base.protocol import RETRIEVAL_K
from heartbench_site.base.roles import Role, user_roles

from . import selectors
from .models import (
    AnswerEvent,
    BaselineError,
    BaselineReport,
    BaselineStudy,
    ImportedPrediction,
    ItemResponse,
    ItemSourceFamily,
    Participation,
    PracticeAnswer,
    SelectionItem,
    StudyItem,
    SubsetSelection,
    TimeReport,
    WorkSession,
)
from .report import build_report
from .subset import (
    DEFAULT_QUOTAS,
    EXPERT_REWRITE,
    SubsetConstraints,
    largest_feasible,
    select_subset,
)

# A pause longer than this ends a work session; the next action starts a new one.
SESSION_IDLE_LIMIT = timedelta(minutes=30)
# One report of time on an item counts at most this much (a tab left open overnight
# must not be paid).
MAX_SECONDS_PER_REPORT = 30 * 60
# The answer-key sources, in the selection form's order: the families, then the rewrites.
SOURCES = tuple(source for source, _ in DEFAULT_QUOTAS)
# The page names each time report; anything else is not a name it sent.
REPORT_ID = re.compile(r"[A-Za-z0-9_.:-]{1,64}")


def _rows(content) -> list[dict]:
    text = content.decode("utf-8-sig") if isinstance(content, bytes) else content
    reader = csv.DictReader(io.StringIO(text))
    if not reader.fieldnames or "question_id" not in [f.strip() for f in reader.fieldnames]:
        raise BaselineError("The CSV needs a header row with a 'question_id' column.")
    return [{(k or "").strip(): (v or "").strip() for k, v in row.items()} for row in reader]


@transaction.atomic
def item_families_import_csv(*, content, origin: str) -> int:
    """Set answer-key sources from ``question_id,family`` rows (a family, or
    ``expert_rewrite``); any bad row rejects the whole file and leaves the database
    unchanged."""
    rows = _rows(content)
    if rows and "family" not in rows[0]:
        raise BaselineError(f"The CSV needs a 'family' column ({', '.join(SOURCES)}).")
    for row in rows:
        row["family"] = "_".join(row["family"].lower().split())
    items = {
        i.question_id: i
        for i in McqItem.objects.filter(question_id__in=[r["question_id"] for r in rows])
    }
    errors = []
    for line, row in enumerate(rows, start=2):
        if row["question_id"] not in items:
            errors.append(f"Line {line}: no item with question_id {row['question_id']!r}.")
        if row["family"] not in SOURCES:
            errors.append(
                f"Line {line}: family {row['family']!r} is not one of {', '.join(SOURCES)}."
            )
    if not rows:
        errors.append("The CSV has no data rows.")
    if errors:
        raise BaselineError(*errors)
    for row in rows:
        ItemSourceFamily.objects.update_or_create(
            item=items[row["question_id"]],
            defaults={"family": row["family"], "origin": origin},
        )
    return len(rows)


def reference_source(reference: ReferenceResponse) -> str:
    """The answer-key source of a reference ("" when unknown, as for an imported one)."""
    if reference.decision_type == ReferenceResponse.DecisionType.REWRITTEN:
        return EXPERT_REWRITE
    return reference.source_family


@transaction.atomic
def item_families_from_references() -> int:
    """Copy each final item's answer-key source from its reference: the reference's
    ``source_family``, or ``expert_rewrite`` when the arbitrator rewrote it."""
    count = 0
    items = McqItem.objects.filter(status=McqItem.Status.FINAL).select_related("reference")
    for item in items:
        family = reference_source(item.reference) if item.reference_id else ""
        if family:
            ItemSourceFamily.objects.update_or_create(
                item=item, defaults={"family": family, "origin": "reference"}
            )
            count += 1
    return count


@transaction.atomic
def predictions_import_csv(*, content, origin: str) -> int:
    """Model predictions as ``question_id,<model>,<model>...`` (one letter per cell; an
    empty cell is an invalid response, scored incorrect). Rejects the whole file on error."""
    rows = _rows(content)
    if not rows:
        raise BaselineError("The CSV has no data rows.")
    models = [k for k in rows[0] if k and k != "question_id"]
    if not models:
        raise BaselineError("The CSV needs one column per model after 'question_id'.")
    items = {
        i.question_id: i
        for i in McqItem.objects.filter(question_id__in=[r["question_id"] for r in rows])
    }
    errors = []
    for line, row in enumerate(rows, start=2):
        if row["question_id"] not in items:
            errors.append(f"Line {line}: no item with question_id {row['question_id']!r}.")
        for model in models:
            letter = row.get(model, "").upper()
            if letter and letter not in OPTION_LABELS:
                errors.append(f"Line {line}, column {model!r}: {letter!r} is not A, B, C or D.")
    if errors:
        raise BaselineError(*errors)
    for row in rows:
        for model in models:
            ImportedPrediction.objects.update_or_create(
                model_label=model,
                item=items[row["question_id"]],
                defaults={"letter": row.get(model, "").upper(), "origin": origin},
            )
    return len(rows) * len(models)


@transaction.atomic
def subset_select(*, user, seed: int, constraints: SubsetConstraints | None = None):
    """Run the ILP over the final items that have a source; store the outcome, and when
    it is infeasible the largest feasible study as a proposal."""
    constraints = constraints or SubsetConstraints()
    candidates, n_without = selectors.subset_candidates()
    stages = list(LIFE_STAGE_KEYS)
    result = select_subset(candidates, constraints, seed=seed, stage_order=stages)
    problems = list(result.problems)
    if n_without:
        problems.append(
            f"{n_without} final item(s) have no answer-key source and were not candidates; "
            "copy the sources from the references or upload a question_id,family CSV."
        )
    proposal = {}
    if not result.feasible and result.failed_at in ("precheck", "solver"):
        found = largest_feasible(candidates, constraints, seed=seed, stage_order=stages)
        if found is not None:
            proposal = {
                **found.constraints.as_dict(),
                "total": found.constraints.total,
                "ranges": found.result.ranges,
            }
    selection = SubsetSelection.objects.create(
        seed=seed,
        parameters={
            **constraints.as_dict(),
            "total": constraints.total,
            "characters": list(result.characters),
            "stages": list(result.stages),
            "ranges": result.ranges,
        },
        feasible=result.feasible,
        failed_at=result.failed_at,
        problems=problems,
        notes=list(result.notes),
        proposal=proposal,
        n_candidates=len(candidates),
        n_without_family=n_without,
        objective=result.objective,
        created_by=user,
    )
    by_id = {c.item_id: c for c in candidates}
    SelectionItem.objects.bulk_create(
        SelectionItem(
            selection=selection,
            item_id=item_id,
            family=by_id[item_id].source,
            character_key=by_id[item_id].character,
            stage=by_id[item_id].stage,
        )
        for item_id in result.selected
    )
    return selection


def _retrieval_set(item, *, method: str, k: int) -> RetrievalSet:
    """An imported evaluation run's set when one exists (identical strings to the model's),
    else the built-in retriever's, computed now and stored."""
    imported = (
        RetrievalSet.objects.filter(item=item, method=RetrievalSet.Method.IMPORTED)
        .order_by("-created_at", "-pk")
        .first()
    )
    return imported or retrieve_for_item(item, method=method, k=k)


@transaction.atomic
def study_create(
    *,
    user,
    name: str,
    selection: SubsetSelection,
    consent_version: str,
    consent_text: str,
    briefing: str,
    practice_question_ids: list[str],
    retrieval_method: str = RetrievalSet.Method.BM25,
    k: int = RETRIEVAL_K,
) -> BaselineStudy:
    if not selection.feasible:
        raise BaselineError(f"Selection #{selection.pk} is infeasible; it has no subset to study.")
    subset = list(
        McqItem.objects.filter(pk__in=selection.items.values("item_id"))
        .select_related("scenario", "character")
        .order_by("question_id")
    )
    subset_ids = {i.question_id for i in subset}
    errors = []
    if not practice_question_ids:
        errors.append("Name at least one practice item (question_id).")
    practice = []
    for qid in practice_question_ids:
        item = McqItem.objects.filter(question_id=qid).select_related("scenario").first()
        if item is None:
            errors.append(f"Practice item {qid!r}: no such item.")
        elif qid in subset_ids:
            errors.append(f"Practice item {qid!r} is in the subset; practice items must not be.")
        else:
            practice.append(item)
    if len(set(practice_question_ids)) != len(practice_question_ids):
        errors.append("A practice item is listed twice.")
    if not consent_version.strip() or not consent_text.strip():
        errors.append("The consent text and its version are both required.")
    if errors:
        raise BaselineError(*errors)
    study = BaselineStudy.objects.create(
        name=name,
        selection=selection,
        consent_version=consent_version.strip(),
        consent_text=consent_text,
        briefing=briefing,
        retrieval_method=retrieval_method,
        k=k,
        created_by=user,
    )
    StudyItem.objects.bulk_create(
        [
            StudyItem(
                study=study,
                item=item,
                position=n,
                retrieval_set=_retrieval_set(item, method=retrieval_method, k=k),
            )
            for n, item in enumerate(subset, start=1)
        ]
        + [
            StudyItem(
                study=study,
                item=item,
                is_practice=True,
                position=n,
                retrieval_set=_retrieval_set(item, method=retrieval_method, k=k),
            )
            for n, item in enumerate(practice, start=1)
        ]
    )
    return study


@transaction.atomic
def study_set_status(*, study: BaselineStudy, status: str) -> BaselineStudy:
    study.status = status
    study.save(update_fields=["status"])
    return study


def _new_order_seed() -> int:
    return random.SystemRandom().randrange(2**62)


@transaction.atomic
def participant_enrol(*, study: BaselineStudy, user, via: str) -> Participation:
    if study.status != BaselineStudy.Status.OPEN:
        raise BaselineError(f"The study {study.name!r} is closed to new participants.")
    other = sorted(r.label for r in user_roles(user) if r is not Role.BASELINE_PARTICIPANT)
    if other:
        # App. J: participants took no part in construction and see none of its materials.
        raise BaselineError(
            f"The account {user.get_username()!r} holds other roles ({', '.join(other)}); "
            "a participant must not be involved in building the benchmark. Sign out and "
            "create a separate participant account."
        )
    user.groups.add(Group.objects.get(name=Role.BASELINE_PARTICIPANT.value))
    participation, _ = Participation.objects.get_or_create(
        study=study, user=user, defaults={"enrolled_via": via, "order_seed": _new_order_seed()}
    )
    return participation


def _new_account(username: str, password: str):
    User = get_user_model()
    if not username.strip():
        raise BaselineError("Choose a username.")
    if User.objects.filter(username=username).exists():
        raise BaselineError(f"The username {username!r} is taken; choose another.")
    user = User(username=username)
    try:
        validate_password(password, user)
    except ValidationError as error:
        raise BaselineError(*error.messages) from None
    user.set_password(password)
    user.save()
    return user


@transaction.atomic
def participant_account_create(*, study: BaselineStudy, username: str, password: str):
    """An admin creates the participant's account and enrols it."""
    user = _new_account(username, password)
    return participant_enrol(study=study, user=user, via="admin")


@transaction.atomic
def invitation_signup(*, token, username: str, password: str) -> Participation:
    study = BaselineStudy.objects.filter(invitation_token=token).first()
    if study is None:
        raise BaselineError("This invitation link is not valid.")
    user = _new_account(username, password)
    return participant_enrol(study=study, user=user, via="invitation")


def _locked(participation: Participation) -> Participation:
    return Participation.objects.select_for_update().get(pk=participation.pk)


@transaction.atomic
def consent_decide(*, participation: Participation, agree: bool, version: str) -> Participation:
    p = _locked(participation)
    if p.status != Participation.Status.INVITED:
        raise BaselineError("Consent has already been recorded for this study.")
    if version != p.study.consent_version:
        raise BaselineError(
            "The consent text changed while the page was open; read the current version."
        )
    p.consent_version = version
    p.consent_decided_at = timezone.now()
    p.status = Participation.Status.CONSENTED if agree else Participation.Status.DECLINED
    p.save(update_fields=["consent_version", "consent_decided_at", "status"])
    return p


def _require_consent(p: Participation):
    if p.status in (Participation.Status.INVITED, Participation.Status.DECLINED):
        raise BaselineError("Informed consent is required before this step.")


@transaction.atomic
def briefing_complete(*, participation: Participation) -> Participation:
    p = _locked(participation)
    _require_consent(p)
    if p.briefing_done_at is None:
        p.briefing_done_at = timezone.now()
        p.save(update_fields=["briefing_done_at"])
    return p


@transaction.atomic
def practice_answer(*, participation: Participation, position: int, choice: str):
    p = _locked(participation)
    _require_consent(p)
    if choice not in OPTION_LABELS:
        raise BaselineError("Choose one of the options A, B, C or D.")
    item = StudyItem.objects.get(study=p.study, is_practice=True, position=position)
    answer, _ = PracticeAnswer.objects.update_or_create(
        participation=p, study_item=item, defaults={"choice": choice}
    )
    return answer


@transaction.atomic
def baseline_session_start(*, participation: Participation) -> Participation:
    """Fix the participant's item order (seeded permutation) and begin the study."""
    p = _locked(participation)
    _require_consent(p)
    if p.status in (Participation.Status.STARTED, Participation.Status.FINALIZED):
        return p
    if p.briefing_done_at is None:
        raise BaselineError("Read the briefing first.")
    items = list(StudyItem.objects.filter(study=p.study, is_practice=False).order_by("position"))
    order = participant_order(order_seed=p.order_seed, n_items=len(items))
    ItemResponse.objects.bulk_create(
        ItemResponse(participation=p, study_item=items[index], position=n)
        for n, index in enumerate(order, start=1)
    )
    now = timezone.now()
    p.practice_done_at = p.practice_done_at or now
    p.started_at = now
    p.status = Participation.Status.STARTED
    p.save(update_fields=["practice_done_at", "started_at", "status"])
    return p


def participant_order(*, order_seed: int, n_items: int) -> list[int]:
    """Indices into the study items by position, in the order this participant sees them."""
    return [int(i) for i in np.random.default_rng(order_seed).permutation(n_items)]


def _require_started(p: Participation):
    if p.status == Participation.Status.FINALIZED:
        raise BaselineError("You have finalized your answers; they can no longer change.")
    if p.status != Participation.Status.STARTED:
        raise BaselineError("The study has not started yet.")


def _clamp(seconds) -> float:
    try:
        value = float(seconds or 0)
    except (TypeError, ValueError):
        return 0.0
    if value != value:  # NaN
        return 0.0
    return min(max(value, 0.0), MAX_SECONDS_PER_REPORT)


def _add_time(response: ItemResponse, seconds, report_id: str = "") -> bool:
    """Add a report of time on ``response``'s item, once per report name: the same
    report sent again adds nothing. A report without a (valid) name is added as it is.
    Caller must hold the participation's row lock."""
    amount = _clamp(seconds)
    report_id = (report_id or "").strip()
    if REPORT_ID.fullmatch(report_id):
        _, created = TimeReport.objects.get_or_create(
            response=response, report_id=report_id, defaults={"seconds": amount}
        )
        if not created:
            return False
    if amount:
        ItemResponse.objects.filter(pk=response.pk).update(seconds=F("seconds") + amount)
    return True


@transaction.atomic
def answer_save(
    *, participation: Participation, position: int, choice: str, seconds=0, report_id=""
):
    """Save the participant's answer; ``seconds`` is time on the item the page reports
    with it, counted once per ``report_id`` (see :func:`time_record`)."""
    p = _locked(participation)
    _require_started(p)
    if choice not in OPTION_LABELS:
        raise BaselineError("Choose one of the options A, B, C or D.")
    response = ItemResponse.objects.select_for_update().get(participation=p, position=position)
    if response.choice and response.choice != choice:
        response.revisions += 1
    if response.choice != choice:
        AnswerEvent.objects.create(response=response, choice=choice)
    response.choice = choice
    response.answered_at = timezone.now()
    response.save(update_fields=["choice", "answered_at", "revisions"])
    _add_time(response, seconds, report_id)
    activity_touch(participation=p)
    response.refresh_from_db(fields=["seconds"])
    return response


@transaction.atomic
def time_record(*, participation: Participation, position: int, seconds, report_id="") -> bool:
    """Add time the page reported for one item (sent once when the participant leaves
    it). Idempotent per ``report_id``: a report received again changes nothing and
    returns False. The participation's row lock orders two copies arriving together."""
    p = _locked(participation)
    if p.status != Participation.Status.STARTED:
        return False
    response = ItemResponse.objects.filter(participation=p, position=position).first()
    if response is None:
        return False
    added = _add_time(response, seconds, report_id)
    activity_touch(participation=p)
    return added


@transaction.atomic
def activity_touch(*, participation: Participation, now=None) -> WorkSession:
    """Extend the current work session, or start one after an idle gap.

    Takes the participation's row lock first (held already when called from another
    service), so that every write of a participant's time goes in one lock order:
    participation, then response, then session."""
    _locked(participation)
    now = now or timezone.now()
    session = (
        WorkSession.objects.filter(participation=participation).order_by("-started_at").first()
    )
    if session is not None and now - session.last_activity_at <= SESSION_IDLE_LIMIT:
        session.last_activity_at = max(now, session.last_activity_at)
        session.save(update_fields=["last_activity_at"])
        return session
    return WorkSession.objects.create(
        participation=participation, started_at=now, last_activity_at=now
    )


@transaction.atomic
def baseline_finalize(*, participation: Participation) -> Participation:
    p = _locked(participation)
    _require_started(p)
    missing = list(
        ItemResponse.objects.filter(participation=p, choice="")
        .order_by("position")
        .values_list("position", flat=True)
    )
    if missing:
        shown = ", ".join(str(m) for m in missing[:20]) + (" …" if len(missing) > 20 else "")
        raise BaselineError(f"{len(missing)} item(s) have no answer yet: {shown}.")
    p.status = Participation.Status.FINALIZED
    p.finalized_at = timezone.now()
    p.save(update_fields=["status", "finalized_at"])
    activity_touch(participation=p)
    return p


@transaction.atomic
def report_request(*, study: BaselineStudy, user, seed: int, n_boot: int, n_permutations: int):
    # The tasks module imports this one: the dispatcher is looked up at call time.
    from .celery_tasks import dispatch_report

    finalized = study.participants.filter(status=Participation.Status.FINALIZED).count()
    if finalized < 2:
        raise BaselineError(
            f"{finalized} participant(s) have finalized; the report needs at least two."
        )
    report = BaselineReport.objects.create(
        study=study, seed=seed, n_boot=n_boot, n_permutations=n_permutations, requested_by=user
    )
    dispatch_report(report.pk)
    return report


def report_compute(*, report_id: int) -> BaselineReport:
    """Compute a queued report (idempotent: a finished report is returned as it is)."""
    with transaction.atomic():
        report = BaselineReport.objects.select_for_update().get(pk=report_id)
        if report.status in (BaselineReport.Status.DONE, BaselineReport.Status.FAILED):
            return report
        report.status = BaselineReport.Status.RUNNING
        report.save(update_fields=["status"])
    try:
        data = selectors.report_inputs(study=report.study)
        results = build_report(
            **data, seed=report.seed, n_boot=report.n_boot, n_permutations=report.n_permutations
        )
    except Exception as error:  # the page shows what went wrong instead of spinning
        BaselineReport.objects.filter(pk=report_id).update(
            status=BaselineReport.Status.FAILED, error=str(error), finished_at=timezone.now()
        )
        raise
    BaselineReport.objects.filter(pk=report_id).update(
        status=BaselineReport.Status.DONE, results=results, finished_at=timezone.now()
    )
    report.refresh_from_db()
    return report
