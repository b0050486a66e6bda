"""Reads of the memory quality audit. Every page's reads are a fixed number of queries,
whatever the number of rows (select_related / prefetch_related / aggregates)."""

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from django.apps import apps
from django.db.models import Count, Prefetch, Q, Sum, prefetch_related_objects
from django.urls import reverse

from annotation.corpus.models import Character, Memory, ProfileVersion
from audit.memory_quality import criteria, repair
from audit.memory_quality.models import (
    MEMORY_TEXT_FIELDS,
    AuditCall,
    AuditEvent,
    AuditRun,
    AuditSettings,
    AuditUnit,
    MemoryCase,
    MemoryFlag,
    MemoryVersion,
    OverrideAgreement,
    RepairAttempt,
    RepairDefect,
)
from core.display import memory_field_label
from core.plurals import counted
from core.roles import Role, user_roles
from core.text_diff import word_diff

TEXT_COLUMNS = (
    "memory_id",
    "character__key",
    "event_age",
    "context",
    "content_summary",
    "content_full",
    "emotion_intensity",
)


def memory_texts(queryset) -> list[criteria.MemoryText]:
    """Memory rows → the pure core's input, chronological within each character."""
    rows = queryset.order_by("character__key", "event_age", "sequence").values_list(*TEXT_COLUMNS)
    return [criteria.MemoryText(*row) for row in rows]


def window_texts(*, memory: Memory, config: criteria.AuditConfig) -> list[criteria.MemoryText]:
    """The memory's character's memories in its criterion-4 window (itself included)."""
    window = next(
        (w for w in config.windows if w.first_age <= memory.event_age <= w.last_age), None
    )
    qs = Memory.objects.filter(character_id=memory.character_id)
    if window is None:
        qs = qs.filter(pk=memory.pk)
    else:
        qs = qs.filter(event_age__gte=window.first_age, event_age__lte=window.last_age)
    return memory_texts(qs)


def repair_profile(*, character_id: int) -> dict | None:
    """The character's full specification for a repair (App. B.1, B.5 layer 1): its
    newest frozen profile version (the one memory generation uses), else its newest
    version, marked not frozen; None when it has no version."""
    versions = ProfileVersion.objects.filter(character_id=character_id).select_related("character")
    version = (
        versions.filter(frozen_at__isnull=False).order_by("-number").first()
        or versions.order_by("-number").first()
    )
    if version is None:
        return None
    return {
        "character": version.character.key,
        "version": version.number,
        "frozen": version.is_frozen,
        "construction_label": version.construction_label,
        "big_five": version.big_five,
        "occupation": version.occupation,
        "description": version.description,
        "self_value_logic": version.self_value_logic,
        "core_patterns": list(version.core_patterns),
    }


def generation_prompt(*, memory_pk: int) -> tuple[str, str] | None:
    """The prompt the memory was generated with, ``(system, user)``, as its generation
    call sent it (App. B.6: a repair instruction is "appended to the original generation
    prompt"); None for a memory not generated on the platform (an imported corpus) or
    whose call record is gone.

    The memory's call is the one whose answer was stored; when it was a later round of
    the slot (an answer refused by the semantic checks is sent back with its problems),
    its user prompt carries that feedback, so the prompt is read from the slot's first
    round at or before it. Memory generation is a layer above the audit: its records are
    read here by model label (as ``core.conflicts`` does), so the audit imports no
    later stage."""
    generated = (
        apps.get_model("annotation", "GeneratedMemory")
        .objects.filter(memory_id=memory_pk)
        .values("batch_id", "slot", "call_id")
        .first()
    )
    if generated is None or generated["call_id"] is None:
        return None
    calls = apps.get_model("annotation", "MemoryCallRecord").objects.filter(
        batch_id=generated["batch_id"], slot=generated["slot"], pk__lte=generated["call_id"]
    )
    request = (
        calls.filter(details__semantic_round=1).order_by("-pk").values_list("request", flat=True)
    ).first()
    if request is None:
        request = calls.filter(pk=generated["call_id"]).values_list("request", flat=True).first()
    return repair.stored_prompt(request)


def audit_settings_latest() -> AuditSettings | None:
    return AuditSettings.objects.order_by("-number").first()


def audit_settings_versions() -> list[AuditSettings]:
    return list(AuditSettings.objects.select_related("created_by").order_by("-number"))


def audit_run_list():
    return (
        AuditRun.objects.select_related("settings_version", "created_by")
        .annotate(
            open_cases=Count("cases", filter=Q(cases__status__in=MemoryCase.OPEN)),
            case_count=Count("cases"),
        )
        .order_by("-created_at", "-pk")
    )  # an aggregate drops Meta.ordering


def audit_run_get(*, run_id: int) -> AuditRun | None:
    return AuditRun.objects.select_related("settings_version").filter(pk=run_id).first()


def audit_unit_counts(*, run: AuditRun) -> dict:
    """The run's characters per unit state, their LLM tokens and cost, and the failed
    ones with their reasons."""
    units = AuditUnit.objects.filter(run=run)
    counts = dict(units.values_list("status").annotate(n=Count("pk")).order_by())
    totals = units.aggregate(
        tokens_in=Sum("tokens_in"), tokens_out=Sum("tokens_out"), cost_usd=Sum("cost_usd")
    )
    return {
        "total": sum(counts.values()),
        **{status: counts.get(status, 0) for status in AuditUnit.Status.values},
        "tokens_in": totals["tokens_in"] or 0,
        "tokens_out": totals["tokens_out"] or 0,
        "cost_usd": totals["cost_usd"] or 0,
        "calls": AuditCall.objects.filter(run=run).count(),
        "failures": list(
            units.filter(status=AuditUnit.Status.FAILED)
            .select_related("character")
            .order_by("character__key")
        ),
    }


# --- The queues -------------------------------------------------------------------------


def audit_home_queues(*, user) -> dict:
    """The home cards of the audit, for the roles ``user`` holds only: one query each."""
    held = user_roles(user)
    cards = {}
    if Role.MEMORY_REVIEWER in held:
        count = MemoryCase.objects.filter(status=MemoryCase.Status.REVIEW).count()
        cards["memory_audit"] = {
            "count": count,
            "url": reverse("audit:queue") + "?status=review",
            "label": f"{counted(count, 'flagged memory', 'flagged memories')} awaiting your review",
        }
    if Role.ARBITRATOR in held:
        count = MemoryCase.objects.filter(status=MemoryCase.Status.SENIOR).count()
        cards["memory_senior_edit"] = {
            "count": count,
            "url": reverse("audit:queue") + "?status=senior",
            "label": f"{counted(count, 'confirmed memory defect')} awaiting your edit",
        }
    return cards


def default_queue_status(*, user) -> str:
    held = user_roles(user)
    if Role.MEMORY_REVIEWER in held:
        return MemoryCase.Status.REVIEW
    if Role.ARBITRATOR in held:
        return MemoryCase.Status.SENIOR
    return MemoryCase.Status.REVIEW


def case_queue(*, status: str):
    """Cases at one status in queue order, as a queryset with the memory's short fields
    only (its full texts are deferred). Take a page of it first, then ``queue_rows``
    loads that page's current flags and repair attempts: nothing is counted or joined
    across every open case (issue #34)."""
    return (
        MemoryCase.objects.filter(status=status)
        .select_related("memory", "character")
        .defer(*QUEUE_DEFERRED)
        .order_by("character__key", "memory__event_age", "memory__sequence", "pk")
    )


#: The columns the queue never shows: the case's long fields and the memory's texts.
QUEUE_DEFERRED = (
    "initial_criteria",
    "decision_reason",
    "memory__context",
    "memory__content_full",
    "memory__triggers",
    "memory__psych_conclusion",
    "memory__behavior_policy",
    "memory__relevance_tags",
)


def queue_rows(cases) -> list[MemoryCase]:
    """A page of ``case_queue`` with each case's ``current_flags`` and ``attempt_count``:
    two queries for the page, whatever the number of open cases."""
    cases = list(cases)
    current = MemoryFlag.objects.filter(current=True).only(
        "case_id", "criterion", "field", "detail"
    )
    prefetch_related_objects(cases, Prefetch("flags", queryset=current, to_attr="current_flags"))
    attempts = dict(
        RepairAttempt.objects.filter(case__in=cases)
        .order_by()
        .values_list("case")
        .annotate(n=Count("pk"))
    )
    for case in cases:
        case.attempt_count = attempts.get(case.pk, 0)
    return cases


def case_status_counts() -> dict[str, int]:
    rows = MemoryCase.objects.order_by().values("status").annotate(n=Count("pk"))
    counts = dict.fromkeys(MemoryCase.Status.values, 0)
    counts.update({row["status"]: row["n"] for row in rows})
    return counts


# --- One case -----------------------------------------------------------------------------


@dataclass
class HighlightedField:
    name: str
    text: str
    segments: list[tuple[str, bool, str]]  # (text, is evidence, criteria label)
    flagged: bool


def highlight(text: str, spans: list[dict]) -> list[tuple[str, bool, str]]:
    """Split ``text`` into plain and evidence segments; overlapping spans merge."""
    marks = sorted((s["start"], s["end"], s.get("label", "")) for s in spans)
    out: list[tuple[str, bool, str]] = []
    pos = 0
    for start, end, label in marks:
        start = max(start, pos)
        if end <= start:
            continue
        if start > pos:
            out.append((text[pos:start], False, ""))
        out.append((text[start:end], True, label))
        pos = end
    if pos < len(text):
        out.append((text[pos:], False, ""))
    return out


@dataclass
class CasePage:
    case: MemoryCase
    memory: Memory
    current_flags: list[MemoryFlag]
    fields: list[HighlightedField]
    attempts: list[RepairAttempt]
    versions: list[MemoryVersion]
    flag_history: list[MemoryFlag]
    last_edit_diff: list[dict] = field(default_factory=list)
    # Each defect with its own attempts (App. B.6: up to three per defect).
    defects: list[RepairDefect] = field(default_factory=list)
    attempt_limit: int = 0
    # The false-positive override: who agreed, the team's size, how many more must agree.
    agreements: list[OverrideAgreement] = field(default_factory=list)
    team_size: int = 0
    agreements_needed: int = 0
    # The re-audits of the senior expert's edits, newest last.
    edit_reaudits: list[MemoryVersion] = field(default_factory=list)
    # The senior's ways forward when the re-audit keeps flagging the edit: why each is
    # not open now ("" when it is), and the steps taken so far (audit events).
    reaudit_blocker: str = ""
    team_blocker: str = ""
    way_forward_steps: list[AuditEvent] = field(default_factory=list)


def case_page(*, case_id: int, team_size: int = 0) -> CasePage | None:
    case = (
        MemoryCase.objects.select_related(
            "memory", "character", "run__settings_version", "reviewer"
        )
        .prefetch_related(
            Prefetch("flags", queryset=MemoryFlag.objects.order_by("pk"), to_attr="all_flags"),
            Prefetch(
                "attempts",
                queryset=RepairAttempt.objects.select_related("fact_check").order_by("number"),
            ),
            Prefetch("defects", queryset=RepairDefect.objects.order_by("criterion", "field")),
            Prefetch(
                "agreements",
                queryset=OverrideAgreement.objects.select_related("reviewer").order_by(
                    "created_at", "pk"
                ),
            ),
        )
        .filter(pk=case_id)
        .first()
    )
    if case is None:
        return None
    memory = case.memory
    versions = list(
        MemoryVersion.objects.filter(memory=memory).select_related("author").order_by("number")
    )
    current = [f for f in case.all_flags if f.current]
    by_field = defaultdict(list)
    for flag in current:
        for span in flag.spans:
            by_field[span["field"]].append({**span, "label": flag.get_criterion_display()})
    flagged_fields = {f.field for f in current}
    fields = [
        HighlightedField(
            name,
            getattr(memory, name),
            highlight(getattr(memory, name), by_field[name]),
            name in flagged_fields,
        )
        for name in MEMORY_TEXT_FIELDS
    ]
    last_edit = next(
        (v for v in reversed(versions) if v.origin == MemoryVersion.Origin.SENIOR_EDIT), None
    )
    diff = []
    if last_edit is not None:
        before = next(v for v in versions if v.number == last_edit.number - 1)
        diff = version_diff(before.fields, last_edit.fields)
    attempts = list(case.attempts.all())
    defects = list(case.defects.all())
    for defect in defects:
        defect.attempt_list = [a for a in attempts if a.defect_id == defect.pk]
    agreements = [a for a in case.agreements.all() if a.review_round == case.review_round]
    reaudit_blocker, team_blocker = senior_way_forward(case, versions=versions)
    return CasePage(
        case=case,
        memory=memory,
        current_flags=current,
        fields=fields,
        attempts=attempts,
        versions=versions,
        flag_history=case.all_flags,
        last_edit_diff=diff,
        defects=defects,
        attempt_limit=case.run.settings_version.max_repair_attempts,
        agreements=agreements,
        team_size=team_size,
        agreements_needed=max(team_size - len(agreements), 0),
        edit_reaudits=[
            v
            for v in versions
            if v.origin == MemoryVersion.Origin.SENIOR_EDIT and v.case_id == case.pk
        ],
        reaudit_blocker=reaudit_blocker,
        team_blocker=team_blocker,
        way_forward_steps=list(
            AuditEvent.objects.filter(case=case, action__in=WAY_FORWARD_ACTIONS)
            .select_related("actor")
            .order_by("created_at", "pk")
        ),
    )


WAY_FORWARD_ACTIONS = ("senior_reaudit", "senior_asked_team")


def last_senior_edit(case: MemoryCase, versions=None) -> MemoryVersion | None:
    if versions is not None:
        edits = [
            v
            for v in versions
            if v.origin == MemoryVersion.Origin.SENIOR_EDIT and v.case_id == case.pk
        ]
        return edits[-1] if edits else None
    return case.versions.filter(origin=MemoryVersion.Origin.SENIOR_EDIT).order_by("-number").first()


def senior_way_forward(case: MemoryCase, *, versions=None) -> tuple[str, str]:
    """Why the senior cannot now (1) re-audit their edit as it stands, (2) send it to the
    reviewing team as a false positive; "" where they can. Both need an edit of theirs
    that the re-audit flagged and that no reviewer has judged since (a defect a reviewer
    confirmed is cleared by an edit, never by reading the confirmed text again); the team
    takes only LLM-classifier flags (App. B.6: "override a false-positive LLM flag"); a
    pattern flag names the text that matches, which an edit clears."""
    if case.status != MemoryCase.Status.SENIOR:
        closed = f"This memory is at “{case.get_status_display()}”, not with the senior expert."
        return closed, closed
    last = last_senior_edit(case, versions)
    if last is None:
        first = (
            "A reviewer confirmed this defect: edit the memory first. A re-audit, or the "
            "team's false-positive agreement, is for an edit the re-audit keeps flagging."
        )
        return first, first
    if case.decided_at is not None and case.decided_at > last.created_at:
        judged = "The reviewing team confirmed the defect in this edit: edit the memory again."
        return judged, judged
    flags = getattr(case, "all_flags", None)
    current = (
        [f for f in flags if f.current]
        if flags is not None
        else list(case.flags.filter(current=True))
    )
    if not current:
        return "", "Nothing is flagged."
    if any(f.source != MemoryFlag.Source.CLASSIFIER for f in current):
        return "", (
            "The pattern checks still flag the edit (the highlighted text matches a listed "
            "phrase, or repeats another memory): edit it. Only a flag of the LLM classifier "
            "goes to the reviewing team as a false positive (App. B.6)."
        )
    return "", ""


def version_diff(before: dict, after: dict) -> list[dict]:
    """Field-level word diffs between two versions' fields, changed fields only."""
    return [
        {
            "field": name,
            "label": memory_field_label(name),
            "ops": word_diff(before[name], after[name]),
        }
        for name in MEMORY_TEXT_FIELDS
        if before.get(name) != after.get(name)
    ]


# --- Outcomes (seed 000 §2.2 Stage 3 / App. B.6 "Human review and audit outcomes") ------

OUTCOME_COLUMNS = (
    ("memories", "Memories audited"),
    ("passed_initial", "Passed the initial audit"),
    ("passed_after_rewriting", "Passed after automated rewriting"),
    ("escalated", "Escalated to manual review"),
    ("revised_by_senior", "Revised by the senior expert"),
    ("false_positive", "Accepted as false positives"),
    ("open", "Still open"),
)


@dataclass
class Outcomes:
    run: AuditRun
    rows: list[dict]
    total: dict
    criteria_rows: list[dict]


def audit_outcomes(*, run: AuditRun) -> Outcomes:
    """Per character and overall; flags per criterion of the initial audit. Two queries."""
    per_character = run.summary.get("per_character", {})
    cases = (
        MemoryCase.objects.filter(run=run)
        .values("character__key", "status", "escalated")
        .annotate(n=Count("pk"))
    )
    tallies: dict[str, Counter] = defaultdict(Counter)
    for row in cases:
        tally = tallies[row["character__key"]]
        tally["flagged"] += row["n"]
        status = row["status"]
        if status == MemoryCase.Status.REPAIRED:
            tally["passed_after_rewriting"] += row["n"]
        elif status == MemoryCase.Status.REVISED:
            tally["revised_by_senior"] += row["n"]
        elif status == MemoryCase.Status.FALSE_POSITIVE:
            tally["false_positive"] += row["n"]
        else:
            tally["open"] += row["n"]
        if row["escalated"]:
            tally["escalated"] += row["n"]
    rows = []
    for key in sorted(set(per_character) | set(tallies)):
        tally = tallies[key]
        memories = int(per_character.get(key, 0))
        rows.append(
            {
                "character": key,
                "memories": memories,
                "passed_initial": memories - tally["flagged"],
                **{name: tally[name] for name, _ in OUTCOME_COLUMNS[2:]},
            }
        )
    total = {name: sum(r[name] for r in rows) for name, _ in OUTCOME_COLUMNS}
    flag_rows = (
        MemoryFlag.objects.filter(case__run=run, audit_pass="initial")
        .values("criterion")
        .annotate(flags=Count("pk"), memories=Count("case", distinct=True))
    )
    found = {row["criterion"]: row for row in flag_rows}
    criteria_rows = [
        {
            "criterion": number,
            "label": label,
            "flags": found.get(number, {}).get("flags", 0),
            "memories": found.get(number, {}).get("memories", 0),
        }
        for number, label in criteria.CRITERIA.items()
    ]
    return Outcomes(run=run, rows=rows, total=total, criteria_rows=criteria_rows)


def character_keys() -> list[str]:
    return list(Character.objects.order_by("key").values_list("key", flat=True))


def classifier_summary(*, run: AuditRun) -> list[dict]:
    """The LLM classifier's verdicts per criterion, kept apart from the pattern result."""
    from audit.memory_quality.models import ClassifierResult

    rows = (
        ClassifierResult.objects.filter(run=run)
        .values("criterion", "verdict")
        .annotate(n=Count("pk"))
        .order_by("criterion", "verdict")
    )
    return list(rows)
