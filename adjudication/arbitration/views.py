"""Pages of arbitration and of the comparison outcomes. Thin: parse, call a service or
selector, render."""

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from adjudication.arbitration import actions, selectors, services
from adjudication.arbitration.forms import ArbitrationForm, ReopenForm
from core.conflicts import arbitration_conflict, arbitration_conflict_rows, conflict_page
from core.roles import Role, role_required, user_roles

arbitrator_required = role_required(Role.ARBITRATOR)
arbitration_readers = role_required(Role.ARBITRATOR, Role.ADMIN)
admin_required = role_required(Role.ADMIN)
TEXT_FIELDS = services.REFERENCE_TEXT_FIELDS
#: Rows of the arbitration queue (and of the decided list) per page.
PAIRS_PER_PAGE = 50


def _queue(request, *, decided: bool):
    pairs = selectors.arbitration_decided() if decided else selectors.arbitration_queue()
    # The page is taken in the database first (a count, then one LIMIT query); only its
    # rows are read and annotated, whatever the number of pairs (issue #34).
    rows = Paginator(pairs, PAIRS_PER_PAGE).get_page(request.GET.get("page"))
    rows.object_list = list(rows.object_list)
    if not decided and Role.ARBITRATOR in user_roles(request.user):
        # Issue #24: the pairs this arbitrator judged (any round) say so, one query.
        barred = arbitration_conflict_rows(rows.object_list, [request.user])
        for p in rows.object_list:
            p.conflict = "; ".join(barred.get((p.character_id, p.scenario_id, request.user.pk), []))
    # The assignment page is the admins': no link an arbitrator cannot follow.
    can_assign = Role.ADMIN in user_roles(request.user)
    return render(
        request,
        "adjudication/queue.html",
        {"pairs": rows, "decided": decided, "can_assign": can_assign},
    )


@arbitration_readers
def arbitration_queue(request):
    return _queue(request, decided=False)


@arbitration_readers
def arbitration_decided(request):
    return _queue(request, decided=True)


def _prefill(page, number):
    chosen = page.by_number(number)
    if chosen is None:
        return {}
    return {
        "kind": "edited",
        "candidate": number,
        **{f: getattr(chosen.candidate, f) for f in TEXT_FIELDS},
    }


def _form(page, pair_id, *args, **kwargs) -> ArbitrationForm:
    return actions.arbitration_form(page, *args, **kwargs)


def _preview(page, form) -> tuple[object, dict | None, str]:
    """(the candidate being edited, the word diff of each text field, or why there is
    none). A preview never records anything."""
    if not form.is_valid():
        problems = " ".join(str(e) for errors in form.errors.values() for e in errors)
        return None, None, f"Correct the form first: {problems}"
    data = form.cleaned_data
    chosen = page.by_number(data["candidate"]) if data["candidate"] else None
    if data["kind"] != "edited" or chosen is None:
        return chosen, None, "Choose “Edit a candidate” and the candidate you edit to see the diff."
    labels = services.REFERENCE_TEXT_LABELS
    diff = {
        labels[f]: selectors.edit_diff(getattr(chosen.candidate, f), data[f]) for f in TEXT_FIELDS
    }
    return chosen, diff, ""


@arbitration_readers
@require_http_methods(["GET", "POST"])
def arbitration_pair(request, pair_id):
    page = selectors.arbitration_page(pair_id=pair_id)
    if page is None:
        raise Http404("No such comparison pair.")
    is_arbitrator = Role.ARBITRATOR in user_roles(request.user)
    # App. D.2: nobody arbitrates a pair they judged, in any round (the service refuses
    # it too, at the act); the page says why instead of offering the form.
    conflict = arbitration_conflict(page.pair, request.user) if is_arbitrator else None
    judged_it = conflict is not None
    diff, preview_error, editing = None, "", None
    if request.method == "POST":
        if not is_arbitrator:
            raise Http404("Only an arbitrator decides.")
        if conflict:
            return conflict_page(request, services.ArbitrationConflict(conflict))
        form = _form(page, pair_id, request.POST)
        if "preview" in request.POST:
            editing, diff, preview_error = _preview(page, form)
            if request.htmx:
                return render(
                    request,
                    "adjudication/pair.html#diff",
                    {"diff": diff, "preview_error": preview_error, "editing": editing},
                )
        else:
            try:
                actions.arbitration_decide(
                    form,
                    user=request.user,
                    page=page,
                    on_unavailable=lambda message: messages.error(request, message),
                )
            except actions.ActionRefused as refused:
                if isinstance(refused.cause, services.ArbitrationConflict):
                    return conflict_page(request, refused.cause)
            else:
                messages.success(request, f"Decision recorded for {page.pair.title}.")
                return redirect("adjudication:pair", pair_id=pair_id)
    else:
        number = request.GET.get("edit", "")
        form = _form(page, pair_id, initial=_prefill(page, int(number)) if number.isdigit() else {})
    return render(
        request,
        "adjudication/pair.html",
        {
            "page": page,
            "form": form
            if is_arbitrator and not judged_it and page.pair.status == "escalated"
            else None,
            "judged_it": judged_it,
            "conflict": conflict,
            "editing": editing,
            "diff": diff,
            "preview_error": preview_error,
            "candidate_texts": {
                c.number: {f: getattr(c.candidate, f) for f in TEXT_FIELDS} for c in page.candidates
            },
            "reopen_form": ReopenForm(pair_id=pair_id, pair_label=page.pair.title)
            if Role.ADMIN in user_roles(request.user) and page.decision
            else None,
        },
    )


@admin_required
@require_POST
def arbitration_reopen(request, pair_id):
    form = ReopenForm(request.POST, pair_id=pair_id)
    try:
        actions.arbitration_reopen(form, user=request.user, pair_id=pair_id)
    except actions.ActionRefused as refused:
        messages.error(request, " ".join(refused.messages))
    else:
        messages.success(request, "Decision reopened; the pair is back in the queue.")
    return redirect("adjudication:pair", pair_id=pair_id)
