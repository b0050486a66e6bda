"""The page of the item screener checked against the item reviewers (a stored report:
the page reads it, a worker computes it; a GET computes no figure).

!!! BLINDING !!!  Admins only: the screener's verdicts and the reviewers' decisions are
the workflow's provenance, not something reviewers or annotators see side by side.
"""

from django.shortcuts import render

from adjudication.mcq import screener_agreement
from core.roles import Role, role_required

admin_required = role_required(Role.ADMIN)


@admin_required
def screener_agreement_report(request):
    stored = screener_agreement.stored_report()
    return render(
        request,
        "judge_agreement/screener.html",
        {
            "stored": stored,
            "poll_url": request.get_full_path(),
            "result": stored.result if stored.ready else None,
            "min_pairs": screener_agreement.MIN_PAIRS,
        },
    )
