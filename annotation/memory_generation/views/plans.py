"""Pages of memory quota allocation (App. B.4), admin only: the overview of characters
and their plans, the weight versions, a new plan and one plan shown per segment and per
life-stage bin before launch. Thin: parse, call a service or selector, render."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.views.decorators.http import require_http_methods, require_POST

from annotation.memory_generation import actions
from annotation.memory_generation.forms.plans import MemoryPlanForm, QuotaWeightsForm
from annotation.memory_generation.selectors import plans as selectors
from annotation.memory_generation.services.plans import (
    weights_current,
)
from core.life_stages import LIFE_STAGE_BINS
from core.roles import Role, role_required
from core.web import add_error_messages

admin_required = role_required(Role.ADMIN)


def _plan_ids(text: str) -> list[int]:
    return [int(part) for part in (text or "").split(",") if part.strip().isdigit()]


def launch_href(plan_ids) -> str:
    """Where generation of these plans is launched (the run pages)."""
    return reverse("memory_generation:run-new") + "?plans=" + ",".join(str(pk) for pk in plan_ids)


@admin_required
def index(request):
    new_ids = _plan_ids(request.GET.get("plans", ""))
    new_plans = sorted(selectors.plan_list(ids=new_ids), key=lambda p: p.pk) if new_ids else []
    return render(
        request,
        "memory_generation/index.html",
        {
            "rows": selectors.planning_overview(),
            "bins": LIFE_STAGE_BINS,
            "plans": selectors.plan_list(),
            "new_plans": new_plans,
            "new_plans_launch": launch_href(p.pk for p in new_plans),
        },
    )


@admin_required
@require_http_methods(["GET", "POST"])
def weights(request):
    current = weights_current()
    form = QuotaWeightsForm(request.POST or None, current=current.weights)
    if request.method == "POST" and form.is_valid():
        try:
            version = actions.weights_save(
                user=request.user, weights=form.weights(), note=form.cleaned_data["note"]
            )
        except actions.ActionRefused as refused:
            add_error_messages(form, refused)
        else:
            messages.success(request, f"Saved as quota weights v{version.number}.")
            return redirect("memory_generation:weights")
    return render(
        request,
        "memory_generation/weights.html",
        {
            "form": form,
            "current": current,
            "groups": selectors.weights_by_bin(current.weights),
            "versions": selectors.weights_versions(),
        },
    )


@admin_required
@require_http_methods(["GET", "POST"])
def plan_new(request):
    weights_current()  # the form offers v1 (the default) on a first visit
    versions = selectors.weights_versions()
    initial = {}
    chosen = [k for k in request.GET.get("characters", "").split(",") if k]
    if chosen:
        initial["characters"] = chosen
    form = MemoryPlanForm(
        request.POST or None,
        initial=initial,
        character_keys=selectors.plannable_character_keys(),
        weights_versions=versions,
    )
    if request.method == "POST" and form.is_valid():
        try:
            plans = actions.plans_create(
                user=request.user,
                character_keys=form.cleaned_data["characters"],
                weights_id=form.cleaned_data["weights"],
                target=form.cleaned_data["target"],
                note=form.cleaned_data["note"],
            )
        except actions.ActionRefused as refused:
            add_error_messages(form, refused)
        else:
            if len(plans) == 1:
                messages.success(request, f"Plan {plans[0].pk} computed; check it, then launch.")
                return redirect("memory_generation:plan-detail", plan_id=plans[0].pk)
            messages.success(request, f"{len(plans)} plans computed; check them, then launch.")
            ids = ",".join(str(p.pk) for p in plans)
            return redirect(f"{reverse('memory_generation:index')}?plans={ids}")
    return render(request, "memory_generation/plan_new.html", {"form": form})


@admin_required
def plan_detail(request, plan_id):
    page = selectors.plan_page(plan_id=plan_id)
    if page is None:
        raise Http404("No such memory plan.")
    return render(
        request,
        "memory_generation/plan_detail.html",
        {"page": page, "plan": page.plan, "launch": launch_href([page.plan.pk])},
    )


@admin_required
@require_POST
def plan_top_up_view(request, plan_id):
    try:
        plan = actions.plan_top_up(
            user=request.user, plan_id=plan_id, note=request.POST.get("note", "")
        )
    except actions.ActionRefused as refused:
        for message in refused.messages:
            messages.error(request, message)
        if request.POST.get("from") == "detail":
            return redirect("memory_generation:plan-detail", plan_id=plan_id)
        return redirect("memory_generation:index")
    messages.success(
        request, f"Top-up plan {plan.pk}: {plan.deficit} memories to generate; check, then launch."
    )
    return redirect("memory_generation:plan-detail", plan_id=plan.pk)


urlpatterns = [
    path("", index, name="index"),
    path("weights/", weights, name="weights"),
    path("plans/new/", plan_new, name="plan-new"),
    path("plans/<int:plan_id>/", plan_detail, name="plan-detail"),
    path("plans/<int:plan_id>/top-up/", plan_top_up_view, name="plan-top-up"),
]
