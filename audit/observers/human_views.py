"""Human observers' pages (issue 37): the admin's form asking people to rate a finished
run's characters, and the observer's own pages: the task list and the rating page.

!!! BLINDING !!!  The observer's pages show only the person's own units, named
"Person N", with the material's texts and the inventory's statements: never a character
key, a memory id, a profile field, a design number, an item's trait or another person's
task (404). The admin's form is admin-only like the other observer pages.
"""

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils.html import escape
from django.views.decorators.http import require_http_methods

from audit.observers import human, selectors
from audit.observers.human_forms import HumanObserverForm
from audit.observers.services import ObserverRunError
from core import drafts
from core.roles import Role, role_required

TASKS_PER_PAGE = 25

admin_required = role_required(Role.ADMIN)
observer_required = role_required(Role.OBSERVER)


# --- the admin -----------------------------------------------------------------------------


@admin_required
@require_http_methods(["GET", "POST"])
def human_observers(request, observer_run_id):
    run = selectors.observer_run_get(run_id=observer_run_id)
    posted = request.method == "POST"
    form = HumanObserverForm(*((request.POST,) if posted else ()), run=run)
    if posted and form.is_valid():
        try:
            made = human.human_observers_assign(
                run_id=run.pk,
                users=form.cleaned_data["people"],
                character_ids=[c.pk for c in form.cleaned_data["characters"]],
            )
        except ObserverRunError as error:
            form.add_error(None, str(error))
        else:
            n = len(made)
            messages.success(
                request,
                f"{n} task{pluralize(n)} added: each person rates the same passages the "
                "model observers read."
                if n
                else "Nothing added: every person chosen already has these characters.",
            )
            return redirect("audit:observers:run", observer_run_id=run.pk)
    return render(
        request,
        "audit/observers/human_observers.html",
        {
            "run": run,
            "form": form,
            "assignable": run.status in human.ASSIGNABLE,
            "observers": human.observer_people().count(),
        },
    )


# --- the observer ----------------------------------------------------------------------------


@observer_required
def observer_tasks(request):
    page = Paginator(human.own_tasks(request.user), TASKS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    return render(
        request,
        "audit/observers/tasks.html",
        {"page": page, "rows": human.task_rows(page, request.user)},
    )


def _task_context(request, unit, name, *, values=None, problems=()):
    saved = drafts.form_draft_get(user=request.user, key=human.draft_key(unit.pk))
    shown = values if values is not None else human.current_values(request.user, unit)
    return {
        "unit_id": unit.pk,
        "name": name,
        "done": unit.status == human.UnitStatus.SUCCEEDED,
        "memories": unit.run.target == "memories",
        "passages": human.passages(unit),
        "statements": human.statements(unit, shown),
        "scale": human.scale(unit),
        "autosave_status": drafts.autosave_status(saved),
        "problems": problems,
        "draft_url": reverse("audit:observers:task-draft", kwargs={"task_id": unit.pk}),
    }


@observer_required
@require_http_methods(["GET", "POST"])
def observer_task(request, task_id):
    unit, name = human.own_task(request.user, task_id)
    if request.method == "GET":
        return render(request, "audit/observers/task.html", _task_context(request, unit, name))
    posted = {i: request.POST.get(human.statement_field(i), "") for i in _positions(unit)}
    try:
        if request.POST.get("action") == "submit":
            human.submit(user=request.user, unit_id=unit.pk, data=request.POST)
            messages.success(request, f"Your ratings of {name} are submitted. Thank you.")
        else:
            human.save_draft(user=request.user, unit=unit, data=request.POST)
            messages.success(request, "Draft saved: your answers are kept until you submit.")
    except ObserverRunError as error:
        context = _task_context(request, unit, name, values=posted, problems=[str(error)])
        return render(request, "audit/observers/task.html", context, status=400)
    return redirect("audit:observers:task", task_id=unit.pk)


def _positions(unit):
    return range(1, unit.run.inventory.item_count + 1)


@observer_required
@require_http_methods(["GET", "POST"])
def observer_task_draft(request, task_id):
    """The rating page's autosave: the person's own open task only."""
    unit, _ = human.own_task(request.user, task_id)
    page_url = reverse("audit:observers:task", kwargs={"task_id": unit.pk})
    if request.method == "POST" and unit.status != human.UnitStatus.PENDING:
        status = "Not saved: this task is submitted."
        if request.htmx:
            return HttpResponse(escape(status))
        messages.error(request, status)
        return redirect(page_url)
    return drafts.autosave_response(
        request,
        key=human.draft_key(unit.pk),
        fields=human.statement_fields(unit),
        page_url=page_url,
    )
