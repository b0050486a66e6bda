"""The annotator's comparison page, whose form submits a judgment (and so may route the
pair). Thin: parse, call a service or selector, render. The URL carries the
assignment's opaque id only."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from adjudication.consensus import services
from annotation.comparison import selectors
from annotation.comparison.forms import ComparisonJudgmentForm
from annotation.comparison.services import ComparisonError
from heartbench_site.base.roles import Role, role_required
from heartbench_site.base.web import add_error_messages

annotator_required = role_required(Role.PRIMARY_ANNOTATOR)


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
                judgment = services.judgment_submit(
                    public_id=page.public_id, annotator=request.user, content=form.cleaned_data
                )
            except ComparisonError as error:
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
