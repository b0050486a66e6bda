"""The distinctness page: every pair of characters' current profiles, closest first, with
near-duplicates flagged (admins; docs/lab-admin/validity-distinctness.md). Thin: call
the selector, page the rows, render."""

from django.core.paginator import Paginator
from django.shortcuts import render
from django.views.decorators.http import require_GET

from annotation.corpus.distinctness import THRESHOLDS, distinctness_report
from core.roles import CORPUS_ADMINS, role_required

PAIRS_PER_PAGE = 50

admin_required = role_required(*CORPUS_ADMINS)


@admin_required
@require_GET
def distinctness(request):
    report = distinctness_report()
    flagged_only = request.GET.get("flagged") == "1"
    rows = report.near_duplicates if flagged_only else report.rows
    page = Paginator(rows, PAIRS_PER_PAGE).get_page(request.GET.get("page"))
    return render(
        request,
        "annotation/distinctness.html",
        {
            "report": report,
            "summary": report.summary,
            "page": page,
            "flagged_only": flagged_only,
            "thresholds": THRESHOLDS,
        },
    )
