"""The admin's page of current conflicts of interest (issue #24), at /conflicts/."""

from django.shortcuts import render

from audit.reference_labels.conflicts import escalated_pair_conflicts, label_audit_conflicts
from core.roles import Role, role_required


@role_required(Role.ADMIN)
def conflicts(request):
    audits = label_audit_conflicts()
    pairs = escalated_pair_conflicts()
    return render(
        request,
        "audit/conflicts.html",
        {
            "audits": audits,
            "pairs": pairs,
            "audit_conflicts": sum(len(a.members) for a in audits),
            "pair_conflicts": sum(len(p.arbitrators) for p in pairs),
        },
    )
