"""Reads of the reference-label audit (seed 000 §2.4 last paragraph, App. D.4, Table 14)
that are neither an expert's page nor an adjudicator's: the audits a person sees, their
progress and strata, the home cards and the construction export's section.

The other readers live beside this module and must not be mixed up:

- ``expert_pages``: an expert's blind reads, plain dataclasses holding the option labels
  and texts of the audited version and the expert's *own* selection, nothing else: no
  key, no option provenance, no item status, no other expert's selection (blinding);
- ``adjudicator_pages`` and ``outcomes`` (Table 14): the adjudicator's and admin's reads,
  which see everything;
- ``core.conflicts``: the conflict-of-interest rules (App. D.2, D.4) this module's
  conflict reads call.

Every list is a fixed number of queries whatever the number of rows.
"""

from collections import Counter
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.db.models import Count, Prefetch, Q
from django.urls import reverse

from annotation.comparison.models import ComparisonPair
from annotation.corpus.models import ProfileVersion
from audit.reference_labels.models import (
    LabelAudit,
    LabelAuditExpert,
    LabelAuditItem,
    LabelSelection,
)
from core.conflicts import Involvement, arbitration_conflict_rows, construction_involvement
from core.life_stages import BY_KEY as LIFE_STAGES
from core.plurals import counted
from core.roles import Role, user_roles

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
    return {
        "counts": counts,
        # The same counts as the page names them ("Awaiting the adjudicator").
        "count_rows": [(LabelAuditItem.Status(k).label, n) for k, n in counts.items()],
        "total": sum(counts.values()),
        "experts": experts,
    }


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


def profile_for(character_id) -> ProfileVersion | None:
    """The frozen profile the experts built against, else the newest version."""
    versions = ProfileVersion.objects.filter(character_id=character_id)
    return versions.filter(frozen_at__isnull=False).order_by("-number").first() or (
        versions.order_by("-number").first()
    )


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
            "label": f"{counted(count, 'item')} awaiting your blind selection",
        }
    if Role.AUDIT_ADJUDICATOR in held:
        count = LabelAuditItem.objects.filter(
            audit__adjudicator=user, status=LabelAuditItem.Status.ADJUDICATING
        ).count()
        cards["label_audit_adjudication"] = {
            "count": count,
            "url": reverse("audit:labels:home"),
            "label": f"{counted(count, 'item')} without complete agreement awaiting your decision",
        }
    if Role.ADMIN in held:
        count = LabelAudit.objects.filter(status=LabelAudit.Status.SELECTING).count()
        cards["label_audit_admin"] = {
            "count": count,
            "url": reverse("audit:labels:home"),
            "label": f"{counted(count, 'reference-label audit')} in progress",
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


# --- Conflicts of interest: the audit team's candidates and the admin's /conflicts/ page ---
# The services refuse these acts at the moment of the act (core.conflicts); these reads
# show them before anyone tries. A fixed number of queries each.


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


@dataclass
class MemberConflict:
    user: object
    role: str  # "expert" or "adjudicator"
    involvement: list[Involvement]


@dataclass
class AuditConflicts:
    audit: LabelAudit
    members: list[MemberConflict] = field(default_factory=list)


@dataclass
class PairConflicts:
    pair: ComparisonPair
    arbitrators: list[tuple[object, list[str]]] = field(default_factory=list)


def label_audit_conflicts() -> list[AuditConflicts]:
    """Every open label audit with its team members who have a construction record now."""
    audits = list(
        LabelAudit.objects.exclude(status=LabelAudit.Status.COMPLETE)
        .select_related("adjudicator")
        .order_by("pk")
    )
    experts = list(
        LabelAuditExpert.objects.filter(audit__in=audits)
        .select_related("expert")
        .order_by("audit", "position")
    )
    user_ids = {a.adjudicator_id for a in audits} | {e.expert_id for e in experts}
    involvement = construction_involvement(user_ids)
    by_audit = {a.pk: AuditConflicts(audit=a) for a in audits}
    for e in experts:
        if e.expert_id in involvement:
            by_audit[e.audit_id].members.append(
                MemberConflict(e.expert, "expert", involvement[e.expert_id])
            )
    for a in audits:
        if a.adjudicator_id in involvement:
            by_audit[a.pk].members.append(
                MemberConflict(a.adjudicator, "adjudicator", involvement[a.adjudicator_id])
            )
    return list(by_audit.values())


def escalated_pair_conflicts() -> list[PairConflicts]:
    """Every pair awaiting arbitration with the arbitrators who judged (or were assigned)
    any round of it."""
    pairs = list(
        ComparisonPair.objects.filter(status=ComparisonPair.Status.ESCALATED)
        .select_related("character", "scenario")
        .order_by("character__key", "scenario__scenario_id", "round")
    )
    arbitrators = list(
        get_user_model()
        .objects.filter(groups__name=Role.ARBITRATOR.value, is_active=True)
        .distinct()
        .order_by("username")
    )
    records = arbitration_conflict_rows(pairs, arbitrators)
    result = []
    for pair in pairs:
        row = PairConflicts(pair=pair)
        for user in arbitrators:
            named = records.get((pair.character_id, pair.scenario_id, user.pk))
            if named:
                row.arbitrators.append((user, named))
        result.append(row)
    return result
