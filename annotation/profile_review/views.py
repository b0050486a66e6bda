"""Pages of the construction-stage reviews. Thin: parse, call a service or selector,
render (the whole page, or its fragment for htmx)."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from annotation.profile_review import selectors, services
from annotation.profile_review.forms import (
    BlueprintForm,
    ChangeRequestForm,
    ChangeRequestResolveForm,
    DiamondsRatingForm,
    FreezeForm,
    ProfileEditForm,
    ProfileReviewForm,
    ReassessmentForm,
    ScenarioContentForm,
    ScreeningForm,
)
from annotation.profile_review.models import (
    DIAMONDS_SCALE,
    ChangeRequest,
    ReviewError,
    ScenarioBlueprint,
)
from annotation.scenario_review.celery_tasks import dispatch_blueprint_expansion
from heartbench_site.base.roles import Role, role_required, user_roles
from heartbench_site.base.web import add_error_messages, csv_download

annotator_required = role_required(Role.PRIMARY_ANNOTATOR)
senior_required = role_required(Role.ARBITRATOR)
profile_overview_required = role_required(Role.PRIMARY_ANNOTATOR, Role.ARBITRATOR, Role.ADMIN)
outcome_readers_required = role_required(Role.ARBITRATOR, Role.ADMIN)
scenario_reviewer_required = role_required(Role.SCENARIO_REVIEWER)
scenario_readers_required = role_required(Role.SCENARIO_REVIEWER, Role.ADMIN)


def _csv_response(filename: str, header: list, rows: list) -> HttpResponse:
    response, writer = csv_download(filename)
    writer.writerow(header)
    writer.writerows(rows)
    return response


# --- Profile review -----------------------------------------------------------------------


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


def _profile_review_context(request, key, *, review_form=None, request_form=None):
    page = selectors.profile_review_page(character_key=key, user=request.user)
    if review_form is None:
        initial = {}
        if page.own_review is not None:
            own = page.own_review
            initial = {
                "recommendation": own.recommendation,
                "explanation": own.explanation,
                "unresolved_concern": own.unresolved_concern,
                "missing_information": own.missing_information,
                **{n: getattr(own, n) for n in services.PROFILE_CRITERIA_FIELDS},
            }
        review_form = ProfileReviewForm(initial=initial, character_key=key)
    return {
        "page": page,
        "review_form": review_form,
        "request_form": request_form or ChangeRequestForm(character_key=key),
    }


@annotator_required
@require_http_methods(["GET", "POST"])
def profile_review(request, key):
    form = None
    if request.method == "POST":
        form = ProfileReviewForm(request.POST, character_key=key)
        if form.is_valid():
            submit = "submit" in request.POST
            try:
                services.profile_review_save(
                    character_key=key,
                    reviewer=request.user,
                    recommendation=form.cleaned_data["recommendation"],
                    criteria=form.criteria(),
                    explanation=form.cleaned_data["explanation"],
                    unresolved_concern=form.cleaned_data["unresolved_concern"],
                    missing_information=form.cleaned_data["missing_information"],
                    submit=submit,
                )
            except ReviewError as error:
                add_error_messages(form, error)
            else:
                messages.success(
                    request, f"Review of {key} submitted." if submit else "Draft saved."
                )
                return redirect("review:profile-review", key=key)
    return render(
        request,
        "review/profile_review.html",
        _profile_review_context(request, key, review_form=form),
    )


@annotator_required
@require_POST
def change_request_add(request, key):
    form = ChangeRequestForm(request.POST, character_key=key)
    if form.is_valid():
        try:
            services.change_request_add(
                character_key=key, reviewer=request.user, **form.cleaned_data
            )
        except ReviewError as error:
            add_error_messages(form, error)
        else:
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
        services.change_request_withdraw(request_id=id, reviewer=request.user)
    except ReviewError as error:
        messages.error(request, " ".join(error.messages))
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
    if form.is_valid():
        try:
            edit = services.profile_edit(
                character_key=key,
                editor=request.user,
                values=form.values(),
                confirm_anchor_change=form.cleaned_data["confirm_anchor_change"],
                note=form.cleaned_data["note"],
            )
        except ReviewError as error:
            add_error_messages(form, error)
        else:
            messages.success(
                request,
                f"Saved as v{edit.to_version.number}: {len(edit.diff)} field(s) changed.",
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
    if form.is_valid():
        try:
            services.change_request_resolve(
                request_id=id,
                arbitrator=request.user,
                status=form.cleaned_data["status"],
                reason=form.cleaned_data["reason"],
            )
        except ReviewError as error:
            add_error_messages(form, error)
        else:
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
    if form.is_valid():
        try:
            version = services.profile_freeze(
                character_key=key,
                arbitrator=request.user,
                suitability_confirmed=form.cleaned_data["suitability_confirmed"],
                note=form.cleaned_data["note"],
            )
        except ReviewError as error:
            add_error_messages(form, error)
        else:
            messages.success(request, f"{version} is frozen.")
            return redirect("review:profile-adjudicate", key=key)
    return render(
        request, "review/profile_adjudicate.html", _adjudication_context(key, freeze_form=form)
    )


@outcome_readers_required
def profile_outcomes(request):
    return render(
        request, "review/profile_outcomes.html", {"table": selectors.profile_outcome_table()}
    )


@outcome_readers_required
def profile_outcomes_csv(request):
    table = selectors.profile_outcome_table()
    rows = [
        [r.label, r.count, "" if r.percent is None else f"{r.percent:.1f}", " ".join(r.characters)]
        for r in table.rows
    ]
    rows.append(["Total", table.total, "100.0" if table.total else "", ""])
    return _csv_response(
        "profile_review_outcomes.csv", ["outcome", "profiles", "percent", "characters"], rows
    )


# --- Scenario review ----------------------------------------------------------------------


@scenario_readers_required
def scenario_list(request):
    rows = selectors.scenario_review_queue(user=request.user)
    return render(
        request,
        "review/scenario_list.html",
        {
            "rows": rows,
            "needs_you": sum(r.needs_you for r in rows),
            "is_reviewer": Role.SCENARIO_REVIEWER in user_roles(request.user),
        },
    )


def _scenario_context(request, scenario_id, **forms):
    page = selectors.scenario_review_page(scenario_id=scenario_id, user=request.user)
    context = {"page": page, "scale": DIAMONDS_SCALE}
    context["screening_form"] = forms.get("screening_form") or ScreeningForm(
        scenario_id=scenario_id
    )
    context["rating_form"] = forms.get("rating_form") or DiamondsRatingForm(scenario_id=scenario_id)
    split = [c.field for c in page.comparison if c.reassess]
    context["reassessment_form"] = forms.get("reassessment_form") or ReassessmentForm(
        scenario_id=scenario_id, dimensions=split
    )
    return context


@scenario_readers_required
def scenario_review(request, scenario_id):
    return render(request, "review/scenario_review.html", _scenario_context(request, scenario_id))


@scenario_reviewer_required
@require_POST
def scenario_screen(request, scenario_id):
    form = ScreeningForm(request.POST, scenario_id=scenario_id)
    if form.is_valid():
        try:
            services.scenario_screen(
                scenario_id=scenario_id, reviewer=request.user, **form.cleaned_data
            )
        except ReviewError as error:
            add_error_messages(form, error)
        else:
            messages.success(request, "Pass-1 decision recorded.")
            return redirect("review:scenario-review", scenario_id=scenario_id)
    return render(
        request,
        "review/scenario_review.html",
        _scenario_context(request, scenario_id, screening_form=form),
    )


@scenario_reviewer_required
@require_http_methods(["GET", "POST"])
def scenario_revise(request, scenario_id):
    page = selectors.scenario_review_page(scenario_id=scenario_id, user=request.user)
    action = request.path
    if request.method == "POST":
        form = ScenarioContentForm(
            request.POST, action=action, submit_label="Propose this revision"
        )
        if form.is_valid():
            try:
                services.scenario_revise(
                    scenario_id=scenario_id,
                    reviewer=request.user,
                    content=form.content(),
                    note=form.cleaned_data["note"],
                )
            except ReviewError as error:
                add_error_messages(form, error)
            else:
                messages.success(request, "Revision proposed: both reviewers now screen it.")
                return redirect("review:scenario-review", scenario_id=scenario_id)
    else:
        form = ScenarioContentForm(
            initial=page.version.content() if page.version else {},
            action=action,
            submit_label="Propose this revision",
        )
    return render(request, "review/scenario_revise.html", {"page": page, "form": form})


@scenario_reviewer_required
@require_POST
def scenario_rate(request, scenario_id):
    form = DiamondsRatingForm(request.POST, scenario_id=scenario_id)
    if form.is_valid():
        try:
            services.scenario_rate(
                scenario_id=scenario_id,
                reviewer=request.user,
                scores=form.scores(),
                note=form.cleaned_data["note"],
            )
        except ReviewError as error:
            add_error_messages(form, error)
        else:
            messages.success(request, "Ratings submitted.")
            return redirect("review:scenario-review", scenario_id=scenario_id)
    return render(
        request,
        "review/scenario_review.html",
        _scenario_context(request, scenario_id, rating_form=form),
    )


@scenario_reviewer_required
@require_POST
def scenario_reassess(request, scenario_id):
    page = selectors.scenario_review_page(scenario_id=scenario_id, user=request.user)
    split = [c.field for c in page.comparison if c.reassess]
    form = ReassessmentForm(request.POST, scenario_id=scenario_id, dimensions=split)
    if form.is_valid():
        try:
            services.scenario_reassess(
                scenario_id=scenario_id,
                reviewer=request.user,
                agreed=form.agreed(),
                note=form.cleaned_data["note"],
            )
        except ReviewError as error:
            add_error_messages(form, error)
        else:
            messages.success(request, "Joint re-assessment recorded; the scenario is reviewed.")
            return redirect("review:scenario-review", scenario_id=scenario_id)
    return render(
        request,
        "review/scenario_review.html",
        _scenario_context(request, scenario_id, reassessment_form=form),
    )


@scenario_reviewer_required
@require_http_methods(["GET", "POST"])
def scenario_new(request):
    action = request.path
    form = ScenarioContentForm(
        request.POST or None, action=action, submit_label="Create the draft scenario"
    )
    if request.method == "POST" and form.is_valid():
        try:
            scenario = services.scenario_create_manual(
                user=request.user, content=form.content(), note=form.cleaned_data["note"]
            )
        except ReviewError as error:
            add_error_messages(form, error)
        else:
            messages.success(request, f"{scenario.scenario_id} created; it awaits pass 1.")
            return redirect("review:scenario-review", scenario_id=scenario.scenario_id)
    return render(request, "review/scenario_new.html", {"form": form})


@scenario_readers_required
@require_http_methods(["GET", "POST"])
def blueprint_list(request):
    form = BlueprintForm(request.POST or None)
    if request.method == "POST":
        if Role.SCENARIO_REVIEWER not in user_roles(request.user):
            return HttpResponse("Only scenario reviewers draft blueprints.", status=403)
        if form.is_valid():
            try:
                blueprint = services.blueprint_create(user=request.user, **form.cleaned_data)
            except ReviewError as error:
                add_error_messages(form, error)
            else:
                dispatch_blueprint_expansion(
                    blueprint.pk, on_unavailable=lambda m: messages.error(request, m)
                )
                return redirect("review:blueprint-detail", id=blueprint.pk)
    return render(
        request,
        "review/blueprint_list.html",
        {"form": form, "blueprints": selectors.blueprint_list()[:100]},
    )


@scenario_readers_required
def blueprint_detail(request, id):
    blueprint = selectors.blueprint_get(blueprint_id=id)
    template = "review/blueprint_detail.html"
    if request.htmx:
        template += "#blueprint-status"
    return render(request, template, {"blueprint": blueprint})


@scenario_reviewer_required
@require_POST
def blueprint_queue(request, id):
    blueprint = selectors.blueprint_get(blueprint_id=id)
    try:
        if blueprint.status == ScenarioBlueprint.Status.FAILED:
            services.blueprint_retry(blueprint_id=id, user=request.user)
    except ReviewError as error:
        messages.error(request, " ".join(error.messages))
    else:
        dispatch_blueprint_expansion(id, on_unavailable=lambda m: messages.error(request, m))
    return redirect("review:blueprint-detail", id=id)


@scenario_readers_required
def scenario_coverage(request):
    return render(
        request, "review/scenario_coverage.html", {"coverage": selectors.scenario_coverage()}
    )


@scenario_readers_required
def coverage_diamonds_csv(request):
    coverage = selectors.scenario_coverage()
    return _csv_response(
        "diamonds_final_ratings.csv",
        ["dimension", *[f"rated_{v}" for v in coverage.scale], "scenarios"],
        [[r.label, *r.counts, r.total] for r in coverage.distribution],
    )


@scenario_readers_required
def coverage_life_stages_csv(request):
    coverage = selectors.scenario_coverage()
    return _csv_response(
        "scenarios_per_life_stage.csv",
        [
            "life_stage",
            "label",
            "age_range",
            "scenarios",
            "target",
            "reviewed",
            "identity_anchor_hits",
        ],
        [
            [
                s.key,
                s.label,
                s.age_range,
                s.total,
                coverage.per_stage_target,
                s.complete,
                " ".join(s.anchored),
            ]
            for s in coverage.stages
        ],
    )


def _fmt(value):
    return "" if value is None else value


@scenario_readers_required
def coverage_agreement_csv(request):
    coverage = selectors.scenario_coverage()
    return _csv_response(
        "diamonds_agreement_before_reassessment.csv",
        [
            "dimension",
            "units",
            "exact_agreement_pct",
            "within_one_pct",
            "krippendorff_alpha_ordinal",
            "cohen_kappa_linear",
            "cohen_kappa_quadratic",
        ],
        [
            [
                a.label,
                a.n_units,
                _fmt(a.exact),
                _fmt(a.within_one),
                _fmt(a.alpha.value),
                _fmt(a.kappa_linear.value),
                _fmt(a.kappa_quadratic.value),
            ]
            for a in coverage.agreement
        ],
    )
