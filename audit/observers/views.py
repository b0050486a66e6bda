"""The admin's observer pages: the inventories (list and load), the run list, the launch
form, a run's page (progress polled with htmx, cancel and resume) and its report (read
from the stored report; a GET never computes it). Thin: parse, call a selector or a
service, render.

!!! BLINDING !!!  These pages put observers' ratings beside the design vectors: admins
only, and nothing here may be reused by a page another role can open.
"""

from django.contrib import messages
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from annotation.corpus.models import Character
from audit.observers import selectors, services, stored_reports
from audit.observers.corpus_version import corpus_status
from audit.observers.estimate import observer_cost_estimate
from audit.observers.forms import InventoryUploadForm, ObserverRunForm
from audit.observers.inventory import TRAIT_NAMES, TRAITS, InventoryError
from audit.observers.models import DEFAULT_SAMPLE_SIZE, ObserverRun
from audit.observers.services import ObserverRunError
from core import display, web
from core.actions import form_action
from core.llm_runs.buttons import cancel_button, resume_button, retry_button
from core.llm_runs.forms import RunResumeForm
from core.llm_runs.pages import resume_from_page
from core.protocol import PROTOCOL_SEED
from core.roles import Role, role_required

RUNS_PER_PAGE = 25
UNITS_PER_PAGE = 50
INVENTORIES_PER_PAGE = 25

admin_required = role_required(Role.ADMIN)
Status = ObserverRun.Status
CANCELLABLE = (Status.PENDING, Status.RUNNING)
REPORTABLE = (Status.FINISHED, Status.FINISHED_WITH_FAILURES)


def _page(queryset, request, per_page):
    return Paginator(queryset, per_page).get_page(request.GET.get("page"))


@admin_required
@require_http_methods(["GET", "POST"])
def inventories(request):
    posted = request.method == "POST"
    form = InventoryUploadForm(*((request.POST, request.FILES) if posted else ()))
    problems: list[str] = []
    if posted and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            inventory = services.inventory_load(
                content=upload.read(), file_name=upload.name, user=request.user
            )
        except InventoryError as error:
            problems = error.problems
        else:
            messages.success(
                request,
                f"Loaded {inventory} with {inventory.item_count} item"
                f"{pluralize(inventory.item_count)}.",
            )
            return redirect("audit:observers:inventories")
    return render(
        request,
        "audit/observers/inventories.html",
        {
            "form": form,
            "problems": problems,
            "page": _page(selectors.inventory_list(), request, INVENTORIES_PER_PAGE),
        },
    )


@admin_required
def observer_run_list(request):
    page = _page(selectors.observer_run_list(), request, RUNS_PER_PAGE)
    return render(request, "audit/observers/run_list.html", {"page": page})


def _observable_characters():
    return Character.objects.filter(versions__frozen_at__isnull=False).distinct().order_by("key")


@admin_required
@require_http_methods(["GET", "POST"])
def observer_run_new(request):
    configured = list(services.observer_family_configs())
    kwargs = {"configured": configured, "characters": _observable_characters()}
    posted = request.method == "POST"
    form = ObserverRunForm(*((request.POST,) if posted else ()), **kwargs)
    estimating = posted and "estimate" in request.POST
    if estimating and form.is_valid():
        data = form.cleaned_data
        return _render_launch(
            request,
            form,
            configured,
            cost=observer_cost_estimate(
                inventory=data["inventory"],
                characters=data["characters"],
                target=data["target"],
                sample_size=data["sample_size"],
                seed=data["seed"],
                families=data["families"],
            ),
            chosen=True,
        )
    if posted and not estimating and form.is_valid():
        data = form.cleaned_data
        try:
            run = services.observer_run_create(
                user=request.user,
                inventory_id=data["inventory"].pk,
                character_ids=[c.pk for c in data["characters"]],
                target=data["target"],
                sample_size=data["sample_size"],
                seed=data["seed"],
                families=data["families"],
                note=data["note"],
                budget_usd=data.get("budget_usd"),
            )
        except ObserverRunError as error:
            form.add_error(None, str(error))
        else:
            services.observer_run_start(
                run_id=run.pk, on_unavailable=lambda message: messages.error(request, message)
            )
            return redirect("audit:observers:run", observer_run_id=run.pk)
    cost = None
    if not posted:  # every character that can be observed, with the form's defaults
        cost = observer_cost_estimate(
            inventory=form.fields["inventory"].queryset.first(),
            characters=kwargs["characters"],
            target=ObserverRun.Target.MEMORIES,
            sample_size=DEFAULT_SAMPLE_SIZE,
            seed=PROTOCOL_SEED,
        )
    return _render_launch(request, form, configured, cost=cost, chosen=False)


def _render_launch(request, form, configured, *, cost, chosen: bool):
    return render(
        request,
        "audit/observers/run_new.html",
        {"form": form, "configured": configured, "cost": cost, "cost_for_choice": chosen},
    )


@admin_required
def observer_run_detail(request, observer_run_id):
    return _render_run(request, observer_run_id)


def _render_run(request, run_id, *, action_error: str = "", resume_form=None):
    run = selectors.observer_run_get(run_id=run_id)
    progress = selectors.observer_run_progress(run_id=run.pk)
    template = "audit/observers/run_detail.html"
    if request.htmx:
        template += "#run-progress"
    report_url = None
    if run.status in REPORTABLE:
        report_url = reverse("audit:observers:report", kwargs={"observer_run_id": run.pk})
    return render(
        request,
        template,
        {
            "run": run,
            "progress": progress,
            "units": selectors.observer_unit_page(
                run_id=run.pk, page_number=request.GET.get("page"), per_page=UNITS_PER_PAGE
            ),
            "report_url": report_url,
            "polling": run.in_progress,
            "run_buttons": _run_buttons(run, progress),
            "action_error": action_error,
            "resume_form": (resume_form or RunResumeForm()) if run.is_stopped_at_budget else None,
        },
    )


def _run_buttons(run, progress) -> list:
    again = reverse("audit:observers:resume", kwargs={"observer_run_id": run.pk})
    if run.status in CANCELLABLE:
        return [
            cancel_button(
                reverse("audit:observers:cancel", kwargs={"observer_run_id": run.pk}),
                question=f"Cancel observer run {run.pk}? Units not yet sent stop; calls "
                "already sent finish and are recorded. You can resume the run later.",
            )
        ]
    left = progress.without_ratings
    if run.status == Status.CANCELLED and left:
        return [resume_button(again, label=f"Resume run ({left} unit{pluralize(left)} left)")]
    if run.status == Status.FINISHED_WITH_FAILURES and progress.failed:
        failed = progress.failed
        return [retry_button(again, label=f"Retry {failed} failed unit{pluralize(failed)}")]
    return []


def _run_action(request, run_id, action, done_message: str):
    return web.run_action(
        request,
        action,
        refusal=ObserverRunError,
        fragment=lambda problem: _render_run(request, run_id, action_error=problem),
        done_url=reverse("audit:observers:run", kwargs={"observer_run_id": run_id}),
        done_message=done_message,
    )


@admin_required
@require_POST
def observer_run_cancel(request, observer_run_id):
    selectors.observer_run_get(run_id=observer_run_id)
    return _run_action(
        request,
        observer_run_id,
        lambda on_unavailable: services.observer_run_cancel(run_id=observer_run_id),
        f"Observer run {observer_run_id} is cancelled: calls already sent finish.",
    )


@admin_required
@require_POST
def observer_run_resume(request, observer_run_id):
    run = selectors.observer_run_get(run_id=observer_run_id)
    if run.is_stopped_at_budget:
        return _resume_at_budget(request, observer_run_id)
    return _run_action(
        request,
        observer_run_id,
        lambda on_unavailable: services.observer_run_resume(
            run_id=observer_run_id, on_unavailable=on_unavailable
        ),
        f"Observer run {observer_run_id} is resumed: the units left are queued again.",
    )


def _resume_at_budget(request, run_id):
    unqueued: list[str] = []

    def said(_run):
        for message in unqueued:
            messages.error(request, message)
        return (
            None if unqueued else f"Observer run {run_id} is resumed: its waiting units are queued."
        )

    return resume_from_page(
        request,
        lambda form: form_action(
            form,
            lambda data: services.observer_run_resume(
                run_id=run_id, budget_usd=data.get("budget_usd"), on_unavailable=unqueued.append
            ),
            refusals=(ObserverRunError,),
        ),
        refused_page=lambda form: _render_run(request, run_id, resume_form=form),
        resumed=said,
        to=reverse("audit:observers:run", args=[run_id]),
    )


@admin_required
def observer_run_report(request, observer_run_id):
    run = selectors.observer_run_get(run_id=observer_run_id)
    view = stored_reports.stored_report(run) if run.status in REPORTABLE else None
    result = view.result if view is not None and view.ready else None
    return render(
        request,
        "audit/observers/report.html",
        {
            "run": run,
            "view": view,
            "result": result,
            "traits": [(t, TRAIT_NAMES[t]) for t in TRAITS],
            "rows": _report_rows(result) if result else [],
            "matrix": _matrix_rows(result) if result else [],
            "distinct": _distinct_rows(result) if result else None,
            "corpus": corpus_status(run),
        },
    )


def _report_rows(result) -> list[dict]:
    rows = []
    for character in result["characters"]:
        flagged = {flag["trait"]: flag["why"] for flag in character["flags"]}
        rows.append(
            {
                "name": display.character_name(character["key"]),
                "anchor": character["anchor"],
                "observers": len(character["observers"]),
                "models": sum(o.startswith("llm:") for o in character["observers"]),
                "people": sum(o.startswith("human:") for o in character["observers"]),
                "cells": [
                    {
                        "trait": t,
                        "design": character["design"][t],
                        "observed": character["observed"][t],
                        "low": character["ci"][t][0],
                        "high": character["ci"][t][1],
                        "flag": flagged.get(t, ""),
                    }
                    for t in TRAITS
                ],
            }
        )
    return rows


def _matrix_rows(result) -> list[dict]:
    return [
        {
            "trait": design,
            "convergent": result["convergent"][design],
            "cells": [
                {"value": result["matrix"][i][j], "diagonal": i == j} for j in range(len(TRAITS))
            ],
        }
        for i, design in enumerate(TRAITS)
    ]


def _distinct_rows(result) -> dict | None:
    """The observed distinctness with the characters named; None for a report stored
    before it was computed."""
    distinct = result.get("distinctness")
    if distinct is None:
        return None
    pairs = [
        {
            **pair,
            "first_name": display.character_name(pair["first"]),
            "second_name": display.character_name(pair["second"]),
        }
        for pair in distinct["pairs"]
    ]
    return {**distinct, "pairs": pairs}
