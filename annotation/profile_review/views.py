"""Pages of profile review. Thin: parse, call a service or selector, render (the whole
page, or its fragment for htmx)."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from annotation.profile_review import actions, selectors, statistics
from annotation.profile_review.forms import (
    PROFILE_REVIEW_FIELDS,
    ChangeRequestForm,
    ChangeRequestResolveForm,
    FreezeForm,
    ProfileEditForm,
    ProfileReviewForm,
)
from annotation.profile_review.models import PROFILE_CRITERIA_FIELDS, ChangeRequest
from core import drafts
from core.actions import REFUSED, on_page
from core.plurals import counted
from core.roles import Role, role_required, user_roles
from core.tidy_tables import table_download, table_links
from core.web import csv_download

annotator_required = role_required(Role.PRIMARY_ANNOTATOR)
senior_required = role_required(Role.ARBITRATOR)
profile_overview_required = role_required(Role.PRIMARY_ANNOTATOR, Role.ARBITRATOR, Role.ADMIN)
outcome_readers_required = role_required(Role.ARBITRATOR, Role.ADMIN)


@profile_overview_required
def profile_list(request):
    held = user_roles(request.user)
    return render(
        request,
        "review/profile_list.html",
        {
            "rows": selectors.profile_review_queue(user=request.user),
            "is_annotator": Role.PRIMARY_ANNOTATOR in held,
            "is_senior": Role.ARBITRATOR in held,
        },
    )


def _draft_key(page) -> str:
    """One draft per reviewer and version under review: a later round starts afresh."""
    return f"profile-review:{page.character.key}:v{page.version.number}"


def _profile_review_context(request, key, *, review_form=None, request_form=None):
    page = selectors.profile_review_page(character_key=key, user=request.user)
    draft = None
    if page.version is not None and page.can_review:
        draft = drafts.form_draft_get(user=request.user, key=_draft_key(page))
    if review_form is None:
        initial = {}
        if page.own_review is not None:
            own = page.own_review
            initial = {
                "recommendation": own.recommendation,
                "explanation": own.explanation,
                "unresolved_concern": own.unresolved_concern,
                "missing_information": own.missing_information,
                **{n: getattr(own, n) for n in PROFILE_CRITERIA_FIELDS},
            }
        initial.update(drafts.form_draft_values(draft))
        review_form = ProfileReviewForm(initial=initial, character_key=key)
    return {
        "page": page,
        "review_form": review_form,
        "request_form": request_form or ChangeRequestForm(character_key=key),
        "autosave_status": drafts.autosave_status(draft),
    }


@annotator_required
@require_http_methods(["GET", "POST"])
def profile_review(request, key):
    form = None
    if request.method == "POST":
        form = ProfileReviewForm(request.POST, character_key=key)
        submit = "submit" in request.POST
        review = on_page(
            lambda: actions.profile_review_save(
                form, user=request.user, character_key=key, submit=submit
            )
        )
        if review is not REFUSED:
            # The saved review now holds what the draft held.
            drafts.form_draft_clear(
                user=request.user,
                key=f"profile-review:{key}:v{review.case.reviewed_version.number}",
            )
            messages.success(request, f"Review of {key} submitted." if submit else "Draft saved.")
            return redirect("review:profile-review", key=key)
    return render(
        request,
        "review/profile_review.html",
        _profile_review_context(request, key, review_form=form),
    )


@annotator_required
@require_http_methods(["GET", "POST"])
def profile_review_draft(request, key):
    """The review form's autosave: only a reviewer who may still review this version."""
    page = selectors.profile_review_page(character_key=key, user=request.user)
    if request.method == "POST" and (page.version is None or not page.can_review):
        raise PermissionDenied(page.closed_reason or "This review is closed.")
    return drafts.autosave_response(
        request,
        key=_draft_key(page) if page.version else "",
        fields=PROFILE_REVIEW_FIELDS,
        limits=drafts.form_text_limits(ProfileReviewForm),
        page_url=reverse("review:profile-review", kwargs={"key": key}),
    )


@annotator_required
@require_POST
def change_request_add(request, key):
    form = ChangeRequestForm(request.POST, character_key=key)
    outcome = on_page(
        lambda: actions.change_request_add(form, user=request.user, character_key=key)
    )
    if outcome is not REFUSED:
        if not request.htmx:
            messages.success(request, "Change request added.")
            return redirect("review:profile-review", key=key)
        form = None
    template = "review/profile_review.html"
    if request.htmx:
        template += "#change-requests"
    return render(request, template, _profile_review_context(request, key, request_form=form))


@annotator_required
@require_POST
def change_request_withdraw(request, key, id):
    try:
        actions.change_request_withdraw(user=request.user, request_id=id)
    except actions.ActionRefused as refused:
        messages.error(request, " ".join(refused.messages))
    if request.htmx:
        return render(
            request,
            "review/profile_review.html#change-requests",
            _profile_review_context(request, key),
        )
    return redirect("review:profile-review", key=key)


def _adjudication_context(key, *, edit_form=None, freeze_form=None):
    page = selectors.profile_adjudication_page(character_key=key)
    if edit_form is None and page.latest is not None:
        edit_form = ProfileEditForm(
            initial=ProfileEditForm.initial_for(page.latest), character_key=key
        )
    resolve_forms = {
        cr.pk: ChangeRequestResolveForm(character_key=key, request_id=cr.pk)
        for group in page.by_field
        for cr in group.requests
        if cr.status == ChangeRequest.Status.OPEN
    }
    return {
        "page": page,
        "edit_form": edit_form,
        "freeze_form": freeze_form or FreezeForm(character_key=key),
        "resolve_forms": resolve_forms,
    }


@senior_required
def profile_adjudicate(request, key):
    return render(request, "review/profile_adjudicate.html", _adjudication_context(key))


@senior_required
@require_http_methods(["GET", "POST"])
def profile_edit(request, key):
    if request.method == "GET":
        return redirect(reverse("review:profile-adjudicate", kwargs={"key": key}) + "#edit")
    form = ProfileEditForm(request.POST, character_key=key)
    edit = on_page(lambda: actions.profile_edit(form, user=request.user, character_key=key))
    if edit is not REFUSED:
        messages.success(
            request,
            f"Saved as v{edit.to_version.number}: {counted(len(edit.diff), 'field')} changed.",
        )
        return redirect("review:profile-edit-detail", key=key, id=edit.pk)
    return render(
        request, "review/profile_adjudicate.html", _adjudication_context(key, edit_form=form)
    )


@senior_required
def profile_edit_detail(request, key, id):
    edit = selectors.edit_get(edit_id=id)
    if edit.case.character.key != key:
        return redirect("review:profile-edit-detail", key=edit.case.character.key, id=id)
    return render(request, "review/profile_edit_detail.html", {"edit": edit})


@senior_required
@require_POST
def change_request_resolve(request, key, id):
    form = ChangeRequestResolveForm(request.POST, character_key=key, request_id=id)
    outcome = on_page(
        lambda: actions.change_request_resolve(form, user=request.user, request_id=id)
    )
    if outcome is not REFUSED:
        if not request.htmx:
            messages.success(request, "Change request resolved.")
            return redirect("review:profile-adjudicate", key=key)
        form = None
    context = _adjudication_context(key)
    if form is not None:
        context["resolve_forms"][id] = form
    if request.htmx:
        context["cr"] = next(
            (cr for g in context["page"].by_field for cr in g.requests if cr.pk == id), None
        )
        if context["cr"] is None:
            return HttpResponse(status=404)
        return render(request, "review/profile_adjudicate.html#change-request", context)
    return render(request, "review/profile_adjudicate.html", context)


@senior_required
@require_POST
def profile_freeze(request, key):
    form = FreezeForm(request.POST, character_key=key)
    version = on_page(lambda: actions.profile_freeze(form, user=request.user, character_key=key))
    if version is not REFUSED:
        messages.success(request, f"{version} is frozen.")
        return redirect("review:profile-adjudicate", key=key)
    return render(
        request, "review/profile_adjudicate.html", _adjudication_context(key, freeze_form=form)
    )


@outcome_readers_required
def profile_outcomes(request):
    tidy = table_links(
        reverse("review:profile-outcomes-table"),
        name=statistics.PROFILE_REVIEW_OUTCOMES.name,
        api_url=reverse("review-api:profile-outcome-rows"),
    )
    return render(
        request,
        "review/profile_outcomes.html",
        {"table": selectors.profile_outcome_table(), "tidy": tidy},
    )


@outcome_readers_required
def profile_outcomes_csv(request):
    table = selectors.profile_outcome_table()
    rows = [
        [r.label, r.count, "" if r.percent is None else f"{r.percent:.1f}", " ".join(r.characters)]
        for r in table.rows
    ]
    rows.append(["Total", table.total, "100.0" if table.total else "", ""])
    response, writer = csv_download("profile_review_outcomes.csv")
    writer.writerow(["outcome", "profiles", "percent", "characters"])
    writer.writerows(rows)
    return response


@outcome_readers_required
def profile_outcomes_table(request):
    """The outcomes as a tidy table: ``?format=csv`` or ``?format=parquet``."""
    return table_download(statistics.profile_review_outcomes_table(), request)
