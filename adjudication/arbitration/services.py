"""Writes of consensus-then-arbitration (seed 000 §2.4 Stage 2, App. D.2).

Each function is one transition, keyword-only and atomic; ``ArbitrationError`` carries
a message the arbitrator can act on. The pair row is locked before any decision, and a
partial unique constraint backs the lock: exactly one open decision per pair.

:func:`consensus_route` routes a pair every annotator has judged: a unanimous as-is
selection becomes the reference, anything else is escalated to an arbitrator. The submit
interfaces (``adjudication.consensus``) call it right after
``annotation.comparison.services.comparison_submit``, in the same transaction.
"""

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from adjudication.arbitration.models import (
    AdjudicationSettings,
    ArbitrationDecision,
    ReferenceResponse,
)
from agreement import UndefinedStatisticError, word_edit_rate
from agreement.judge_calibration import consensus_routing
from annotation.comparison.models import (
    ComparisonJudgment,
    ComparisonPair,
    Rating,
    Suitability,
)
from annotation.comparison.services import judged_by_all
from annotation.generation.models import Candidate, ModelFamily
from annotation.generation.services.runs import (
    GenerationError,
    generation_run_create,
    generation_run_start,
)
from core.conflicts import ConflictOfInterest, arbitration_conflict
from core.deviations import ProtocolDeviation, record_deviation
from core.roles import Role, has_any_role
from core.text_rules import NOTE, TEXT, check_text, check_texts

REFERENCE_TEXT_FIELDS = ("summary", "emotional_tone", "core_reasoning", "final_decision")
# The text an MCQ keys: the reference's final decision becomes the correct option
# (adjudication.mcq assembly, seed 000 §2.4 Stage 3).
KEYED_TEXT_FIELD = "final_decision"
# Issue #22: the guidance of a regeneration joins every new candidate's prompt; a few
# paragraphs at most, so it steers the response without drowning the stored prompt.
REGENERATION_GUIDANCE_MAX_CHARS = 2000


class ArbitrationError(ValidationError):
    """An arbitration action that cannot be carried out as asked; the message says why."""


# Issue #24: the limits of the texts an arbitrator or admin types (the form and the API
# take the same constants); the services refuse the same texts for any other caller.
REFERENCE_TEXT_LABELS = {
    "summary": "Rationale (summary)",
    "emotional_tone": "Emotional tone",
    "core_reasoning": "Core reasoning",
    "final_decision": "Final decision",
}


def _check_reason(reason: str, label: str = "Reason / note") -> str:
    return check_text(reason or "", label=label, limit=NOTE, error=ArbitrationError)


def candidate_response_text(candidate: Candidate) -> str:
    """The text the word edit rate compares: the candidate's rationale and decision."""
    return "\n".join(getattr(candidate, f) for f in REFERENCE_TEXT_FIELDS)


def _rate(before: str, after: str) -> float | None:
    try:
        return word_edit_rate(before, after).rate
    except UndefinedStatisticError:  # a candidate without words
        return None


def edit_rates(candidate: Candidate | None, fields: dict) -> dict:
    """The reference's two word edit rates against its source candidate (App. D.2): over
    all text fields (``word_edit_rate``) and over the keyed final decision alone
    (``keyed_word_edit_rate``). None for a rewrite (no candidate)."""
    if candidate is None:
        return {"word_edit_rate": None, "keyed_word_edit_rate": None}
    return {
        "word_edit_rate": _rate(
            candidate_response_text(candidate),
            "\n".join(fields[f] for f in REFERENCE_TEXT_FIELDS),
        ),
        "keyed_word_edit_rate": _rate(
            getattr(candidate, KEYED_TEXT_FIELD), fields[KEYED_TEXT_FIELD]
        ),
    }


def _install_reference(
    *, pair: ComparisonPair, fields: dict, decision_type: str, candidate=None, arbitrator=None
) -> ReferenceResponse:
    """Create the pair's current reference; a current one (imported from the release) is
    kept as history, superseded. Caller must hold the pair's row lock."""
    previous = (
        ReferenceResponse.objects.select_for_update(of=("self",))
        .filter(character=pair.character_id, scenario=pair.scenario_id, superseded_at__isnull=True)
        .order_by("pk")
        .first()
    )
    if previous is not None:
        if previous.decision_type != ReferenceResponse.DecisionType.IMPORTED:
            raise ArbitrationError(f"{pair} already has an adjudicated reference response.")
        previous.superseded_at = timezone.now()
        previous.save(update_fields=["superseded_at"])
    return ReferenceResponse.objects.create(
        character_id=pair.character_id,
        scenario_id=pair.scenario_id,
        decision_type=decision_type,
        source_candidate=candidate,
        source_family=candidate.family if candidate else "",
        arbitrator=arbitrator,
        supersedes=previous,
        source="consensus-then-arbitration",
        **edit_rates(candidate, fields),
        **fields,
    )


@transaction.atomic
def reference_adopt_unanimous(*, pair: ComparisonPair, candidate_id: int) -> ReferenceResponse:
    """All three selected the candidate as-is: it becomes the reference unchanged."""
    if pair.status != ComparisonPair.Status.ADOPTED:
        raise ArbitrationError(f"{pair} was not adopted unanimously.")
    candidate = Candidate.objects.get(pk=candidate_id)
    fields = {f: getattr(candidate, f) for f in REFERENCE_TEXT_FIELDS}
    return _install_reference(
        pair=pair,
        fields=fields,
        decision_type=ReferenceResponse.DecisionType.UNANIMOUS,
        candidate=candidate,
    )


def routing_outcome(judgments: list[ComparisonJudgment]) -> tuple[bool, list[str]]:
    """(unanimous adoption?, reasons for escalation) per the consensus-then-arbitration
    rule of App. D.2."""
    return consensus_routing(
        selected=[j.selected_candidate_id for j in judgments],
        as_is=[j.rating == Rating.AS_IS for j in judgments],
        flagged=[j.suitability == Suitability.FLAGGED for j in judgments],
    )


@transaction.atomic
def consensus_route(*, pair: ComparisonPair) -> ComparisonPair:
    """Route a pair once its three annotators have submitted (App. D.2): unanimous
    as-is → ``adopted``, the selected candidate becomes the pair's reference unchanged;
    anything else → ``escalated`` with the reasons, into the arbitration queue.

    Locks the pair row (the submit's transaction already holds it). A pair that is routed
    already, or still awaits a judgment, is left as it is.
    """
    pair = ComparisonPair.objects.select_for_update(of=("self",)).get(pk=pair.pk)
    if pair.status != ComparisonPair.Status.ANNOTATING:
        return pair
    if not judged_by_all(pair):
        return pair
    judgments = list(ComparisonJudgment.objects.filter(assignment__pair=pair))
    unanimous, reasons = routing_outcome(judgments)
    pair.routed_at = timezone.now()
    pair.escalation_reasons = reasons
    if unanimous:
        pair.status = ComparisonPair.Status.ADOPTED
        pair.save(update_fields=["status", "routed_at", "escalation_reasons"])
        reference_adopt_unanimous(pair=pair, candidate_id=judgments[0].selected_candidate_id)
    else:
        pair.status = ComparisonPair.Status.ESCALATED
        pair.save(update_fields=["status", "routed_at", "escalation_reasons"])
    return pair


def _locked_escalated_pair(pair_id: int) -> ComparisonPair:
    pair = ComparisonPair.objects.select_for_update(of=("self",)).filter(pk=pair_id).first()
    if pair is None:
        raise ArbitrationError(f"There is no comparison pair {pair_id}.")
    if pair.status != ComparisonPair.Status.ESCALATED:
        raise ArbitrationError(
            f"{pair} is not awaiting arbitration ({pair.get_status_display().lower()}); "
            "another arbitrator may have decided it already."
        )
    return pair


class ArbitrationConflict(ArbitrationError, ConflictOfInterest):
    """The arbitrator judged the pair (some round of it): a conflict of interest, refused
    at the act (the API answers 403, the page shows why instead of the form)."""


def _refuse_own_pair(pair: ComparisonPair, arbitrator) -> None:
    """App. D.2: nobody arbitrates a pair they judged (or were assigned to judge)."""
    message = arbitration_conflict(pair, arbitrator)
    if message:
        raise ArbitrationConflict(message)


def _was_flagged(pair: ComparisonPair) -> bool:
    return ComparisonJudgment.objects.filter(
        assignment__pair=pair, suitability=Suitability.FLAGGED
    ).exists()


def _record(**kwargs) -> ArbitrationDecision:
    try:
        with transaction.atomic():
            return ArbitrationDecision.objects.create(**kwargs)
    except IntegrityError:
        raise ArbitrationError("This pair already has a decision.") from None


@transaction.atomic
def arbitration_discard(*, pair_id: int, arbitrator, reason: str) -> ArbitrationDecision:
    """Discard a pair deemed fundamentally unfit (App. D.2); a reason is required."""
    _require_arbitrator(arbitrator)
    reason = _check_reason(reason).strip()
    if not reason:
        raise ArbitrationError("Give the reason the pair is fundamentally unfit for evaluation.")
    pair = _locked_escalated_pair(pair_id)
    _refuse_own_pair(pair, arbitrator)
    decision = _record(
        pair=pair, kind=ArbitrationDecision.Kind.DISCARDED, arbitrator=arbitrator, reason=reason
    )
    pair.status = ComparisonPair.Status.DISCARDED
    pair.save(update_fields=["status"])
    return decision


def _require_arbitrator(user) -> None:
    if not has_any_role(user, [Role.ARBITRATOR]):
        raise ArbitrationError("Only an arbitrator decides escalated pairs.")


def _guidance_judgments(pair, kind: str, ids) -> list[ComparisonJudgment]:
    """The judgments an edit follows: on this pair, with revision guidance."""
    ids = {int(i) for i in ids or ()}
    if not ids:
        return []
    if kind != ArbitrationDecision.Kind.EDITED:
        raise ArbitrationError("Only an edit follows the annotators' revision guidance.")
    judgments = list(
        ComparisonJudgment.objects.filter(pk__in=ids, assignment__pair=pair).exclude(
            revision_guidance=""
        )
    )
    if len(judgments) != len(ids):
        raise ArbitrationError(
            "Tick only guidance given on this pair: an annotator without revision guidance "
            "cannot be followed."
        )
    return judgments


@transaction.atomic
def arbitration_resolve(
    *,
    pair_id: int,
    arbitrator,
    kind: str,
    candidate_id: int | None = None,
    fields: dict | None = None,
    reason: str = "",
    guidance_followed=(),
) -> ArbitrationDecision:
    """Retain the pair and set its reference: ``adopted`` (a candidate as-is), ``edited``
    (a candidate revised: ``fields`` is the edited text) or ``rewritten`` (``fields``
    from scratch). The result must state a concrete behavioral decision.
    ``guidance_followed``: on an edit, the ids of this pair's judgments whose revision
    guidance the edit follows."""
    _require_arbitrator(arbitrator)
    _check_reason(reason)
    check_texts(
        fields or {},
        dict.fromkeys(REFERENCE_TEXT_FIELDS, TEXT),
        labels=REFERENCE_TEXT_LABELS,
        error=ArbitrationError,
    )
    Kind = ArbitrationDecision.Kind
    if kind not in (Kind.ADOPTED, Kind.EDITED, Kind.REWRITTEN):
        raise ArbitrationError("Choose adopt, edit or rewrite (or discard the pair).")
    pair = _locked_escalated_pair(pair_id)
    _refuse_own_pair(pair, arbitrator)
    candidate = None
    if kind in (Kind.ADOPTED, Kind.EDITED):
        candidate = pair.candidates.filter(pk=candidate_id).first()
        if candidate is None:
            raise ArbitrationError("Select the candidate to adopt or edit.")
    if kind == Kind.ADOPTED:
        fields = {f: getattr(candidate, f) for f in REFERENCE_TEXT_FIELDS}
    else:
        fields = {f: (fields or {}).get(f, "").strip() for f in REFERENCE_TEXT_FIELDS}
    if not fields["final_decision"]:
        raise ArbitrationError(
            "The reference response must state a concrete behavioral decision "
            "(the final decision may not be empty)."
        )
    if not fields["summary"]:
        raise ArbitrationError("The reference response needs its first-person rationale (summary).")
    followed = _guidance_judgments(pair, kind, guidance_followed)
    decision = _record(
        pair=pair, kind=kind, arbitrator=arbitrator, source_candidate=candidate, reason=reason
    )
    decision.guidance_followed.set(followed)
    decision.reference = _install_reference(
        pair=pair,
        fields=fields,
        decision_type=kind,
        candidate=candidate,
        arbitrator=arbitrator,
    )
    decision.save(update_fields=["reference"])
    pair.status = ComparisonPair.Status.RESOLVED
    pair.save(update_fields=["status"])
    return decision


@transaction.atomic
def arbitration_regenerate(
    *, pair_id: int, arbitrator, guidance: str, on_unavailable=None
) -> ArbitrationDecision:
    """All three candidates are unusable but the pair is suitable (issue #22): record the
    decision with the arbitrator's guidance, send the pair back (status
    ``regenerating``) and start a generation run for that pair alone, with the same
    families and gates and the guidance added to the response prompt. When the run has
    its candidates, ``annotation.comparison.services.comparison_pairs_create`` makes the
    next round's pair: a fresh blind comparison with new letters."""
    _require_arbitrator(arbitrator)
    guidance = check_text(
        guidance or "",
        label="Guidance for regeneration",
        limit=REGENERATION_GUIDANCE_MAX_CHARS,
        error=ArbitrationError,
    ).strip()
    if not guidance:
        raise ArbitrationError(
            "Give the guidance for the new candidates: what all three got wrong and what "
            "a usable response needs."
        )
    pair = _locked_escalated_pair(pair_id)
    _refuse_own_pair(pair, arbitrator)
    families = sorted(set(pair.candidates.values_list("family", flat=True)))
    families = [f for f in ModelFamily.values if f in families]
    try:
        run = generation_run_create(
            user=arbitrator,
            families=families,
            characters=[pair.character.key],
            scenarios=[pair.scenario.scenario_id],
            note=f"Regeneration of {pair}, asked by {arbitrator.get_username()}.",
            guidance=guidance,
        )
    except GenerationError as error:
        raise ArbitrationError(f"The new candidates cannot be generated: {error}") from None
    decision = _record(
        pair=pair, kind=ArbitrationDecision.Kind.REGENERATE, arbitrator=arbitrator, reason=guidance
    )
    pair.status = ComparisonPair.Status.REGENERATING
    pair.regeneration_run = run
    pair.save(update_fields=["status", "regeneration_run"])
    generation_run_start(run_id=run.pk, on_unavailable=on_unavailable)
    return decision


def arbitration_decide(
    *,
    pair_id: int,
    arbitrator,
    kind: str,
    candidate_id: int | None = None,
    fields: dict | None = None,
    reason: str = "",
    guidance: str = "",
    guidance_followed=(),
    on_unavailable=None,
) -> ArbitrationDecision:
    """The arbitration form's decision, whichever it is (the page and the API call this):
    discard, ask for regeneration, or retain the pair with a reference (adopt, edit,
    rewrite)."""
    if kind == ArbitrationDecision.Kind.DISCARDED:
        return arbitration_discard(pair_id=pair_id, arbitrator=arbitrator, reason=reason)
    if kind == ArbitrationDecision.Kind.REGENERATE:
        return arbitration_regenerate(
            pair_id=pair_id,
            arbitrator=arbitrator,
            guidance=guidance,
            on_unavailable=on_unavailable,
        )
    return arbitration_resolve(
        pair_id=pair_id,
        arbitrator=arbitrator,
        kind=kind,
        candidate_id=candidate_id,
        fields=fields,
        reason=reason,
        guidance_followed=guidance_followed,
    )


@transaction.atomic
def arbitration_reopen(*, pair_id: int, admin, reason: str) -> ArbitrationDecision:
    """An admin reopens a decided pair: the decision stays, marked reopened; its
    reference is superseded (the one it superseded becomes current again) and the pair
    returns to the arbitration queue."""
    if not has_any_role(admin, [Role.ADMIN]):
        raise ArbitrationError("Only an admin may reopen an arbitration decision.")
    reason = _check_reason(reason, "Reason for reopening").strip()
    if not reason:
        raise ArbitrationError("Give the reason for reopening the decision.")
    pair = ComparisonPair.objects.select_for_update(of=("self",)).filter(pk=pair_id).first()
    decision = (
        ArbitrationDecision.objects.select_for_update(of=("self",))
        .filter(pair=pair, reopened_at__isnull=True)
        .order_by("pk")
        .first()
        if pair
        else None
    )
    if decision is None:
        raise ArbitrationError("This pair has no decision to reopen.")
    if decision.kind == ArbitrationDecision.Kind.REGENERATE:
        raise ArbitrationError(
            f"{pair} was sent back for regeneration; its next round decides it, and a "
            "decision there can be reopened instead."
        )
    now = timezone.now()
    decision.reopened_at, decision.reopened_by, decision.reopen_reason = now, admin, reason
    decision.save(update_fields=["reopened_at", "reopened_by", "reopen_reason"])
    reference = decision.reference
    if reference is not None:
        reference.superseded_at = now
        reference.save(update_fields=["superseded_at"])
        if reference.supersedes_id:
            ReferenceResponse.objects.filter(pk=reference.supersedes_id).update(superseded_at=None)
    pair.status = ComparisonPair.Status.ESCALATED
    pair.save(update_fields=["status"])
    return decision


# The protocol rules a setting of AdjudicationSettings can bend: field → (value that
# deviates, the rule). Saving a deviating value records a protocol deviation.
SETTING_RULES = {
    "show_family_to_arbitrator": (
        True,
        "Model-family identities remain hidden throughout review, arbitration included "
        "(seed 000 §2.4 Stage 1, App. D.2)",
    ),
}


def settings_deviations(*, before: dict, after: dict) -> list[str]:
    """The rules a change of the adjudication settings starts to bend."""
    return [
        rule
        for name, (deviating, rule) in SETTING_RULES.items()
        if after.get(name) == deviating and before.get(name) != deviating
    ]


@transaction.atomic
def adjudication_settings_save(
    *, admin, show_family_to_arbitrator: bool, reason: str = ""
) -> AdjudicationSettings:
    """Save the site-wide adjudication settings; a value away from the paper's protocol
    needs a reason and is recorded as a protocol deviation (listed in the export
    manifest) in the same transaction."""
    if not has_any_role(admin, [Role.ADMIN]):
        raise ArbitrationError("Only an admin changes the adjudication settings.")
    current = AdjudicationSettings.objects.select_for_update().filter(pk=1).first()
    before = {"show_family_to_arbitrator": bool(current and current.show_family_to_arbitrator)}
    after = {"show_family_to_arbitrator": bool(show_family_to_arbitrator)}
    rules = settings_deviations(before=before, after=after)
    reason = (reason or "").strip()
    if rules and not reason:
        raise ArbitrationError(
            f"Give the reason for departing from the protocol: {'; '.join(rules)}."
        )
    saved, _ = AdjudicationSettings.objects.update_or_create(pk=1, defaults=after)
    for rule in rules:
        record_deviation(
            stage="arbitration",
            kind=ProtocolDeviation.Kind.SETTING,
            subject="adjudication settings: show the model family to the arbitrator",
            rule=rule,
            reason=reason,
            by=admin,
        )
    return saved
