"""Pages of MCQ item review, assembly runs and screening runs, under /items/. Thin: parse,
call a service or selector, render. The review pages are for item reviewers only
(arbitrators, admins); the run pages for admins. Nothing here shows a model family."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.html import escape
from django.views.decorators.http import require_http_methods, require_POST

from adjudication.mcq import actions
from adjudication.mcq import selectors as mcq_selectors
from adjudication.mcq.actions import revisable, revise_draft_key
from adjudication.mcq.estimate import screening_cost_estimate
from adjudication.mcq.forms import (
    REVISE_DRAFT_FIELDS,
    AssemblyRunForm,
    ReviewDecisionForm,
    ScreeningRunForm,
    revise_draft_problem,
)
from adjudication.mcq.models import McqError, McqItem, McqScreeningRun
from adjudication.mcq.services import item_assembly, screening_runs
from core import drafts, web
from core.actions import REFUSED, on_page
from core.llm_runs.buttons import cancel_button, resume_button, retry_button
from core.llm_runs.forms import RunResumeForm
from core.llm_runs.pages import resume_from_page
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
        decision = on_page(
            lambda: actions.item_review_decide(form, user=request.user, item=page.item)
        )
        if decision is not REFUSED:
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
            "screener_configured": screening_runs.screener_provider() is not None,
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
        run = actions.item_screen(
            item_id=item_id, user=request.user, on_unavailable=lambda m: messages.error(request, m)
        )
    except actions.ActionRefused as refused:
        for message in refused.messages:
            messages.error(request, message)
    except McqItem.DoesNotExist:
        raise Http404("No such MCQ item.") from None
    else:
        messages.success(
            request, f"Screening queued (screening run {run.pk})." if run else "Screening queued."
        )
    return redirect("mcq:item", item_id=item_id)


@admin_required
@require_http_methods(["GET", "POST"])
def assembly_runs(request):
    form = AssemblyRunForm()
    if request.method == "POST":
        form = AssemblyRunForm(request.POST)
        run = on_page(lambda: actions.assembly_run_start(form, user=request.user))
        if run is not REFUSED:
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


# --- Screening runs (issue #33): admins only, they show tokens and cost ----------------


@admin_required
@require_http_methods(["GET", "POST"])
def screening_run_list(request):
    """The screening runs, and the launch form with the cost estimate of screening every
    item awaiting screening (issue #36); POST: that run, with the budget typed. A refused
    launch shows the page again with the form's messages, and creates nothing."""
    form = ScreeningRunForm(request.POST if request.method == "POST" else None)
    if request.method == "POST":
        run = on_page(
            lambda: actions.screening_run_launch(
                form, user=request.user, on_unavailable=lambda m: messages.error(request, m)
            )
        )
        if run is not REFUSED:
            messages.success(request, f"Screening run {run.pk} started.")
            return redirect("mcq:screening-run", run_id=run.pk)
    return render(
        request,
        "adjudication/mcq/screening_runs.html",
        {
            "runs": mcq_selectors.screening_runs(),
            "awaiting": McqItem.objects.filter(status=McqItem.Status.SCREENING).count(),
            "screener_configured": screening_runs.screener_provider() is not None,
            "form": form,
            "cost": screening_cost_estimate(),
        },
    )


def _run_buttons(run: McqScreeningRun, failed: int) -> list:
    Status = McqScreeningRun.Status
    buttons = []
    if run.status in (Status.PENDING, Status.RUNNING, Status.STOPPED_AT_BUDGET):
        buttons.append(
            cancel_button(
                reverse("mcq:screening-run-cancel", args=[run.pk]),
                question=f"Cancel screening run {run.pk}? Waiting items stay awaiting "
                "screening; the judge finishes the attempt it is on.",
            )
        )
    # A run stopped at its budget resumes through its budget form (resume_form).
    if run.status == Status.CANCELLED:
        buttons.append(resume_button(reverse("mcq:screening-run-resume", args=[run.pk])))
    if run.status == Status.FINISHED_WITH_FAILURES and failed:
        buttons.append(
            retry_button(
                reverse("mcq:screening-run-retry", args=[run.pk]),
                label=f"Retry the failed screening{'s' if failed != 1 else ''}",
                question="Screen the failed items again? Each goes back to awaiting screening.",
            )
        )
    return buttons


def _screening_run_context(run_id: int, *, action_error: str = "", resume_form=None) -> dict:
    page = mcq_selectors.screening_run_page(run_id=run_id)
    if page is None:
        raise Http404("No such screening run.")
    stopped = page.run.is_stopped_at_budget
    return {
        "run": page.run,
        "page": page,
        "polling": page.polling,
        "run_buttons": _run_buttons(page.run, page.counts["failed"]),
        "action_error": action_error,
        "resume_form": (resume_form or RunResumeForm()) if stopped else None,
    }


@admin_required
def screening_run(request, run_id):
    template = "adjudication/mcq/screening_run.html"
    if request.htmx:
        template += "#run-progress"
    return render(request, template, _screening_run_context(run_id))


def _screening_run_action(request, run_id, action, done_message: str):
    get_object_or_404(McqScreeningRun, pk=run_id)  # 404 before any write
    return web.run_action(
        request,
        lambda on_unavailable: action(
            run_id=run_id, user=request.user, on_unavailable=on_unavailable
        ),
        refusal=McqError,
        fragment=lambda problem: render(
            request,
            "adjudication/mcq/screening_run.html#run-progress",
            _screening_run_context(run_id, action_error=problem),
        ),
        done_url=reverse("mcq:screening-run", kwargs={"run_id": run_id}),
        done_message=done_message,
    )


@admin_required
@require_POST
def screening_run_cancel(request, run_id):
    return _screening_run_action(
        request,
        run_id,
        screening_runs.screening_run_cancel,
        f"Screening run {run_id} is cancelling; its waiting items stay awaiting screening.",
    )


@admin_required
@require_POST
def screening_run_resume(request, run_id):
    """The Resume button of a cancelled run, or the resume form of a run stopped at its
    budget or a monthly cap (its new budget; blank: none). A refused budget shows the
    page again with the form's messages."""
    run = get_object_or_404(McqScreeningRun, pk=run_id)
    if not run.is_stopped_at_budget:
        return _screening_run_action(
            request,
            run_id,
            screening_runs.screening_run_resume,
            f"Screening run {run_id} resumed.",
        )
    return resume_from_page(
        request,
        lambda form: actions.screening_run_resume(
            form,
            run_id=run_id,
            user=request.user,
            on_unavailable=lambda m: messages.error(request, m),
        ),
        refused_page=lambda form: render(
            request,
            "adjudication/mcq/screening_run.html",
            _screening_run_context(run_id, resume_form=form),
        ),
        resumed=f"Screening run {run_id} resumed: its waiting items are queued.",
        to=reverse("mcq:screening-run", args=[run_id]),
    )


@admin_required
@require_POST
def screening_run_retry(request, run_id):
    return _screening_run_action(
        request,
        run_id,
        screening_runs.screening_run_retry,
        f"Screening run {run_id}: the failed screenings are queued again.",
    )
