"""Reads of the reference-label audit (seed 000 §2.4 last paragraph, App. D.4, Table 14).

Two kinds of reader live here and must not be mixed up:

- expert reads (``expert_*``) build plain dataclasses that hold the option labels and
  texts of the audited version and the expert's *own* selection, nothing else: no key,
  no option provenance, no item status, no other expert's selection (blinding);
- adjudicator and admin reads (``adjudication_page``, ``label_audit_outcomes``, ...)
  which see everything.

Every list is a fixed number of queries whatever the number of rows.
"""

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from django.apps import apps
from django.contrib.auth import get_user_model
from django.db.models import Count, Prefetch, Q
from django.urls import reverse

from adjudication.arbitration.models import OPTION_LABELS
from agreement import UndefinedStatisticError, constants, fleiss_kappa
from annotation.corpus.life_stages import BY_KEY as LIFE_STAGES
from annotation.corpus.models import ProfileVersion, Scenario
from audit.reference_labels.models import (
    LabelAudit,
    LabelAuditExpert,
    LabelAuditItem,
    LabelSelection,
)
from heartbench_site.base.roles import Role, user_roles

# --- Conflict of interest -----------------------------------------------------------------


@dataclass(frozen=True)
class InvolvementSource:
    """One kind of record of a person's construction work: ``model`` (app_label.Model),
    the user field, an optional filter, and how to describe one record."""

    label: str
    model: str
    user_field: str
    describe: tuple[str, ...]  # value paths joined into the record's description
    filters: tuple[tuple[str, object], ...] = ()


# Everything the platform records of a person's part in building the benchmark (DESIGN.md
# pipeline): profile review and adjudication, scenario review, blinded comparison,
# arbitration, item review, and the memory audit's manual review. App. D.4: the audit team
# "did not participate in benchmark construction".
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
            per_user.setdefault(user_id, []).append(" ".join(str(p) for p in parts if p != ""))
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


@dataclass
class Candidate:
    user: object
    roles: list[str]
    involvement: list[Involvement]

    @property
    def eligible(self) -> bool:
        return not self.involvement


def audit_team_candidates() -> list[Candidate]:
    """Every audit expert and audit adjudicator, with their construction records."""
    users = list(
        get_user_model()
        .objects.filter(
            groups__name__in=[Role.AUDIT_EXPERT.value, Role.AUDIT_ADJUDICATOR.value],
            is_active=True,
        )
        .distinct()
        .prefetch_related("groups")
        .order_by("username")
    )
    involvement = construction_involvement(u.pk for u in users)
    return [
        Candidate(
            user=u,
            roles=sorted(g.name for g in u.groups.all()),
            involvement=involvement.get(u.pk, []),
        )
        for u in users
    ]


# --- Audits -------------------------------------------------------------------------------


def label_audit_get(*, audit_id: int) -> LabelAudit | None:
    return (
        LabelAudit.objects.select_related("adjudicator", "created_by").filter(pk=audit_id).first()
    )


def is_expert(*, audit: LabelAudit, user) -> bool:
    return LabelAuditExpert.objects.filter(audit=audit, expert=user).exists()


def label_audit_list(*, user):
    """The audits ``user`` may see: admins all, adjudicators theirs, experts theirs."""
    held = user_roles(user)
    qs = LabelAudit.objects.select_related("adjudicator").annotate(
        item_count=Count("items", distinct=True)
    )
    if Role.ADMIN in held:
        return qs
    return qs.filter(Q(adjudicator=user) | Q(experts__expert=user)).distinct()


def label_audit_overview(*, audit: LabelAudit) -> dict:
    """Adjudicator/admin: items per status and each expert's progress. Three queries."""
    counts = dict.fromkeys(LabelAuditItem.Status.values, 0)
    for row in LabelAuditItem.objects.filter(audit=audit).values("status").annotate(n=Count("pk")):
        counts[row["status"]] = row["n"]
    submitted = dict(
        LabelSelection.objects.filter(audit_item__audit=audit, submitted_at__isnull=False)
        .values("expert_id")
        .annotate(n=Count("pk"))
        .values_list("expert_id", "n")
    )
    experts = [
        {"position": e.position, "user": e.expert, "submitted": submitted.get(e.expert_id, 0)}
        for e in LabelAuditExpert.objects.filter(audit=audit).select_related("expert")
    ]
    return {"counts": counts, "total": sum(counts.values()), "experts": experts}


def strata_table(*, audit: LabelAudit) -> list[dict]:
    """Per stratum of the frame: items available and items drawn, for the sample page."""
    report = audit.sample_report or {}
    drawn = Counter(
        LabelAuditItem.objects.filter(audit=audit).values_list("character_key", "stage")
    )
    rows = []
    for stratum, ids in sorted(report.get("frame", {}).items()):
        character, stage = stratum.split("|")
        rows.append(
            {
                "character": character,
                "stage": stage,
                "stage_label": LIFE_STAGES[stage].label if stage in LIFE_STAGES else stage,
                "available": len(ids),
                "drawn": drawn.get((character, stage), 0),
            }
        )
    return rows


# --- Expert reads (BLIND) -----------------------------------------------------------------


@dataclass(frozen=True)
class BlindOption:
    label: str
    content: str


@dataclass
class ExpertQueueRow:
    audit_item_id: int
    position: int
    question_id: str
    character_key: str
    stage_label: str
    state: str  # "submitted", "draft", "todo": the expert's own progress only


def expert_queue(*, audit: LabelAudit, expert) -> list[ExpertQueueRow]:
    """The expert's items in sample order with *their own* progress. Two queries."""
    own = {
        s.audit_item_id: s
        for s in LabelSelection.objects.filter(audit_item__audit=audit, expert=expert).only(
            "audit_item_id", "submitted_at", "choice", "note"
        )
    }
    rows = []
    for audit_item_id, position, question_id, character_key, stage in (
        LabelAuditItem.objects.filter(audit=audit)
        .order_by("position")
        .values_list("pk", "position", "item__question_id", "character_key", "stage")
    ):
        mine = own.get(audit_item_id)
        if mine is None:
            state = "todo"
        elif mine.submitted_at is not None:
            state = "submitted"
        else:
            state = "draft"
        stage_label = LIFE_STAGES[stage].label if stage in LIFE_STAGES else stage
        rows.append(
            ExpertQueueRow(audit_item_id, position, question_id, character_key, stage_label, state)
        )
    return rows


@dataclass
class ExpertItemPage:
    audit: LabelAudit
    audit_item_id: int
    position: int
    total: int
    question_id: str
    character_key: str
    stage_label: str
    profile: ProfileVersion | None
    scenario: Scenario
    options: list[BlindOption]
    choice: str
    note: str
    submitted: bool
    next_item_id: int | None
    done: int


def profile_for(character_id) -> ProfileVersion | None:
    """The frozen profile the experts built against, else the newest version."""
    versions = ProfileVersion.objects.filter(character_id=character_id)
    return versions.filter(frozen_at__isnull=False).order_by("-number").first() or (
        versions.order_by("-number").first()
    )


def expert_item_page(*, audit_item_id: int, expert) -> ExpertItemPage | None:
    """The item as a model sees it plus the construction context (App. D.4): the target
    character's profile, the scenario and the options in the item's fixed order. Only
    labels and texts of the options are copied out; ``None`` unless ``expert`` is one of
    the audit's experts."""
    row = (
        LabelAuditItem.objects.select_related("audit", "item_version", "item__scenario")
        .filter(pk=audit_item_id, audit__experts__expert=expert)
        .first()
    )
    if row is None:
        return None
    options = [
        BlindOption(o["label"], o["content"])
        for o in sorted(row.item_version.options, key=lambda o: o["label"])
    ]
    mine = LabelSelection.objects.filter(audit_item=row, expert=expert).first()
    queue = expert_queue(audit=row.audit, expert=expert)
    pending = [r for r in queue if r.state != "submitted" and r.audit_item_id != row.pk]
    later = [r for r in pending if r.position > row.position]
    next_row = (later or pending or [None])[0]
    return ExpertItemPage(
        audit=row.audit,
        audit_item_id=row.pk,
        position=row.position,
        total=len(queue),
        question_id=row.item.question_id,
        character_key=row.character_key,
        stage_label=LIFE_STAGES[row.stage].label if row.stage in LIFE_STAGES else row.stage,
        profile=profile_for(row.item.character_id),
        scenario=row.item.scenario,
        options=options,
        choice=mine.choice if mine else "",
        note=mine.note if mine else "",
        submitted=bool(mine and mine.submitted_at),
        next_item_id=next_row.audit_item_id if next_row else None,
        done=sum(1 for r in queue if r.state == "submitted"),
    )


def expert_next_item(*, audit: LabelAudit, expert) -> int | None:
    """Where the expert resumes: their first item not yet submitted."""
    for row in expert_queue(audit=audit, expert=expert):
        if row.state != "submitted":
            return row.audit_item_id
    return None


# --- Adjudicator reads --------------------------------------------------------------------


@dataclass
class AdjudicationPage:
    audit_item: LabelAuditItem
    profile: ProfileVersion | None
    options: list[dict]  # label, content, is_key, chosen_by (expert positions)
    selections: list[dict]  # position, username, choice, note, on_key
    current_version: int
    adjudication: object | None


def adjudication_page(*, audit_item_id: int) -> AdjudicationPage | None:
    row = (
        LabelAuditItem.objects.select_related(
            "audit", "item_version", "item__scenario", "item", "adjudication__adjudicator"
        )
        .filter(pk=audit_item_id)
        .first()
    )
    if row is None:
        return None
    positions = dict(
        LabelAuditExpert.objects.filter(audit=row.audit_id).values_list("expert_id", "position")
    )
    submitted = sorted(
        LabelSelection.objects.filter(audit_item=row, submitted_at__isnull=False).select_related(
            "expert"
        ),
        key=lambda s: positions.get(s.expert_id, 99),
    )
    key = row.item_version.correct_answer
    selections = [
        {
            "position": positions.get(s.expert_id),
            "username": s.expert.get_username(),
            "choice": s.choice,
            "note": s.note,
            "on_key": s.choice == key,
        }
        for s in submitted
    ]
    options = [
        {
            "label": o["label"],
            "content": o["content"],
            "is_key": o["label"] == key,
            "chosen_by": [s["position"] for s in selections if s["choice"] == o["label"]],
        }
        for o in sorted(row.item_version.options, key=lambda o: o["label"])
    ]
    adjudication = getattr(row, "adjudication", None)
    return AdjudicationPage(
        audit_item=row,
        profile=profile_for(row.item.character_id),
        options=options,
        selections=selections,
        current_version=row.item.version,
        adjudication=adjudication,
    )


def adjudication_queue(*, audit: LabelAudit):
    """Items without complete agreement, awaiting or past adjudication. Two queries."""
    return (
        LabelAuditItem.objects.filter(
            audit=audit,
            status__in=[LabelAuditItem.Status.ADJUDICATING, LabelAuditItem.Status.RESOLVED],
        )
        .select_related("item")
        .prefetch_related(
            Prefetch(
                "selections",
                queryset=LabelSelection.objects.filter(submitted_at__isnull=False).order_by(
                    "expert_id"
                ),
            )
        )
        .order_by("status", "position")
    )


# --- Outcomes (Table 14) ------------------------------------------------------------------

OUTCOME_ROWS = (
    ("sampled", "Items in the sample"),
    ("agree_3", "All three experts selected the key (3/3)"),
    ("agree_2", "Two of three selected the key (2/3)"),
    ("agree_1", "One of three selected the key (1/3)"),
    ("agree_0", "None selected the key (0/3)"),
    ("awaiting_selection", "Awaiting the experts' selections"),
    ("adjudicated_entered", "Entered adjudication"),
    ("usable_as_is", "Adjudicated: usable as-is"),
    ("edited", "Adjudicated: wording edited"),
    ("key_changed", "Adjudicated: key changed"),
    ("removed", "Adjudicated: removed"),
    ("awaiting_adjudication", "Awaiting the adjudicator"),
    ("approved", "Approved with the existing key, unchanged (3/3 + usable as-is)"),
)


@dataclass
class LabelOutcomes:
    audit: LabelAudit
    counts: dict
    rows: list[dict]  # key, label, n, percent (of the sample)
    kappa: float | None = None
    kappa_ci: tuple[float, float] | None = None
    kappa_items: int = 0
    kappa_note: str = ""
    n_boot: int = 0
    per_item: list[dict] = field(default_factory=list)


def outcome_counts(items: list[dict]) -> dict:
    """Table 14's counts from per-item dicts with ``status``, ``n_on_key``, ``outcome``."""
    counts = dict.fromkeys((k for k, _ in OUTCOME_ROWS), 0)
    counts["sampled"] = len(items)
    for it in items:
        if it["n_on_key"] is None:
            counts["awaiting_selection"] += 1
            continue
        counts[f"agree_{it['n_on_key']}"] += 1
        if it["n_on_key"] < 3:
            counts["adjudicated_entered"] += 1
        outcome = it["outcome"]
        if outcome in ("usable_as_is", "edited", "key_changed", "removed"):
            counts[outcome] += 1
        elif it["status"] == LabelAuditItem.Status.ADJUDICATING:
            counts["awaiting_adjudication"] += 1
    counts["approved"] = counts["agree_3"] + counts["usable_as_is"]
    return counts


def label_audit_outcomes(*, audit: LabelAudit, n_boot: int = constants.N_BOOTSTRAP):
    """Table 14 over the audit's sample, and Fleiss' κ of the three experts over the four
    options (items all three have submitted), with a percentile bootstrap CI over items
    seeded with the audit's recorded seed. Three queries."""
    positions = dict(
        LabelAuditExpert.objects.filter(audit=audit).values_list("expert_id", "position")
    )
    items = list(
        LabelAuditItem.objects.filter(audit=audit)
        .order_by("position")
        .values(
            "pk",
            "position",
            "item__question_id",
            "character_key",
            "stage",
            "status",
            "key_at_audit",
            "n_on_key",
            "outcome",
        )
    )
    choices: dict[int, dict[int, str]] = {}
    for audit_item_id, expert_id, choice in LabelSelection.objects.filter(
        audit_item__audit=audit, submitted_at__isnull=False
    ).values_list("audit_item_id", "expert_id", "choice"):
        choices.setdefault(audit_item_id, {})[positions.get(expert_id, 0)] = choice
    counts = outcome_counts(items)
    size = counts["sampled"]
    rows = [
        {
            "key": key,
            "label": label,
            "n": counts[key],
            "percent": 100 * counts[key] / size if size else 0.0,
        }
        for key, label in OUTCOME_ROWS
    ]
    per_item = []
    ratings = []
    for it in items:
        chosen = choices.get(it["pk"], {})
        row = {**it, "choices": [chosen.get(p, "") for p in sorted(set(positions.values()))]}
        per_item.append(row)
        if len(chosen) == len(positions) and positions:
            ratings.append([OPTION_LABELS.index(c) for _, c in sorted(chosen.items())])
    result = LabelOutcomes(
        audit=audit, counts=counts, rows=rows, per_item=per_item, kappa_items=len(ratings)
    )
    if not ratings:
        result.kappa_note = "No item has all three selections yet."
        return result
    boot = n_boot if len(ratings) > 1 else 0
    try:
        estimate = fleiss_kappa(
            np.array(ratings),
            n_categories=len(OPTION_LABELS),
            n_boot=boot,
            seed=audit.seed,
            ci_level=constants.CI_LEVEL,
        )
    except UndefinedStatisticError as error:
        result.kappa_note = str(error)
        return result
    result.kappa = estimate.estimate
    result.n_boot = boot
    if estimate.ci_low is not None:
        result.kappa_ci = (estimate.ci_low, estimate.ci_high)
    if estimate.n_undefined:
        result.kappa_note = (
            f"{estimate.n_undefined} of {boot} resamples had every selection in one option "
            "(κ undefined) and are left out of the interval."
        )
    return result


def outcome_bars(outcomes: LabelOutcomes) -> list[tuple[str, int, float]]:
    """(label, n, percent) for the inline SVG bars of the outcome page."""
    short = {
        "agree_3": "3/3 on key",
        "agree_2": "2/3 on key",
        "agree_1": "1/3 on key",
        "agree_0": "0/3 on key",
        "usable_as_is": "usable as-is",
        "edited": "edited",
        "key_changed": "key changed",
        "removed": "removed",
    }
    return [(short[r["key"]], r["n"], r["percent"]) for r in outcomes.rows if r["key"] in short]


# --- Home cards ---------------------------------------------------------------------------


def label_audit_home_queues(*, user) -> dict:
    """The home cards of the label audit, for the roles ``user`` holds only; one query
    each. An expert's count is their own unsubmitted items, nothing about the others."""
    held = user_roles(user)
    cards = {}
    if Role.AUDIT_EXPERT in held:
        count = (
            LabelAuditItem.objects.filter(
                audit__status=LabelAudit.Status.SELECTING, audit__experts__expert=user
            )
            .exclude(selections__expert=user, selections__submitted_at__isnull=False)
            .count()
        )
        cards["label_audit"] = {
            "count": count,
            "url": reverse("audit:labels:home"),
            "label": f"{count} item(s) awaiting your blind selection",
        }
    if Role.AUDIT_ADJUDICATOR in held:
        count = LabelAuditItem.objects.filter(
            audit__adjudicator=user, status=LabelAuditItem.Status.ADJUDICATING
        ).count()
        cards["label_audit_adjudication"] = {
            "count": count,
            "url": reverse("audit:labels:home"),
            "label": f"{count} item(s) without complete agreement awaiting your decision",
        }
    if Role.ADMIN in held:
        count = LabelAudit.objects.filter(status=LabelAudit.Status.SELECTING).count()
        cards["label_audit_admin"] = {
            "count": count,
            "url": reverse("audit:labels:home"),
            "label": f"{count} reference-label audit(s) in progress",
        }
    return cards


# --- The construction export --------------------------------------------------------------


def label_audit_chain_section(items: list) -> dict:
    """``adjudication.export.chain`` section "label_audit": each audited item's record
    (selections, adjudication, outcome), sorted, for the construction export."""
    ids = [i.pk for i in items]
    rows = list(
        LabelAuditItem.objects.filter(item_id__in=ids)
        .select_related("audit", "item_version", "adjudication__adjudicator")
        .prefetch_related(
            Prefetch("selections", queryset=LabelSelection.objects.select_related("expert")),
            Prefetch("audit__experts", queryset=LabelAuditExpert.objects.all()),
        )
        .order_by("item_id", "audit_id")
    )
    out: dict[int, list] = {}
    for row in rows:
        positions = {e.expert_id: e.position for e in row.audit.experts.all()}
        adjudication = getattr(row, "adjudication", None)
        out.setdefault(row.item_id, []).append(
            {
                "audit": row.audit_id,
                "seed": row.audit.seed,
                "items_per_stratum": row.audit.items_per_stratum,
                "stratum": [row.character_key, row.stage],
                "version_audited": row.item_version.number,
                "key_at_audit": row.key_at_audit,
                "selections": sorted(
                    (
                        {
                            "expert": positions.get(s.expert_id),
                            "choice": s.choice,
                            "note": s.note,
                        }
                        for s in row.selections.all()
                        if s.submitted_at is not None
                    ),
                    key=lambda s: s["expert"] or 0,
                ),
                "experts_on_key": row.n_on_key,
                "status": row.status,
                "outcome": row.outcome,
                "adjudication": None
                if adjudication is None
                else {
                    "decision": adjudication.decision,
                    "note": adjudication.note,
                    "new_key": adjudication.new_key,
                    "adjudicator": adjudication.adjudicator.get_username(),
                    "result_version": adjudication.result_version.number
                    if adjudication.result_version_id
                    else None,
                },
            }
        )
    return out
