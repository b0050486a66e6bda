"""Pages of the blinded comparison: the annotator's queue and draft autosave. Thin: parse,
call a service or selector, render (the whole page, or its fragment for htmx). URLs carry
the assignment's opaque id only. The comparison page itself submits a judgment, which may
route the pair, and the assignment page checks arbitration records: both are
``adjudication.consensus``'s."""

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.comparison import selectors, services
from annotation.comparison.models import JUDGMENT_FIELDS
from core.plurals import counted
from core.roles import Role, role_required

annotator_required = role_required(Role.PRIMARY_ANNOTATOR)
admin_required = role_required(Role.ADMIN)

#: Rows of the annotator's queue per page (the counts above it cover the whole queue).
QUEUE_ROWS_PER_PAGE = 50


@annotator_required
def comparison_queue(request):
    queue = selectors.comparison_queue(user=request.user)
    rows = Paginator(queue.rows, QUEUE_ROWS_PER_PAGE).get_page(request.GET.get("page"))
    # Only this page's assignments become rows (the queryset is read a page at a time).
    rows.object_list = [selectors.queue_row(a) for a in rows.object_list]
    return render(request, "comparison/queue.html", {"queue": queue, "rows": rows})


@annotator_required
@require_http_methods(["GET", "POST"])
def comparison_draft(request, assignment):
    """The autosave target. GET (no JavaScript, or a typed address) goes to the page."""
    if request.method == "GET":
        return redirect("comparison:pair", assignment=assignment)
    data = {f: request.POST.get(f, "") for f in JUDGMENT_FIELDS if f in request.POST}
    try:
        draft = services.comparison_draft_save(
            public_id=assignment, annotator=request.user, data=data
        )
    except services.ComparisonNotFound as error:
        raise Http404(error.messages[0]) from None
    except services.ComparisonError as error:
        status = f"Not saved: {' '.join(error.messages)}"
    else:
        status = selectors.draft_saved_label(draft.updated_at)
    if request.htmx:
        return render(request, "comparison/pair.html#autosave", {"status": status})
    messages.info(request, status)
    return redirect("comparison:pair", assignment=assignment)


@annotator_required
@require_GET
def comparison_memory(request, assignment, memory_id):
    """One activated memory's texts, which the comparison page loads (htmx) when the
    memory's panel opens; only the annotator assigned to the pair reads them, and only
    for a memory one of its candidates cites."""
    memory = selectors.comparison_memory(
        public_id=assignment, user=request.user, memory_id=memory_id
    )
    if memory is None:
        raise Http404("No such memory in this comparison.")
    return render(request, "comparison/memory_text.html", {"m": memory})


@admin_required
@require_POST
def comparison_screen(request):
    """The admin's re-run of the leak screening over the pairs still with the annotators."""
    opened = services.comparison_pairs_screen(user=request.user)
    messages.info(request, f"Screening done: {counted(opened, 'new leak flag')}.")
    return redirect("screening:flags")
