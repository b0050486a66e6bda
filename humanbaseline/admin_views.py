"""The human baseline's admin pages: answer-key sources, model predictions, the ILP
selection, studies and their report. Thin: parse, call a service or selector, render.
(The participant pages are in ``views.py``.)"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from core import display
from core.actions import REFUSED, on_page
from core.plot_views import page_plot
from core.roles import Role, role_required
from core.tidy_tables import table_links
from core.web import add_error_messages

from . import actions, selectors, services, statistics
from .forms import (
    BestModelForm,
    CompletionForm,
    FamilyCsvForm,
    ParticipantAccountForm,
    PracticeReasonForm,
    PredictionCsvForm,
    ReportForm,
    SelectionForm,
    StudyForm,
)
from .models import (
    BaselineError,
    BaselineNotFound,
    BaselineStudy,
    ParticipantErasure,
    Participation,
    SubsetSelection,
)
from .presentation import (
    best_model_view,
    display_rows,
    range_rows,
    report_plots,
    reweighting_view,
    table19_rows,
)
from .report_state import report_state

admin_required = role_required(Role.ADMIN)


@admin_required
def admin_overview(request, *, selection_form=None, family_form=None, prediction_form=None):
    return render(
        request,
        "humanbaseline/admin.html",
        {
            "studies": selectors.study_list(),
            "selections": selectors.selection_list(),
            "source_counts": selectors.source_counts(),
            "selection_form": selection_form or SelectionForm(),
            "family_form": family_form or FamilyCsvForm(),
            "prediction_form": prediction_form or PredictionCsvForm(),
        },
    )


@admin_required
@require_POST
def families(request):
    if request.POST.get("from") == "references":
        count = services.item_families_from_references()
        messages.success(request, f"{count} item families copied from their references.")
        return redirect("baseline:admin")
    form = FamilyCsvForm(request.POST, request.FILES)
    imported = on_page(lambda: actions.families_import_csv(form))
    if imported is not REFUSED:
        count, name = imported
        messages.success(request, f"{count} item families set from {name}.")
        return redirect("baseline:admin")
    return admin_overview(request, family_form=form)


@admin_required
@require_POST
def predictions(request):
    form = PredictionCsvForm(request.POST, request.FILES)
    imported = on_page(lambda: actions.predictions_import_csv(form))
    if imported is not REFUSED:
        count, name = imported
        messages.success(request, f"{count} model predictions stored from {name}.")
        return redirect("baseline:admin")
    return admin_overview(request, prediction_form=form)


@admin_required
@require_POST
def selection_create(request):
    form = SelectionForm(request.POST)
    selection = on_page(lambda: actions.selection_create(form, user=request.user))
    if selection is not REFUSED:
        return redirect("baseline:selection-detail", selection_id=selection.pk)
    return admin_overview(request, selection_form=form)


@admin_required
def selection_detail(request, selection_id):
    selection = get_object_or_404(SubsetSelection, pk=selection_id)
    return render(
        request,
        "humanbaseline/selection_detail.html",
        {
            "selection": selection,
            "tables": selectors.selection_tables(selection),
            "ranges": range_rows(selection.parameters),
            "proposal_ranges": range_rows(selection.proposal),
        },
    )


@admin_required
def study_create(request):
    form = StudyForm(request.POST or None)
    if request.method == "POST":
        created = on_page(lambda: actions.study_create(form, user=request.user))
        if created is not REFUSED:
            return redirect("baseline:study-detail", study_id=created.pk)
    return render(request, "humanbaseline/study_form.html", {"form": form})


@admin_required
def study_detail(
    request,
    study_id,
    *,
    account_form=None,
    best_model_form=None,
    completion_form=None,
    reason_form=None,
):
    study_obj = get_object_or_404(BaselineStudy, pk=study_id)
    practice = [
        {
            "study_item": si,
            "form": reason_form
            if reason_form is not None and reason_form.position == si.position
            else PracticeReasonForm(
                study=study_obj, position=si.position, initial={"reason": si.practice_reason}
            ),
        }
        for si in selectors.practice_items(study=study_obj)
    ]
    return render(
        request,
        "humanbaseline/study_detail.html",
        {
            "study": study_obj,
            "participants": selectors.study_participants(study=study_obj),
            "account_form": account_form or ParticipantAccountForm(study=study_obj),
            "invitation_url": request.build_absolute_uri(
                reverse("baseline:join", args=[study_obj.invitation_token])
            ),
            "report": selectors.latest_report(study=study_obj),
            "best_model_history": selectors.best_model_history(study=study_obj),
            "best_model_form": best_model_form or BestModelForm(study=study_obj),
            "completion_form": completion_form or CompletionForm(study=study_obj),
            "pool_queries": services.pool_link_queries(),
            "load": selectors.study_reading_load(study=study_obj),
            "practice": practice,
            "erasures": study_obj.erasures.select_related("erased_by"),
        },
    )


@admin_required
@require_POST
def practice_reason(request, study_id, position):
    """Why a practice item's expected answer is expected (the participant's feedback)."""
    study_obj = get_object_or_404(BaselineStudy, pk=study_id)
    form = PracticeReasonForm(request.POST, study=study_obj, position=position)
    if form.is_valid():
        try:
            services.practice_reason_set(
                study=study_obj, position=position, reason=form.cleaned_data["reason"]
            )
        except BaselineNotFound as error:
            raise Http404(" ".join(error.messages)) from None
        except BaselineError as error:
            add_error_messages(form, error)
        else:
            messages.success(request, f"Reason for practice item {position} saved.")
            return redirect("baseline:study-detail", study_id=study_id)
    return study_detail(request, study_id, reason_form=form)


@admin_required
@require_POST
def study_completion(request, study_id):
    """The completion code and URL a participant gets on finalizing (Prolific, SONA)."""
    study_obj = get_object_or_404(BaselineStudy, pk=study_id)
    form = CompletionForm(request.POST, study=study_obj)
    if form.is_valid():
        try:
            services.study_completion_set(
                study=study_obj,
                code=form.cleaned_data["completion_code"],
                url=form.cleaned_data["completion_url"],
            )
        except ValidationError as error:
            form.add_error(None, error)
        else:
            messages.success(request, "Completion code and URL saved.")
            return redirect("baseline:study-detail", study_id=study_id)
    return study_detail(request, study_id, completion_form=form)


@admin_required
@require_POST
def best_model(request, study_id):
    study_obj = get_object_or_404(BaselineStudy, pk=study_id)
    form = BestModelForm(request.POST, study=study_obj)
    choice = on_page(lambda: actions.best_model_fix(form, user=request.user, study=study_obj))
    if choice is not REFUSED:
        messages.success(request, f"Best model fixed: {choice.model_label}.")
        return redirect("baseline:study-detail", study_id=study_id)
    return study_detail(request, study_id, best_model_form=form)


@admin_required
@require_POST
def participant_create(request, study_id):
    study_obj = get_object_or_404(BaselineStudy, pk=study_id)
    form = ParticipantAccountForm(request.POST, study=study_obj)
    outcome = on_page(lambda: actions.participant_create(form, study=study_obj))
    if outcome is not REFUSED:
        messages.success(request, f"Account {form.cleaned_data['username']} created.")
        return redirect("baseline:study-detail", study_id=study_id)
    return study_detail(request, study_id, account_form=form)


@admin_required
@require_POST
def study_status(request, study_id):
    study_obj = get_object_or_404(BaselineStudy, pk=study_id)
    status = request.POST.get("status")
    if status in BaselineStudy.Status.values:
        services.study_set_status(study=study_obj, status=status)
    return redirect("baseline:study-detail", study_id=study_id)


@admin_required
def report(request, study_id):
    study_obj = get_object_or_404(BaselineStudy, pk=study_id)
    form = ReportForm(request.POST or None, study=study_obj)
    if request.method == "POST":
        outcome = on_page(lambda: actions.report_request(form, user=request.user, study=study_obj))
        if outcome is not REFUSED:
            return redirect("baseline:report", study_id=study_id)
    latest = selectors.latest_report(study=study_obj)
    context = {
        "study": study_obj,
        "form": form,
        "report": latest,
        "polling": latest is not None and latest.status in ("pending", "running"),
    }
    if latest is not None and latest.status == "done":
        context["state"] = report_state(latest)  # fresh, or stale: its inputs changed since
        context["rows"] = display_rows(latest.results)
        context["plots"] = [
            page_plot(
                scene,
                name=name,
                url_name="baseline:report-plot",
                testid="report-plot",
                study_id=study_id,
            )
            for name, scene in report_plots(latest.results).items()
        ]
        context["kappa_note"] = display.small_n_note(latest.results.get("n_items"), "item")
        context["table19"] = table19_rows(latest.results)
        context["best"] = best_model_view(latest.results)
        context["weights"] = reweighting_view(latest.results)
        context["tidy"] = table_links(
            reverse("baseline:report-table", args=[study_obj.pk]),
            name=statistics.BASELINE_REPORT.name,
            api_url=reverse("baseline-statistics-api:report-rows", args=[study_obj.pk]),
        )
    if request.htmx:
        return render(request, "humanbaseline/report.html#result", context)
    return render(request, "humanbaseline/report.html", context)


@admin_required
def participant_erase(request, study_id, participation_id):
    """Erase a participant's personal data, or all their data: a page that says what
    goes and what stays, then the final confirmation (the shared dialog)."""
    study_obj = get_object_or_404(BaselineStudy, pk=study_id)
    participation = get_object_or_404(
        Participation.objects.select_related("user"), pk=participation_id, study=study_obj
    )
    error = ""
    if request.method == "POST":
        try:
            erasure = services.participant_erase(
                participation=participation, scope=request.POST.get("scope", ""), user=request.user
            )
        except BaselineError as e:
            error = " ".join(e.messages)
        else:
            messages.success(
                request,
                f"Erased ({erasure.get_scope_display().lower()}). The participant is now "
                f"listed as {erasure.placeholder}.",
            )
            return redirect("baseline:study-detail", study_id=study_id)
    return render(
        request,
        "humanbaseline/participant_erase.html",
        {
            "study": study_obj,
            "p": participation,
            "number": selectors.participant_labels(study=study_obj)[participation.pk],
            "scopes": ParticipantErasure.Scope.choices,
            "error": error,
        },
        status=400 if error else 200,
    )
