"""The admin's page of current conflicts of interest (issue #24): for each label audit
still open, every team member with a construction record now (App. D.4), and for each
escalated pair, the arbitrators who may not decide it because they judged or were
assigned to judge it, in any round (App. D.2). The services refuse these acts at the
moment of the act; this page shows them before anyone tries. A fixed number of queries."""

from dataclasses import dataclass, field

from django.contrib.auth import get_user_model

from adjudication.arbitration.services import arbitration_conflict_rows
from annotation.comparison.models import ComparisonPair
from audit.reference_labels.involvement import Involvement, construction_involvement
from audit.reference_labels.models import LabelAudit, LabelAuditExpert
from core.roles import Role


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
