"""The annotator's comparison page, whose form submits a judgment (and so may route the
pair), and the admin's assignment page (which checks arbitration records). Thin: parse,
call a service or selector, render. The comparison page's URL carries the assignment's
opaque id only."""

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from adjudication.consensus import actions, services
from annotation.comparison import selectors
from annotation.comparison import services as comparison_services
from annotation.comparison.forms import AssignmentForm, ComparisonJudgmentForm
from annotation.comparison.models import ComparisonPair
from annotation.comparison.services import ComparisonError
from annotation.generation.models import GenerationRun
from core.actions import REFUSED, on_page
from core.plurals import counted
from core.roles import Role, role_required
from core.web import add_error_messages

annotator_required = role_required(Role.PRIMARY_ANNOTATOR)
admin_required = role_required(Role.ADMIN)
#: Rows of the assignment page's pair list per page.
PAIRS_PER_PAGE = 50


def _initial(page) -> dict:
    if page.draft:
        return page.draft
    if page.judgment is not None:
        return page.judgment.content()
    return {}


def _to_next_pair(request, page, judgment):
    """After a submit, the next pair of the annotator's queue that awaits them (or the
    queue when none does), with a message naming what was saved."""
    revised = " revised" if judgment.version > 1 else ""
    saved = f"Submitted your{revised} judgment of {page.pair.title}."
    following = selectors.comparison_queue(user=request.user).after(page.public_id)
    if following is None:
        messages.success(request, f"{saved} No other pair awaits your judgment.")
        return redirect("comparison:queue")
    messages.success(request, f"{saved} Next: {following.title}.")
    return redirect("comparison:pair", assignment=following.public_id)


@annotator_required
@require_http_methods(["GET", "POST"])
def comparison_pair(request, assignment):
    # The memories' summary lines only: a panel loads its memory's texts when opened.
    page = selectors.comparison_page(public_id=assignment, user=request.user, memory_texts=False)
    if page is None:
        raise Http404("This comparison is not assigned to you.")
    form = None
    if request.method == "POST":
        form = ComparisonJudgmentForm(request.POST, public_id=page.public_id)
        judgment = on_page(lambda: actions.judgment_submit(form, user=request.user, page=page))
        if judgment is not REFUSED:
            return _to_next_pair(request, page, judgment)
    if form is None:
        form = ComparisonJudgmentForm(
            initial=_initial(page), public_id=page.public_id, readonly=not page.is_open
        )
    return render(request, "comparison/pair.html", {"page": page, "form": form})


@admin_required
@require_http_methods(["GET", "POST"])
def comparison_assign(request):
    runs = GenerationRun.objects.order_by("-created_at")
    annotators = (
        get_user_model()
        .objects.filter(groups__name=Role.PRIMARY_ANNOTATOR.value, is_active=True)
        .order_by("username")
    )
    form = AssignmentForm(request.POST or None, runs=runs, annotators=annotators)
    if request.method == "POST" and form.is_valid():
        try:
            run = form.cleaned_data["run"]
            if run is not None:
                comparison_services.comparison_pairs_create(user=request.user, run_id=run.pk)
            # Every pair with the annotators, but one waiting for a leak flag stays out
            # until it is cleaned or accepted (chosen in the database).
            pairs = selectors.comparison_assignable(
                status=ComparisonPair.Status.ANNOTATING, waiting=False
            )
            created = services.pairs_assign(
                user=request.user,
                pair_ids=list(pairs.values_list("pk", flat=True)),
                annotator_ids=[u.pk for u in form.cleaned_data["annotators"]],
                batch_size=form.cleaned_data["batch_size"],
            )
        except ComparisonError as error:
            add_error_messages(form, error)
        else:
            messages.success(request, f"{counted(created, 'new assignment')}.")
            return redirect("comparison:assign")
    shown = _pair_filter(request)
    pairs = Paginator(selectors.comparison_assignable(**shown), PAIRS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    # Only this page's pairs are read, and only their leak flags are named.
    pairs.object_list = selectors.with_waiting_flags(pairs.object_list)
    return render(
        request,
        "comparison/assign.html",
        {
            "form": form,
            "pairs": pairs,
            "statuses": ComparisonPair.Status.choices,
            "shown": shown,
            "regenerations": selectors.comparison_regenerations_waiting(),
        },
    )


def _pair_filter(request) -> dict:
    """The assignment page's pair filter from its query string: ``?status=`` (a pair
    status) and ``?waits=yes|no`` (waiting for a leak flag, or not); unknown values
    show every pair."""
    status = request.GET.get("status", "")
    waits = {"yes": True, "no": False}.get(request.GET.get("waits", ""))
    return {
        "status": status if status in ComparisonPair.Status.values else "",
        "waiting": waits,
    }
