"""Pages of the memory quality audit. Thin: parse, call a service or selector, render
(the whole page, or its fragment for htmx)."""

from functools import partial

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import escape
from django.views.decorators.http import require_http_methods, require_POST

from audit.memory_quality import actions, criteria, selectors, statistics
from audit.memory_quality.estimate import audit_cost_estimate
from audit.memory_quality.forms import (
    SENIOR_EDIT_FIELDS,
    AuditRunForm,
    AuditSettingsForm,
    ReviewDecisionForm,
    SeniorAskTeamForm,
    SeniorEditForm,
    SeniorReauditForm,
    edit_draft_problem,
)
from audit.memory_quality.models import AuditError, AuditRun, MemoryCase
from audit.memory_quality.services import configuration, review, runs
from core import drafts, web
from core.actions import REFUSED, form_action, on_page
from core.llm_runs.buttons import cancel_button, resume_button, retry_button
from core.llm_runs.forms import RunResumeForm
from core.llm_runs.models import RunStatus
from core.llm_runs.pages import resume_from_page
from core.plurals import counted
from core.roles import Role, role_required, user_roles
from core.tidy_tables import table_download, table_links
from core.web import add_error_messages, csv_download

readers_required = role_required(Role.MEMORY_REVIEWER, Role.ARBITRATOR, Role.ADMIN)
reviewer_required = role_required(Role.MEMORY_REVIEWER)
senior_required = role_required(Role.ARBITRATOR)
admin_required = role_required(Role.ADMIN)
CASES_PER_PAGE = 50


@readers_required
def queue(request):
    status = request.GET.get("status") or selectors.default_queue_status(user=request.user)
    if status not in MemoryCase.Status.values:
        status = MemoryCase.Status.REVIEW
    page = Paginator(selectors.case_queue(status=status), CASES_PER_PAGE).get_page(
        request.GET.get("page")
    )
    # The page is taken first; only its cases get their flags and repair attempts.
    page.object_list = selectors.queue_rows(page.object_list)
    return render(
        request,
        "audit/queue.html",
        {
            "page": page,
            "status": status,
            "statuses": MemoryCase.Status.choices,
            "counts": selectors.case_status_counts(),
        },
    )


def _case_context(request, case_id, *, decision_form=None, edit_form=None, preview=None):
    page = selectors.case_page(case_id=case_id, team_size=configuration.override_team_size())
    if page is None:
        raise Http404("No such audit case.")
    held = user_roles(request.user)
    context = {"page": page, "preview": preview}
    status = page.case.status
    if Role.MEMORY_REVIEWER in held and status == MemoryCase.Status.REVIEW:
        context["decision_form"] = decision_form or ReviewDecisionForm(case_id=case_id)
    if Role.ARBITRATOR in held and status == MemoryCase.Status.SENIOR:
        draft = drafts.form_draft_get(user=request.user, key=_edit_draft_key(case_id))
        context["autosave_status"] = drafts.autosave_status(draft)
        context["edit_form"] = edit_form or SeniorEditForm(
            case_id=case_id,
            initial={f.name: f.text for f in page.fields} | drafts.form_draft_values(draft),
        )
        context |= _way_forward_forms(case_id, page)
        # What re-audits the edit (App. B.6: the LLM judge's re-evaluation), said before
        # the senior saves. No model name: the senior also judges blinded comparisons.
        context["edit_classifier"] = configuration.classifier_provider() is not None
    return context


def _edit_draft_key(case_id) -> str:
    return f"memory-edit:{case_id}"


@readers_required
def case_detail(request, case_id):
    return render(request, "audit/case_detail.html", _case_context(request, case_id))


@reviewer_required
@require_POST
def case_decide(request, case_id):
    form = ReviewDecisionForm(request.POST, case_id=case_id)
    case = on_page(lambda: actions.case_decide(form, user=request.user, case_id=case_id))
    if case is not REFUSED:
        if case.status == MemoryCase.Status.REVIEW:
            team = configuration.override_team_size()
            needed = team - case.agreements.filter(review_round=case.review_round).count()
            messages.success(
                request,
                f"Your agreement is recorded; {counted(needed, 'more reviewer')} "
                "of the team of "
                f"{team} must agree before the override takes effect.",
            )
        else:
            messages.success(request, "Decision recorded.")
        return redirect("audit:case-detail", case_id=case_id)
    return render(
        request,
        "audit/case_detail.html",
        _case_context(request, case_id, decision_form=form),
    )


@senior_required
@require_http_methods(["GET", "POST"])
def case_edit(request, case_id):
    if request.method == "GET":
        return redirect("audit:case-detail", case_id=case_id)
    form = SeniorEditForm(request.POST, case_id=case_id)
    if not form.is_valid():
        return render(
            request,
            "audit/case_detail.html",
            _case_context(request, case_id, edit_form=form),
        )
    if request.POST.get("preview"):
        page = selectors.case_page(case_id=case_id)
        if page is None:
            raise Http404("No such audit case.")
        before = {f.name: f.text for f in page.fields}
        diff = selectors.version_diff(before, form.cleaned_data)
        if request.htmx:
            return render(request, "audit/case_detail.html#diff", {"diff": diff})
        return render(
            request,
            "audit/case_detail.html",
            _case_context(request, case_id, edit_form=form, preview=diff),
        )
    try:
        _, findings = actions.case_senior_edit(form, user=request.user, case_id=case_id)
    except actions.ActionRefused:
        return render(
            request,
            "audit/case_detail.html",
            _case_context(request, case_id, edit_form=form),
        )
    drafts.form_draft_clear(user=request.user, key=_edit_draft_key(case_id))
    if findings:
        messages.warning(
            request,
            f"Saved, not accepted: the re-audit still flags {counted(len(findings), 'defect')}. "
            "Edit again.",
        )
    else:
        messages.success(request, "Saved; the edited memory passed the re-audit.")
    return redirect("audit:case-detail", case_id=case_id)


@senior_required
@require_http_methods(["GET", "POST"])
def case_edit_draft(request, case_id):
    """The senior's edit autosave: only while the memory awaits the senior's edit."""
    case = MemoryCase.objects.filter(pk=case_id).only("status").first()
    if case is None:
        raise Http404("No such audit case.")
    if request.method == "POST" and case.status != MemoryCase.Status.SENIOR:
        raise PermissionDenied("This memory does not await an edit.")
    problem = (
        edit_draft_problem(request.POST, SENIOR_EDIT_FIELDS) if request.method == "POST" else None
    )
    if problem is not None:  # refused, nothing saved (issue #24)
        if request.htmx:
            return HttpResponse(escape(f"Not saved: {problem}"))
        messages.error(request, f"Not saved: {problem}")
        return redirect("audit:case-detail", case_id=case_id)
    return drafts.autosave_response(
        request,
        key=_edit_draft_key(case_id),
        fields=SENIOR_EDIT_FIELDS,
        page_url=reverse("audit:case-detail", kwargs={"case_id": case_id}),
    )


# --- Runs (admin) -----------------------------------------------------------------------


@admin_required
@require_http_methods(["GET", "POST"])
def run_list(request):
    keys = selectors.character_keys()
    form = AuditRunForm(request.POST or None, character_keys=keys)
    if request.method == "POST":
        run = on_page(lambda: actions.run_start(form, user=request.user))
        if run is not REFUSED:
            return redirect("audit:run-detail", run_id=run.pk)
    return render(
        request,
        "audit/run_list.html",
        {
            "runs": selectors.audit_run_list()[:50],
            "form": form,
            "cost": audit_cost_estimate(character_keys=form.estimate_keys()),
        },
    )


def _run_context(request, run_id, *, action_error: str = "", resume_form=None) -> dict:
    run = selectors.audit_run_get(run_id=run_id)
    if run is None:
        raise Http404("No such audit run.")
    return {
        "run": run,
        "polling": run.in_progress,
        "units": selectors.audit_unit_counts(run=run),
        "run_buttons": _run_buttons(run),
        "action_error": action_error,
        # Issue #36: a run stopped at a spending limit resumes through the run's one
        # resume URL, with the new budget typed here.
        "resume_form": (resume_form or RunResumeForm()) if run.is_stopped_at_budget else None,
    }


def _run_buttons(run) -> list:
    """What the run offers now; the services guard the same rules and have the last word."""
    url = partial(reverse, kwargs={"run_id": run.pk})
    if run.status in (RunStatus.PENDING, RunStatus.RUNNING):
        question = (
            f"Cancel audit run {run.pk}? The character being audited finishes; the others "
            "wait until you resume the run."
        )
        return [cancel_button(url("audit:run-cancel"), question=question)]
    if run.status == RunStatus.CANCELLED:
        return [resume_button(url("audit:run-resume"))]
    if run.status == RunStatus.FINISHED_WITH_FAILURES:
        return [retry_button(url("audit:run-retry"), label="Retry the failed characters")]
    return []


@admin_required
def run_detail(request, run_id):
    return _render_run_page(request, run_id)


def _render_run_page(request, run_id, *, resume_form=None):
    context = _run_context(request, run_id, resume_form=resume_form)
    if request.htmx:
        return render(request, "audit/run_detail.html#progress", context)
    run = context["run"]
    context["outcomes"] = selectors.audit_outcomes(run=run)
    context["columns"] = selectors.OUTCOME_COLUMNS
    context["classifier"] = selectors.classifier_summary(run=run)
    context["criteria"] = list(criteria.CRITERIA.items())
    return render(request, "audit/run_detail.html", context)


def _run_action(request, run_id, action, done_message: str):
    """Cancel, resume or retry from the run page (``core.web.run_action``)."""
    if not AuditRun.objects.filter(pk=run_id).exists():
        raise Http404("No such audit run.")
    return web.run_action(
        request,
        lambda on_unavailable: action(run_id=run_id, user=request.user),
        refusal=AuditError,
        fragment=lambda problem: render(
            request,
            "audit/run_detail.html#progress",
            _run_context(request, run_id, action_error=problem),
        ),
        done_url=reverse("audit:run-detail", kwargs={"run_id": run_id}),
        done_message=done_message,
    )


@admin_required
@require_POST
def run_cancel(request, run_id):
    return _run_action(
        request,
        run_id,
        runs.audit_run_cancel,
        f"Audit run {run_id} is cancelling: the character being audited finishes first; "
        "its results stay.",
    )


@admin_required
@require_POST
def run_resume(request, run_id):
    """The run's one resume: a cancelled run's button (its characters not yet audited
    are queued), or the form of a run stopped at a spending limit (its new budget; its
    held repairs and classifier calls are queued). A refused budget shows the page
    again with the form's message."""
    run = AuditRun.objects.filter(pk=run_id).only("status").first()
    if run is None:
        raise Http404("No such audit run.")
    if not run.is_stopped_at_budget:
        return _run_action(
            request,
            run_id,
            lambda *, run_id, user: actions.run_resume(run_id=run_id, user=user),
            f"Audit run {run_id} resumed: the characters not yet audited are queued.",
        )
    return resume_from_page(
        request,
        lambda form: form_action(
            form,
            lambda data: actions.run_resume(
                user=request.user, run_id=run_id, budget_usd=data.get("budget_usd")
            ),
            refusals=(AuditError,),
        ),
        refused_page=lambda form: _render_run_page(request, run_id, resume_form=form),
        resumed=f"Audit run {run_id} resumed: its repairs and classifier calls waiting are "
        "queued again.",
        to=reverse("audit:run-detail", args=[run_id]),
    )


@admin_required
@require_POST
def run_retry(request, run_id):
    return _run_action(
        request,
        run_id,
        runs.audit_run_retry,
        f"Audit run {run_id}: the failed characters are queued again.",
    )


@admin_required
@require_POST
def run_finalize(request, run_id):
    try:
        run = actions.run_finalize(user=request.user, run_id=run_id)
    except AuditRun.DoesNotExist:
        raise Http404("No such audit run.") from None
    except actions.ActionRefused as refused:
        messages.error(request, " ".join(refused.messages))
    else:
        messages.success(
            request,
            f"Timeline of {run.summary.get('timeline', 0)} memories built; "
            f"{counted(len(run.summary.get('deduplicated', [])), 'duplicate')} left out.",
        )
    return redirect("audit:run-detail", run_id=run_id)


@admin_required
@require_POST
def run_classify(request, run_id):
    try:
        criterion, queued = actions.run_classify(
            user=request.user, run_id=run_id, criterion=request.POST.get("criterion", "")
        )
    except actions.ActionRefused as refused:
        messages.error(request, " ".join(refused.messages))
    else:
        messages.success(
            request, f"{counted(queued, 'classifier call')} queued for criterion {criterion}."
        )
    return redirect("audit:run-detail", run_id=run_id)


outcome_readers_required = role_required(Role.ARBITRATOR, Role.ADMIN, Role.MEMORY_REVIEWER)


@outcome_readers_required
def outcomes(request, run_id):
    run = selectors.audit_run_get(run_id=run_id)
    if run is None:
        raise Http404("No such audit run.")
    result = selectors.audit_outcomes(run=run)
    tidy = {
        slug: table_links(
            reverse(f"audit:{slug}-table", args=[run.pk]),
            name=build(run, result).name,
            api_url=reverse(f"audit-api:{slug}-rows", args=[run.pk]),
        )
        for slug, build in statistics.TABLES.items()
    }
    return render(
        request,
        "audit/outcomes.html",
        {"outcomes": result, "columns": selectors.OUTCOME_COLUMNS, "tidy": tidy},
    )


@outcome_readers_required
def outcomes_csv(request, run_id):
    run = selectors.audit_run_get(run_id=run_id)
    if run is None:
        raise Http404("No such audit run.")
    result = selectors.audit_outcomes(run=run)
    response, writer = csv_download(f"memory-audit-{run.pk}-outcomes.csv")
    names = [name for name, _ in selectors.OUTCOME_COLUMNS]
    writer.writerow(["character", *names])
    for row in result.rows:
        writer.writerow([row["character"], *(row[n] for n in names)])
    writer.writerow(["overall", *(result.total[n] for n in names)])
    writer.writerow([])
    writer.writerow(["criterion", "label", "flags", "memories flagged"])
    for row in result.criteria_rows:
        writer.writerow([row["criterion"], row["label"], row["flags"], row["memories"]])
    return response


# --- Settings (admin) -------------------------------------------------------------------


@admin_required
@require_http_methods(["GET", "POST"])
def settings_page(request):
    latest = selectors.audit_settings_latest()
    values = configuration.audit_settings_defaults()
    if latest is not None:
        values = {name: getattr(latest, name) for name in values}
    form = AuditSettingsForm(request.POST or None, initial=AuditSettingsForm.initial_from(values))
    if request.method == "POST":
        version = on_page(
            lambda: actions.settings_create(
                form, user=request.user, character_names=values["character_names"]
            )
        )
        if version is not REFUSED:
            messages.success(request, f"Saved as version {version.number}.")
            return redirect("audit:settings")
    return render(
        request,
        "audit/settings.html",
        {"form": form, "versions": selectors.audit_settings_versions(), "latest": latest},
    )


@outcome_readers_required
def outcomes_table(request, run_id, table):
    """One of the outcome page's tables, tidy: ``?format=csv`` or ``?format=parquet``."""
    run = statistics.audit_run_or_404(run_id)
    table = statistics.TABLES[table](run)
    return table_download(table, request, filename=f"{table.name}_{run.pk}")


# --- The senior's ways forward when the re-audit keeps flagging the edit (issue 32) ------


def _way_forward_forms(case_id, page, *, ask_form=None) -> dict:
    forms = {}
    if not page.reaudit_blocker:
        forms["reaudit_form"] = SeniorReauditForm(case_id=case_id)
    if not page.team_blocker:
        forms["ask_team_form"] = ask_form or SeniorAskTeamForm(case_id=case_id)
    return forms


@senior_required
@require_POST
def case_reaudit(request, case_id):
    try:
        _, findings = review.case_senior_reaudit(case_id=case_id, editor=request.user)
    except AuditError as error:
        for message in error.messages:
            messages.error(request, message)
    else:
        if findings:
            messages.warning(
                request,
                f"Re-audited: still flagged ({counted(len(findings), 'defect')}). Edit again"
                ", or ask the reviewing team when only the LLM classifier flags it.",
            )
        else:
            messages.success(request, "Re-audited: the edit passed and is accepted.")
    return redirect("audit:case-detail", case_id=case_id)


@senior_required
@require_POST
def case_ask_team(request, case_id):
    form = SeniorAskTeamForm(request.POST, case_id=case_id)
    if form.is_valid():
        try:
            review.case_senior_ask_team(
                case_id=case_id, editor=request.user, reason=form.cleaned_data["reason"]
            )
        except AuditError as error:
            add_error_messages(form, error)
        else:
            messages.success(
                request,
                "Sent to the reviewing team: their agreement that the LLM flag is a false "
                "positive accepts your edit; a confirmation returns it to you.",
            )
            return redirect("audit:case-detail", case_id=case_id)
    context = _case_context(request, case_id)
    if "ask_team_form" in context:
        context["ask_team_form"] = form
    return render(request, "audit/case_detail.html", context)
