"""Pages of the blinded comparison. Thin: parse, call a service or selector, render (the
whole page, or its fragment for htmx). URLs carry the assignment's opaque id only."""

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from annotation.comparison import selectors, services
from annotation.comparison.forms import AssignmentForm, ComparisonJudgmentForm
from annotation.comparison.models import JUDGMENT_FIELDS
from annotation.generation.models import GenerationRun
from heartbench_site.base.roles import Role, role_required
from heartbench_site.base.web import add_error_messages

annotator_required = role_required(Role.PRIMARY_ANNOTATOR)
admin_required = role_required(Role.ADMIN)


@annotator_required
def comparison_queue(request):
    return render(
        request, "comparison/queue.html", {"queue": selectors.comparison_queue(user=request.user)}
    )


def _initial(page) -> dict:
    if page.draft:
        return page.draft
    if page.judgment is not None:
        return page.judgment.content()
    return {}


@annotator_required
@require_http_methods(["GET", "POST"])
def comparison_pair(request, assignment):
    page = selectors.comparison_page(public_id=assignment, user=request.user)
    if page is None:
        raise Http404("This comparison is not assigned to you.")
    form = None
    if request.method == "POST":
        form = ComparisonJudgmentForm(request.POST, public_id=page.public_id)
        if form.is_valid():
            try:
                judgment = services.comparison_submit(
                    public_id=page.public_id, annotator=request.user, content=form.cleaned_data
                )
            except services.ComparisonError as error:
                add_error_messages(form, error)
            else:
                messages.success(
                    request,
                    f"Judgment submitted (version {judgment.version}) for "
                    f"{page.pair.character.key} × {page.pair.scenario.scenario_id}.",
                )
                return redirect("comparison:pair", assignment=page.public_id)
    if form is None:
        form = ComparisonJudgmentForm(
            initial=_initial(page), public_id=page.public_id, readonly=not page.is_open
        )
    return render(request, "comparison/pair.html", {"page": page, "form": form})


@annotator_required
@require_http_methods(["GET", "POST"])
def comparison_draft(request, assignment):
    """The autosave target. GET (no JavaScript, or a typed address) goes to the page."""
    if request.method == "GET":
        return redirect("comparison:pair", assignment=assignment)
    data = {f: request.POST.get(f, "") for f in JUDGMENT_FIELDS if f in request.POST}
    try:
        services.comparison_draft_save(public_id=assignment, annotator=request.user, data=data)
    except services.ComparisonError as error:
        status = error.messages[0]
    else:
        status = "Draft saved."
    if request.htmx:
        return render(request, "comparison/pair.html#autosave", {"status": status})
    messages.info(request, status)
    return redirect("comparison:pair", assignment=assignment)


@admin_required
@require_http_methods(["GET", "POST"])
def comparison_assign(request):
    runs = GenerationRun.objects.order_by("-created_at")
    annotators = (
        get_user_model()
        .objects.filter(groups__name=Role.PRIMARY_ANNOTATOR.value)
        .order_by("username")
    )
    form = AssignmentForm(request.POST or None, runs=runs, annotators=annotators)
    if request.method == "POST" and form.is_valid():
        try:
            run = form.cleaned_data["run"]
            if run is not None:
                services.comparison_pairs_create(user=request.user, run_id=run.pk)
            pairs = selectors.comparison_assignable()
            created = services.comparison_assign(
                user=request.user,
                pair_ids=[p.pk for p in pairs],
                annotator_ids=[u.pk for u in form.cleaned_data["annotators"]],
                overlap=form.cleaned_data["overlap"],
                batch_size=form.cleaned_data["batch_size"],
            )
        except services.ComparisonError as error:
            add_error_messages(form, error)
        else:
            messages.success(request, f"{created} new assignment(s).")
            return redirect("comparison:assign")
    return render(
        request,
        "comparison/assign.html",
        {"form": form, "pairs": selectors.comparison_assignable()},
    )
