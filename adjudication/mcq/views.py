"""Pages of MCQ item review and assembly runs, under /items/. Thin: parse, call a service
or selector, render. The review pages are for item reviewers only (arbitrators, admins);
nothing here shows a model family."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import escape
from django.views.decorators.http import require_http_methods, require_POST

from adjudication.mcq import actions
from adjudication.mcq import selectors as mcq_selectors
from adjudication.mcq.actions import revisable, revise_draft_key
from adjudication.mcq.forms import (
    REVISE_DRAFT_FIELDS,
    AssemblyRunForm,
    ReviewDecisionForm,
    revise_draft_problem,
)
from adjudication.mcq.models import McqItem
from adjudication.mcq.services import item_assembly, item_screening
from core import drafts
from core.roles import Role, role_required, user_roles
from core.web import csv_download

reviewer_required = role_required(*mcq_selectors.ITEM_REVIEWER_ROLES)
admin_required = role_required(Role.ADMIN)


@reviewer_required
def item_queue(request):
    status = request.GET.get("status") or None
    return render(
        request,
        "adjudication/mcq/queue.html",
        {
            "rows": mcq_selectors.item_review_queue(status=status),
            "status": status,
            "counts": mcq_selectors.item_status_counts(),
            "keys": mcq_selectors.key_distributions(),
            "is_admin": Role.ADMIN in user_roles(request.user),
        },
    )


@reviewer_required
def item_queue_csv(request):
    response, writer = csv_download("mcq_review_queue.csv")
    writer.writerow(["question_id", "status", "options", "screening_outcome", "concerns"])
    for row in mcq_selectors.item_review_queue():
        writer.writerow(
            [
                row.item.question_id,
                row.item.status,
                row.item.option_count,
                row.screening.outcome if row.screening else "",
                " ".join(row.concerns),
            ]
        )
    return response


@reviewer_required
@require_http_methods(["GET", "POST"])
def item_detail(request, item_id):
    page = mcq_selectors.item_review_page(item_id=item_id)
    if page is None:
        raise Http404("No such MCQ item.")
    form = ReviewDecisionForm(initial={"version": page.item.version})
    if request.method == "POST":
        form = ReviewDecisionForm(request.POST)
        try:
            decision = actions.item_review_decide(form, user=request.user, item=page.item)
        except actions.ActionRefused:
            pass  # the form carries the messages
        else:
            messages.success(request, f"{decision.get_action_display()}: {page.item.question_id}.")
            return redirect("mcq:item", item_id=item_id)
        page = mcq_selectors.item_review_page(item_id=item_id)
    revise_draft = None
    if revisable(page):
        revise_draft = drafts.form_draft_get(user=request.user, key=revise_draft_key(page.item))
    return render(
        request,
        "adjudication/mcq/item.html",
        {
            "page": page,
            "form": form,
            "revise": drafts.form_draft_values(revise_draft),
            "autosave_status": drafts.autosave_status(revise_draft),
            "reviewable": page.item.status in mcq_selectors.REVIEW_QUEUE_STATUSES,
            "awaiting_screening": page.item.status == McqItem.Status.SCREENING,
            "screener_configured": item_screening.screener_provider() is not None,
            "is_admin": Role.ADMIN in user_roles(request.user),
        },
    )


@reviewer_required
@require_http_methods(["GET", "POST"])
def item_revise_draft(request, item_id):
    """The revise form's autosave: only while the item's distractors may be revised."""
    page = mcq_selectors.item_review_page(item_id=item_id)
    if page is None:
        raise Http404("No such MCQ item.")
    if request.method == "POST" and not revisable(page):
        raise PermissionDenied("This item is not open for revision.")
    problem = revise_draft_problem(request.POST) if request.method == "POST" else None
    if problem is not None:
        # Refused, nothing saved: the status line says why (issue #24).
        if request.htmx:
            return HttpResponse(escape(f"Not saved: {problem}"))
        messages.error(request, f"Not saved: {problem}")
        return redirect("mcq:item", item_id=item_id)
    return drafts.autosave_response(
        request,
        key=revise_draft_key(page.item),
        fields=REVISE_DRAFT_FIELDS,
        page_url=reverse("mcq:item", kwargs={"item_id": item_id}),
    )


@admin_required
@require_POST
def item_screen(request, item_id):
    try:
        actions.item_screen(item_id=item_id)
    except actions.ActionRefused as refused:
        for message in refused.messages:
            messages.error(request, message)
    except McqItem.DoesNotExist:
        raise Http404("No such MCQ item.") from None
    else:
        messages.success(request, "Screening queued.")
    return redirect("mcq:item", item_id=item_id)


@admin_required
@require_http_methods(["GET", "POST"])
def assembly_runs(request):
    form = AssemblyRunForm()
    if request.method == "POST":
        form = AssemblyRunForm(request.POST)
        try:
            run = actions.assembly_run_start(form, user=request.user)
        except actions.ActionRefused:
            pass  # the form carries the messages
        else:
            return redirect("mcq:run", run_id=run.pk)
    return render(
        request,
        "adjudication/mcq/runs.html",
        {
            "form": form,
            "runs": mcq_selectors.assembly_runs(),
            "awaiting": item_assembly.pairs_awaiting_assembly().count(),
            "unadjudicated": item_assembly.unadjudicated_awaiting_assembly(),
            "selector_configured": item_assembly.selector_provider() is not None,
        },
    )


@admin_required
def assembly_run(request, run_id):
    run = mcq_selectors.assembly_run_get(run_id=run_id)
    if run is None:
        raise Http404("No such assembly run.")
    polling = run.status in ("queued", "running")
    template = "adjudication/mcq/run.html"
    if request.htmx:
        template += "#progress"
    keys = mcq_selectors.run_key_distribution(run_id=run.pk)
    return render(request, template, {"run": run, "polling": polling, "keys": keys})
