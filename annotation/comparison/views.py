"""Pages of the blinded comparison: the annotator's queue and draft autosave, the admin's
assignment page. Thin: parse, call a service or selector, render (the whole page, or its
fragment for htmx). URLs carry the assignment's opaque id only. The comparison page
itself submits a judgment, which may route the pair: it is ``adjudication.consensus``'s."""

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from annotation.comparison import selectors, services
from annotation.comparison.forms import AssignmentForm
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
