"""Pages of release hygiene: the memory reviewers' flag list and decision, the admins'
screens with their summary. Thin: parse, call a service or selector, render."""

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from audit.hygiene import selectors, services
from audit.hygiene.forms import FlagDecisionForm, HygieneRunForm
from audit.hygiene.models import HygieneError, HygieneFlag, HygieneRun
from audit.hygiene.rules import RULE_LABELS
from core import web
from core.actions import REFUSED, form_action, on_page
from core.llm_runs.buttons import cancel_button, retry_button
from core.llm_runs.models import RunStatus
from core.roles import Role, role_required, user_roles

readers_required = role_required(Role.MEMORY_REVIEWER, Role.ADMIN)
reviewer_required = role_required(Role.MEMORY_REVIEWER)
admin_required = role_required(Role.ADMIN)
FLAGS_PER_PAGE = 50


@readers_required
def flag_list(request):
    run = selectors.latest_screen()
    status = request.GET.get("status", HygieneFlag.Status.OPEN)
    if status not in HygieneFlag.Status.values and status != "all":
        status = HygieneFlag.Status.OPEN
    rule = request.GET.get("rule", "")
    if rule not in RULE_LABELS:
        rule = ""
    flags = selectors.flag_list(run=run, status="" if status == "all" else status, rule=rule)
    counts, choices = selectors.flag_status_counts(run), HygieneFlag.Status.choices
    page = Paginator(flags, FLAGS_PER_PAGE).get_page(request.GET.get("page"))
    return render(
        request,
        "audit/hygiene/flags.html",
        {
            "run": run,
            "page": page,
            "status": status,
            "statuses": [(value, label, counts.get(value, 0)) for value, label in choices],
            "rule": rule,
            "rules": list(RULE_LABELS.items()),
        },
    )


def _flag_page(request, flag_id, *, form=None):
    flag = HygieneFlag.objects.filter(pk=flag_id).first()
    if flag is None:
        raise Http404("No such hygiene flag.")
    context = {
        "flag": flag,
        "decisions": flag.decisions.select_related("reviewer").order_by("created_at", "pk"),
    }
    if Role.MEMORY_REVIEWER in user_roles(request.user):
        context["form"] = form or FlagDecisionForm(flag_id=flag.pk)
    return render(request, "audit/hygiene/flag_detail.html", context)


@readers_required
def flag_detail(request, flag_id):
    return _flag_page(request, flag_id)


@reviewer_required
@require_POST
def flag_decide(request, flag_id):
    form = FlagDecisionForm(request.POST, flag_id=flag_id)
    flag = on_page(
        lambda: form_action(
            form,
            lambda data: services.hygiene_flag_decide(
                flag_id=flag_id,
                reviewer=request.user,
                decision=data["decision"],
                reason=data.get("reason", ""),
            ),
            refusals=(HygieneError,),
        )
    )
    if flag is REFUSED:
        return _flag_page(request, flag_id, form=form)
    messages.success(request, f"Decision recorded: {flag.get_status_display().lower()}.")
    return redirect(f"{reverse('audit:hygiene-flags')}?status=open")


# --- screens (admin) -------------------------------------------------------------------


@admin_required
@require_http_methods(["GET", "POST"])
def run_list(request):
    form = HygieneRunForm(request.POST or None)
    if request.method == "POST":
        unqueued: list[str] = []
        run = on_page(
            lambda: form_action(
                form,
                lambda data: services.hygiene_run_start(
                    created_by=request.user,
                    note=data.get("note", ""),
                    on_unavailable=unqueued.append,
                ),
                refusals=(HygieneError,),
            )
        )
        if run is not REFUSED:
            for problem in unqueued:
                messages.error(request, problem)
            return redirect("audit:hygiene-run", run_id=run.pk)
    page = Paginator(selectors.screen_list(), 20).get_page(request.GET.get("page"))
    return render(request, "audit/hygiene/runs.html", {"page": page, "form": form})


def _run_context(run_id, *, action_error: str = "") -> dict:
    run = HygieneRun.objects.filter(pk=run_id).first()
    if run is None:
        raise Http404("No such hygiene screen.")
    summary = selectors.screening_summary(run)
    units = services.FLOW.units(run.pk)
    return {
        "run": run,
        "polling": run.in_progress,
        "summary": summary,
        "rule_rows": selectors.rule_rows(summary),
        "failed_units": units.filter(status="failed").select_related("character")[:20],
        "run_buttons": _run_buttons(run),
        "action_error": action_error,
    }


def _run_buttons(run) -> list:
    if run.status in (RunStatus.PENDING, RunStatus.RUNNING):
        return [
            cancel_button(
                reverse("audit:hygiene-run-cancel", kwargs={"run_id": run.pk}),
                question=f"Cancel hygiene screen {run.pk}? Characters not yet screened are "
                "left out; you can retry them later.",
                label="Cancel screen",
            )
        ]
    if run.status in (RunStatus.FINISHED_WITH_FAILURES, RunStatus.CANCELLED):
        return [
            retry_button(
                reverse("audit:hygiene-run-retry", kwargs={"run_id": run.pk}),
                label="Screen the failed or cancelled characters again",
            )
        ]
    return []


@admin_required
def run_detail(request, run_id):
    context = _run_context(run_id)
    if request.htmx:
        return render(request, "audit/hygiene/run_detail.html#progress", context)
    return render(request, "audit/hygiene/run_detail.html", context)


def _run_action(request, run_id, action, done_message: str):
    if not HygieneRun.objects.filter(pk=run_id).exists():
        raise Http404("No such hygiene screen.")
    return web.run_action(
        request,
        action,
        refusal=HygieneError,
        fragment=lambda problem: render(
            request,
            "audit/hygiene/run_detail.html#progress",
            _run_context(run_id, action_error=problem),
        ),
        done_url=reverse("audit:hygiene-run", kwargs={"run_id": run_id}),
        done_message=done_message,
    )


@admin_required
@require_POST
def run_cancel(request, run_id):
    return _run_action(
        request,
        run_id,
        lambda on_unavailable: services.hygiene_run_cancel(run_id=run_id),
        f"Hygiene screen {run_id} is cancelling.",
    )


@admin_required
@require_POST
def run_retry(request, run_id):
    return _run_action(
        request,
        run_id,
        lambda on_unavailable: services.hygiene_run_retry(
            run_id=run_id, on_unavailable=on_unavailable
        ),
        f"Hygiene screen {run_id}: the failed or cancelled characters are queued again.",
    )
