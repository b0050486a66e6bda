"""The page of the item screener checked against the item reviewers (a stored report:
the page reads it, a worker computes it; a GET computes no figure).

!!! BLINDING !!!  Admins only: the screener's verdicts and the reviewers' decisions are
the workflow's provenance, not something reviewers or annotators see side by side.
"""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from adjudication.mcq import recall_audit, screener_agreement
from adjudication.mcq.models import McqError
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


@admin_required
@require_http_methods(["GET", "POST"])
def recall_audit_draw(request):
    """GET: what a draw would take, and the button that confirms it; POST: the draw."""
    error = ""
    if request.method == "POST":
        try:
            audit = recall_audit.draw_recall_audit(user=request.user)
        except McqError as problem:
            error = str(problem)
        else:
            messages.success(
                request,
                f"{audit.sample_size} of {audit.pool_size} passed items drawn and sent back "
                "to item review; the review pages hide the screener's verdicts until they "
                "are decided.",
            )
            return redirect("mcq:screener-agreement")
    return render(
        request,
        "adjudication/mcq/recall_audit.html",
        {"plan": recall_audit.draw_plan(), "error": error},
        status=409 if error else 200,
    )
