"""The distinctness page: every pair of characters' current profiles, closest first, with
near-duplicates flagged (admins; docs/lab-admin/validity-distinctness.md). Thin: read the
stored table (``distinctness_report``; a GET never computes a distance), page its rows,
render; a POST queues a new computation on the worker."""

from django.contrib import messages
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from annotation.corpus.distinctness import THRESHOLDS
from annotation.corpus.distinctness_report import (
    request_recompute,
    stored_distinctness,
    stored_table,
)
from core.roles import CORPUS_ADMINS, role_required

PAIRS_PER_PAGE = 50

admin_required = role_required(*CORPUS_ADMINS)


@admin_required
@require_http_methods(["GET", "POST"])
def distinctness(request):
    if request.method == "POST":
        request_recompute()
        messages.success(
            request, "The distinctness table is being computed again from the current profiles."
        )
        return redirect("corpus:distinctness")
    view = stored_distinctness()
    report = stored_table(view.result) if view.ready else None
    flagged_only = request.GET.get("flagged") == "1"
    page = None
    if report is not None:
        rows = report.near_duplicates if flagged_only else report.rows
        page = Paginator(rows, PAIRS_PER_PAGE).get_page(request.GET.get("page"))
    return render(
        request,
        "annotation/distinctness.html",
        {
            "view": view,
            "report": report,
            "summary": report.summary if report else None,
            "page": page,
            "flagged_only": flagged_only,
            "thresholds": report.thresholds if report else THRESHOLDS,
        },
    )
