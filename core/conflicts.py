"""Conflict of interest: the one module that owns the rules, their messages and the
refusal (issue #24; issue #33 gathered them here).

Two rules of the protocol bar a person from an act because of their own earlier record:

- **Arbitration (App. D.2)**: nobody arbitrates a pair they judged or were assigned to
  judge, in any round of the same character × scenario (:func:`arbitration_conflict`, and
  :func:`arbitration_conflict_rows` for many pairs and arbitrators at once).
- **The reference-label audit team (App. D.4)**: the audit team "did not participate in
  benchmark construction"; every record of a person's part in building the benchmark
  (``INVOLVEMENT_SOURCES``, :func:`construction_involvement`) excludes them from the team
  (:func:`conflict_of_interest_problems`) and refuses each of their acts
  (:func:`team_member_conflict`).

A service raises :class:`ConflictOfInterest` (its workflow's subclass) with the rule's
message when the act is refused. The API answers it 403 (``core.api.exception_handler``); a
page renders :func:`conflict_page`. The admin's /conflicts/ page lists the current ones
(``audit.reference_labels.selectors``).

The records live in the workflows' tables, read here by model label (as the decision
history's registry does), so the base imports no workflow. A fixed number of queries each.
"""

from dataclasses import dataclass

from django.apps import apps
from django.core.exceptions import ValidationError
from django.shortcuts import render

from core.display import character_name, scenario_title


class ConflictOfInterest(ValidationError):
    """The person may not do this act because of their own record; the message names it."""


def conflict_page(request, error: ValidationError):
    """The 403 page with the refusal's message shown."""
    return render(request, "403.html", {"reason": " ".join(error.messages)}, status=403)


# --- Arbitration (App. D.2) ----------------------------------------------------------------


def _conflict_record(assignment) -> str:
    """One assignment (or its judgment) as a refusal names it."""
    judgment = getattr(assignment, "judgment", None)
    if judgment is not None and judgment.submitted_at:
        return (
            f"your comparison judgment (round {assignment.pair.round}, version "
            f"{judgment.version}, submitted {judgment.submitted_at:%Y-%m-%d %H:%M} UTC)"
        )
    return (
        f"your comparison assignment (round {assignment.pair.round}, batch "
        f"{assignment.batch}, assigned {assignment.assigned_at:%Y-%m-%d %H:%M} UTC)"
    )


def arbitration_conflict_rows(pairs, arbitrators) -> dict[tuple[int, int, int], list[str]]:
    """{(character id, scenario id, arbitrator id): the records that bar that arbitrator
    from the pairs of that character × scenario}, for the admin's conflicts page. One
    query."""
    characters = {p.character_id for p in pairs}
    scenarios = {p.scenario_id for p in pairs}
    wanted = {(p.character_id, p.scenario_id) for p in pairs}
    found: dict[tuple[int, int, int], list[str]] = {}
    if not wanted or not arbitrators:
        return found
    rows = (
        apps.get_model("annotation", "PairAssignment")
        .objects.filter(
            pair__character_id__in=characters,
            pair__scenario_id__in=scenarios,
            annotator__in=[u.pk for u in arbitrators],
        )
        .select_related("judgment", "pair")
        .order_by("-pair__round", "pk")
    )
    for a in rows:
        if (a.pair.character_id, a.pair.scenario_id) in wanted:
            key = (a.pair.character_id, a.pair.scenario_id, a.annotator_id)
            found.setdefault(key, []).append(_conflict_record(a))
    return found


def arbitration_conflict(pair, arbitrator) -> str | None:
    """Why ``arbitrator`` may not decide ``pair``, or None. App. D.2: nobody arbitrates a
    pair they judged or were assigned to judge, in any round of the same character ×
    scenario (issue #22 rounds; issue #24). One query."""
    own = list(
        apps.get_model("annotation", "PairAssignment")
        .objects.filter(
            pair__character_id=pair.character_id,
            pair__scenario_id=pair.scenario_id,
            annotator=arbitrator,
        )
        .select_related("judgment", "pair__character", "pair__scenario")
        .order_by("-pair__round")
    )
    if not own:
        return None
    records = "; ".join(_conflict_record(a) for a in own)
    judged = own[0].pair
    # App. D.2's rule, in the words of the page that shows it (no citation there).
    return (
        f"You judged {character_name(judged.character)} × {scenario_title(judged.scenario)} "
        f"yourself: {records}. Nobody arbitrates a pair they judged or were assigned to "
        "judge, in any round; another arbitrator decides it."
    )


# --- The reference-label audit team (App. D.4) ---------------------------------------------


@dataclass(frozen=True)
class InvolvementSource:
    """One kind of record of a person's construction work: ``model`` (app_label.Model),
    the user field, an optional filter, and how to describe one record."""

    label: str
    model: str
    user_field: str
    describe: tuple[str, ...]  # value paths joined into the record's description
    filters: tuple[tuple[str, object], ...] = ()
    prefix: str = ""  # put before the joined values ("run " before a run's number)


# Everything the platform records of a person's part in building the benchmark (DESIGN.md
# pipeline). App. D.4: the audit team "did not participate in benchmark construction", so
# every act that shaped what the benchmark contains counts, whoever did it and whether or not
# it was finished (issue #35):
#
# - profiles: drafting jobs launched, drafting prompt versions written, reviews, change
#   requests resolved, edits, freezes, any act in the review history;
# - scenarios: blueprints, versions, screening decisions, DIAMONDS ratings, re-assessment
#   proposals and the joint final ratings;
# - memories: quota weights and generation plans made, memory prompt versions written,
#   generation runs launched; the memory audit's settings, runs, review decisions, override
#   votes (every voter, not only the last), senior edits and any act in its history;
# - references: generation prompt versions written, candidate generation runs launched,
#   candidate texts cleaned or leak flags accepted, comparison pairs made or assigned,
#   comparison assignments (submitted or not) and judgments, arbitration decisions and
#   reopenings, references adopted or written;
# - MCQ items: assembly runs started, screening runs launched, item versions made in
#   assembly or item review, item review decisions.
#
# Not counted: importing the authors' release (loading others' work), exporting, and the
# evaluation of models on the finished benchmark.
INVOLVEMENT_SOURCES: tuple[InvolvementSource, ...] = (
    InvolvementSource(
        "profile review", "annotation.ProfileReview", "reviewer", ("case__character__key",)
    ),
    InvolvementSource(
        "profile change request resolved (profile adjudication)",
        "annotation.ChangeRequest",
        "resolved_by",
        ("review__case__character__key", "field"),
    ),
    InvolvementSource(
        "profile edit (profile adjudication)",
        "annotation.ProfileEdit",
        "editor",
        ("case__character__key",),
    ),
    InvolvementSource(
        "profile frozen (profile adjudication)",
        "annotation.ProfileReviewCase",
        "frozen_by",
        ("character__key",),
    ),
    InvolvementSource(
        "scenario screening decision (scenario review pass 1)",
        "annotation.ScreeningDecision",
        "reviewer",
        ("review__scenario__scenario_id",),
    ),
    InvolvementSource(
        "DIAMONDS rating (scenario review pass 2)",
        "annotation.DiamondsRating",
        "reviewer",
        ("review__scenario__scenario_id",),
    ),
    InvolvementSource(
        "joint DIAMONDS re-assessment (scenario review)",
        "annotation.FinalDiamondsRating",
        "recorded_by",
        ("review__scenario__scenario_id",),
    ),
    InvolvementSource(
        "scenario version written",
        "annotation.ScenarioVersion",
        "created_by",
        ("scenario__scenario_id", "number"),
    ),
    InvolvementSource(
        "scenario blueprint drafted", "annotation.ScenarioBlueprint", "created_by", ("title",)
    ),
    InvolvementSource(
        "comparison judgment (blinded three-candidate comparison)",
        "annotation.ComparisonJudgment",
        "assignment__annotator",
        ("assignment__pair__character__key", "assignment__pair__scenario__scenario_id"),
    ),
    InvolvementSource(
        "arbitration decision",
        "adjudication.ArbitrationDecision",
        "arbitrator",
        ("pair__character__key", "pair__scenario__scenario_id"),
    ),
    InvolvementSource(
        "arbitration decision reopened",
        "adjudication.ArbitrationDecision",
        "reopened_by",
        ("pair__character__key", "pair__scenario__scenario_id"),
    ),
    InvolvementSource(
        "item review decision (MCQ item review)",
        "adjudication.McqReviewDecision",
        "reviewer",
        ("item__question_id",),
    ),
    InvolvementSource(
        "MCQ item version made in assembly or item review",
        "adjudication.McqItemVersion",
        "created_by",
        ("item__question_id", "number"),
        filters=(("origin__in", ("assembly", "review")),),
    ),
    InvolvementSource(
        "memory audit review decision (confirm / false positive)",
        "audit.MemoryCase",
        "reviewer",
        ("memory__memory_id",),
    ),
    InvolvementSource(
        "memory edit (memory audit senior edit)",
        "audit.MemoryVersion",
        "author",
        ("memory__memory_id", "number"),
        filters=(("origin", "senior_edit"),),
    ),
    InvolvementSource(
        "memory audit override vote (false positive)",
        "audit.OverrideAgreement",
        "reviewer",
        ("case__memory__memory_id",),
    ),
    InvolvementSource("memory audit act (audit history)", "audit.AuditEvent", "actor", ("action",)),
    InvolvementSource(
        "memory audit run launched", "audit.AuditRun", "created_by", ("pk",), prefix="run "
    ),
    InvolvementSource(
        "memory audit settings written",
        "audit.AuditSettings",
        "created_by",
        ("number",),
        prefix="version ",
    ),
    InvolvementSource(
        "character drafting job launched",
        "annotation.DraftingJob",
        "created_by",
        ("pk",),
        prefix="job ",
    ),
    InvolvementSource(
        "character drafting prompt written",
        "annotation.DraftingPrompt",
        "created_by",
        ("number",),
        prefix="version ",
    ),
    InvolvementSource(
        "profile review act (review history)",
        "annotation.ReviewEvent",
        "actor",
        ("action",),
    ),
    InvolvementSource(
        "profile version frozen", "annotation.ProfileVersion", "frozen_by", ("character__key",)
    ),
    InvolvementSource(
        "joint DIAMONDS re-assessment proposal (scenario review)",
        "annotation.ReassessmentProposal",
        "proposed_by",
        ("review__scenario__scenario_id",),
    ),
    InvolvementSource(
        "memory quota weights written",
        "annotation.QuotaWeights",
        "created_by",
        ("number",),
        prefix="version ",
    ),
    InvolvementSource(
        "memory generation plan made", "annotation.MemoryPlan", "created_by", ("character__key",)
    ),
    InvolvementSource(
        "memory generation prompt written",
        "annotation.MemoryPromptVersion",
        "created_by",
        ("number",),
        prefix="version ",
    ),
    InvolvementSource(
        "memory generation run launched",
        "annotation.MemoryRun",
        "created_by",
        ("pk",),
        prefix="run ",
    ),
    InvolvementSource(
        "candidate generation prompt written",
        "annotation.PromptVersion",
        "created_by",
        ("stage", "number"),
    ),
    InvolvementSource(
        "candidate generation run launched",
        "annotation.GenerationRun",
        "created_by",
        ("pk",),
        prefix="run ",
    ),
    InvolvementSource(
        "candidate text cleaned (identity-leak screening)",
        "annotation.CandidateCleaning",
        "edited_by",
        ("candidate__character__key", "candidate__scenario__scenario_id"),
    ),
    InvolvementSource(
        "identity-leak flag accepted as a false positive",
        "annotation.LeakFlag",
        "resolved_by",
        ("candidate__character__key", "candidate__scenario__scenario_id"),
        filters=(("status", "accepted"),),
    ),
    InvolvementSource(
        "comparison pair made",
        "annotation.ComparisonPair",
        "created_by",
        ("character__key", "scenario__scenario_id"),
    ),
    InvolvementSource(
        "comparison annotators assigned",
        "annotation.PairAssignment",
        "assigned_by",
        ("pair__character__key", "pair__scenario__scenario_id"),
    ),
    InvolvementSource(
        "comparison assignment not submitted (blinded three-candidate comparison)",
        "annotation.PairAssignment",
        "annotator",
        ("pair__character__key", "pair__scenario__scenario_id"),
        filters=(("judgment__submitted_at__isnull", True),),
    ),
    InvolvementSource(
        "reference response adopted or written",
        "adjudication.ReferenceResponse",
        "arbitrator",
        ("character__key", "scenario__scenario_id"),
    ),
    InvolvementSource(
        "MCQ assembly run started",
        "adjudication.McqAssemblyRun",
        "started_by",
        ("pk",),
        prefix="run ",
    ),
    InvolvementSource(
        "MCQ screening run launched",
        "adjudication.McqScreeningRun",
        "created_by",
        ("pk",),
        prefix="run ",
    ),
)
# How many records of one kind a refusal names before it says "and n more".
RECORDS_NAMED = 5


@dataclass
class Involvement:
    label: str
    count: int
    records: list[str]


def construction_involvement(user_ids) -> dict[int, list[Involvement]]:
    """{user id: the kinds of construction record they appear in} for ``user_ids``; a
    user without any record is absent. One query per source."""
    user_ids = list(user_ids)
    found: dict[int, list[Involvement]] = {}
    if not user_ids:
        return found
    for source in INVOLVEMENT_SOURCES:
        model = apps.get_model(source.model)
        rows = (
            model.objects.filter(**{f"{source.user_field}__in": user_ids}, **dict(source.filters))
            .order_by("pk")
            .values_list(source.user_field, *source.describe)
        )
        per_user: dict[int, list[str]] = {}
        for user_id, *parts in rows:
            described = " ".join(str(p) for p in parts if p != "")
            per_user.setdefault(user_id, []).append(source.prefix + described)
        for user_id, records in per_user.items():
            unique = list(dict.fromkeys(records))
            found.setdefault(user_id, []).append(
                Involvement(source.label, len(records), unique[:RECORDS_NAMED])
            )
    return found


def describe_involvement(username: str, involvement: list[Involvement]) -> str:
    parts = []
    for inv in involvement:
        named = ", ".join(inv.records)
        more = inv.count - len(inv.records)
        extra = f" and {more} more" if more > 0 else ""
        parts.append(f"{inv.count} × {inv.label} ({named}{extra})")
    return f"{username} took part in construction: " + "; ".join(parts) + "."


def conflict_of_interest_problems(users) -> list[str]:
    """One message per person with a recorded part in construction, naming the records."""
    users = [u for u in users if u is not None]
    involvement = construction_involvement(u.pk for u in users)
    return [
        "Excluded (conflict of interest): " + describe_involvement(u.get_username(), found)
        for u in users
        if (found := involvement.get(u.pk))
    ]


def team_member_conflict(user) -> str | None:
    """Why ``user`` may not act in a label audit now, or None: a record of their own part
    in construction (App. D.4), named by ``describe_involvement``. A fixed number of
    queries (one per construction source)."""
    found = construction_involvement([user.pk]).get(user.pk)
    if not found:
        return None
    return (
        "Refused (conflict of interest): "
        + describe_involvement(user.get_username(), found)
        + " The audit team takes no part in benchmark construction (seed 000 App. D.4), "
        "so this act is refused; ask the admin to replace you on the audit."
    )
