"""The admin's leak-flag pages: the open flags with their matches highlighted, and one
flag with its clean and accept forms. Thin: parse, call a service or selector, render.
Admins only: a flag names a candidate's provenance, so annotators never see one."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from annotation.candidate_screening import selectors, services
from annotation.candidate_screening.forms import AcceptForm, CleanForm
from annotation.candidate_screening.models import SCREENED_FIELDS, LeakFlag
from core.roles import Role, role_required
from core.web import add_error_messages

admin_required = role_required(Role.ADMIN)


@admin_required
def flag_list(request):
    status = request.GET.get("status", LeakFlag.Status.OPEN)
    if status not in LeakFlag.Status.values:
        status = LeakFlag.Status.OPEN
    return render(
        request,
        "candidate_screening/flag_list.html",
        {
            "flags": selectors.flag_list(status=status),
            "status": status,
            "statuses": LeakFlag.Status.choices,
        },
    )


def _page(request, flag_id, *, clean_form=None, accept_form=None):
    view = selectors.flag_page(flag_id=flag_id)
    if view is None:
        raise Http404("There is no such leak flag.")
    is_open = view.flag.status == LeakFlag.Status.OPEN
    return render(
        request,
        "candidate_screening/flag_detail.html",
        {
            "view": view,
            "is_open": is_open,
            "clean_form": clean_form or (CleanForm(flag=view.flag) if is_open else None),
            "accept_form": accept_form or (AcceptForm(flag=view.flag) if is_open else None),
        },
    )


@admin_required
def flag_detail(request, flag_id):
    return _page(request, flag_id)


def _flag_or_404(flag_id) -> LeakFlag:
    flag = LeakFlag.objects.select_related("candidate").filter(pk=flag_id).first()
    if flag is None:
        raise Http404("There is no such leak flag.")
    return flag


@admin_required
@require_http_methods(["GET", "POST"])
def flag_clean(request, flag_id):
    if request.method == "GET":
        return redirect("screening:flag", flag_id=flag_id)
    flag = _flag_or_404(flag_id)
    form = CleanForm(request.POST, flag=flag)
    if form.is_valid():
        try:
            services.flag_clean(
                flag_id=flag.pk,
                user=request.user,
                fields={f: form.cleaned_data[f] for f in SCREENED_FIELDS},
                reason=form.cleaned_data["reason"],
            )
        except services.ScreeningError as error:
            add_error_messages(form, error)
        else:
            again = selectors.open_flags_of([flag.candidate_id])
            if again:
                messages.warning(
                    request,
                    f"Cleaning recorded, but the cleaned text still matches a rule: leak "
                    f"flag {again[flag.candidate_id]} is open.",
                )
                return redirect("screening:flag", flag_id=again[flag.candidate_id])
            messages.success(request, f"Candidate {flag.candidate_id} cleaned; flag closed.")
            return redirect("screening:flags")
    return _page(request, flag_id, clean_form=form)


@admin_required
@require_http_methods(["GET", "POST"])
def flag_accept(request, flag_id):
    if request.method == "GET":
        return redirect("screening:flag", flag_id=flag_id)
    flag = _flag_or_404(flag_id)
    form = AcceptForm(request.POST, flag=flag)
    if form.is_valid():
        try:
            services.flag_accept(
                flag_id=flag.pk, user=request.user, reason=form.cleaned_data["reason"]
            )
        except services.ScreeningError as error:
            add_error_messages(form, error)
        else:
            messages.success(request, f"Leak flag {flag.pk} accepted as a false positive.")
            return redirect("screening:flags")
    return _page(request, flag_id, accept_form=form)
