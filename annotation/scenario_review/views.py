"""Pages of scenario review and blueprints. Thin: parse, call a service or selector,
render (the whole page, or its fragment for htmx)."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from annotation.scenario_review import actions, selectors, statistics
from annotation.scenario_review.coverage_plots import coverage_plots
from annotation.scenario_review.forms import (
    DIAMONDS_RATING_FIELDS,
    BlueprintForm,
    DiamondsRatingForm,
    ReassessmentConfirmForm,
    ReassessmentForm,
    ScenarioContentForm,
    ScreeningForm,
)
from annotation.scenario_review.models import DIAMONDS_SCALE
from core import display, drafts
from core.actions import REFUSED, on_page
from core.plot_views import page_plot, plot_download
from core.roles import Role, role_required, user_roles
from core.tidy_tables import table_download, table_links
from core.web import csv_download

scenario_reviewer_required = role_required(Role.SCENARIO_REVIEWER)
scenario_readers_required = role_required(Role.SCENARIO_REVIEWER, Role.ADMIN)


def _csv_response(filename: str, header: list, rows: list) -> HttpResponse:
    response, writer = csv_download(filename)
    writer.writerow(header)
    writer.writerows(rows)
    return response


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


def _rating_draft_key(scenario_id) -> str:
    return f"scenario-rating:{scenario_id}"


def _scenario_context(request, scenario_id, **forms):
    page = selectors.scenario_review_page(scenario_id=scenario_id, user=request.user)
    context = {"page": page, "scale": DIAMONDS_SCALE}
    context["screening_form"] = forms.get("screening_form") or ScreeningForm(
        scenario_id=scenario_id
    )
    draft = None
    if page.can_rate:
        draft = drafts.form_draft_get(user=request.user, key=_rating_draft_key(scenario_id))
    context["autosave_status"] = drafts.autosave_status(draft)
    context["rating_form"] = forms.get("rating_form") or DiamondsRatingForm(
        initial=drafts.form_draft_values(draft), scenario_id=scenario_id
    )
    split = [c.field for c in page.comparison if c.reassess]
    ratings = {c.field: c.values for c in page.comparison if c.reassess}
    context["reassessment_form"] = forms.get("reassessment_form") or ReassessmentForm(
        scenario_id=scenario_id, dimensions=split, counter=page.can_confirm, ratings=ratings
    )
    context["confirm_form"] = forms.get("confirm_form") or ReassessmentConfirmForm(
        scenario_id=scenario_id, dimensions=split, proposal=page.current_proposal
    )
    return context


def _refuse_unless(allowed: bool, page, doing: str):
    """A form the page does not show this reviewer (not their step, or done already) is
    refused with 403 and the reason, rather than the page re-rendered without the form."""
    if allowed:
        return
    scenario_id = page.scenario.scenario_id
    if doing == "rate" and page.own_rating is not None:
        raise PermissionDenied(f"You already rated {scenario_id}; a rating cannot change.")
    if doing == "screen" and page.you_screened:
        raise PermissionDenied(f"You already screened {scenario_id}; wait for the other reviewer.")
    raise PermissionDenied(
        f"You cannot {doing} {scenario_id} now: it is at the {page.stage} stage."
    )


@scenario_readers_required
def scenario_review(request, scenario_id):
    return render(request, "review/scenario_review.html", _scenario_context(request, scenario_id))


@scenario_reviewer_required
@require_POST
def scenario_screen(request, scenario_id):
    page = selectors.scenario_review_page(scenario_id=scenario_id, user=request.user)
    shown = page.is_reviewer and page.stage == "screening" and not page.you_screened
    _refuse_unless(shown, page, "screen")
    form = ScreeningForm(request.POST, scenario_id=scenario_id)
    outcome = on_page(
        lambda: actions.scenario_screen(form, user=request.user, scenario_id=scenario_id)
    )
    if outcome is not REFUSED:
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
        outcome = on_page(
            lambda: actions.scenario_revise(form, user=request.user, scenario_id=scenario_id)
        )
        if outcome is not REFUSED:
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
    page = selectors.scenario_review_page(scenario_id=scenario_id, user=request.user)
    _refuse_unless(page.can_rate, page, "rate")
    form = DiamondsRatingForm(request.POST, scenario_id=scenario_id)
    outcome = on_page(
        lambda: actions.scenario_rate(form, user=request.user, scenario_id=scenario_id)
    )
    if outcome is not REFUSED:
        drafts.form_draft_clear(user=request.user, key=_rating_draft_key(scenario_id))
        messages.success(request, "Ratings submitted.")
        return redirect("review:scenario-review", scenario_id=scenario_id)
    return render(
        request,
        "review/scenario_review.html",
        _scenario_context(request, scenario_id, rating_form=form),
    )


@scenario_reviewer_required
@require_http_methods(["GET", "POST"])
def scenario_rating_draft(request, scenario_id):
    """The rating form's autosave: only a reviewer who may still rate this scenario."""
    page = selectors.scenario_review_page(scenario_id=scenario_id, user=request.user)
    if request.method == "POST" and not page.can_rate:
        raise PermissionDenied("You cannot rate this scenario now.")
    return drafts.autosave_response(
        request,
        key=_rating_draft_key(scenario_id),
        fields=DIAMONDS_RATING_FIELDS,
        limits=drafts.form_text_limits(DiamondsRatingForm),
        page_url=reverse("review:scenario-review", kwargs={"scenario_id": scenario_id}),
    )


def _split(request, scenario_id) -> list[str]:
    page = selectors.scenario_review_page(scenario_id=scenario_id, user=request.user)
    return [c.field for c in page.comparison if c.reassess]


@scenario_reviewer_required
@require_POST
def scenario_reassess(request, scenario_id):
    page = selectors.scenario_review_page(scenario_id=scenario_id, user=request.user)
    _refuse_unless(page.can_reassess, page, "re-assess")
    split = [c for c in page.comparison if c.reassess]
    form = ReassessmentForm(
        request.POST,
        scenario_id=scenario_id,
        dimensions=[c.field for c in split],
        counter=page.can_confirm,
        ratings={c.field: c.values for c in split},
    )
    outcome = on_page(
        lambda: actions.scenario_reassess_propose(form, user=request.user, scenario_id=scenario_id)
    )
    if outcome is not REFUSED:
        messages.success(
            request, "Proposal recorded; the other reviewer confirms it or counter-proposes."
        )
        return redirect("review:scenario-review", scenario_id=scenario_id)
    return render(
        request,
        "review/scenario_review.html",
        _scenario_context(request, scenario_id, reassessment_form=form),
    )


@scenario_reviewer_required
@require_POST
def scenario_reassess_confirm(request, scenario_id):
    page = selectors.scenario_review_page(scenario_id=scenario_id, user=request.user)
    _refuse_unless(page.can_confirm, page, "confirm the re-assessment of")
    form = ReassessmentConfirmForm(
        request.POST, scenario_id=scenario_id, dimensions=_split(request, scenario_id)
    )
    try:
        actions.scenario_reassess_confirm(form, user=request.user, scenario_id=scenario_id)
    except actions.ActionRefused as refused:
        if refused.cause is None:  # hidden fields only: a person never types them
            messages.error(request, "The confirmation was incomplete; confirm the proposal shown.")
        else:  # the page re-reads the current proposal; the error says what changed
            messages.error(request, " ".join(refused.messages))
    else:
        messages.success(request, "Joint re-assessment confirmed; the scenario is reviewed.")
        return redirect("review:scenario-review", scenario_id=scenario_id)
    return render(request, "review/scenario_review.html", _scenario_context(request, scenario_id))


@scenario_reviewer_required
@require_http_methods(["GET", "POST"])
def scenario_new(request):
    action = request.path
    form = ScenarioContentForm(
        request.POST or None, action=action, submit_label="Create the draft scenario"
    )
    if request.method == "POST":
        scenario = on_page(lambda: actions.scenario_create(form, user=request.user))
        if scenario is not REFUSED:
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
        blueprint = on_page(
            lambda: actions.blueprint_create(
                form, user=request.user, on_unavailable=lambda m: messages.error(request, m)
            )
        )
        if blueprint is not REFUSED:
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
    selectors.blueprint_get(blueprint_id=id)  # 404 before any write
    try:
        actions.blueprint_queue(
            user=request.user,
            blueprint_id=id,
            on_unavailable=lambda m: messages.error(request, m),
        )
    except actions.ActionRefused as refused:
        messages.error(request, " ".join(refused.messages))
    return redirect("review:blueprint-detail", id=id)


COVERAGE_TESTIDS = {"diamonds": "diamonds-chart", "life-stages": "stage-chart"}


@scenario_readers_required
def scenario_coverage(request):
    coverage = selectors.scenario_coverage()
    charts = {
        name.replace("-", "_"): page_plot(
            scene, name=name, url_name="review:coverage-plot", testid=COVERAGE_TESTIDS[name]
        )
        for name, scene in coverage_plots(coverage).items()
    }
    paired = coverage.agreement[0].n_units if coverage.agreement else 0
    context = {
        "coverage": coverage,
        "plots": charts,
        "agreement_note": display.small_n_note(paired, "scenario") if paired else "",
        "small_n": display.SMALL_N,
        "tidy": {
            slug.replace("-", "_"): table_links(
                reverse(f"review:coverage-{slug}-table"),
                name=build(coverage).name,
                api_url=reverse(f"review-api:coverage-{slug}-rows"),
            )
            for slug, build in statistics.TABLES.items()
        },
    }
    return render(request, "review/scenario_coverage.html", context)


@scenario_readers_required
def coverage_plot(request, plot, fmt):
    scene = coverage_plots(selectors.scenario_coverage()).get(plot)
    return plot_download(scene, filename=f"scenario-coverage-{plot}", fmt=fmt)


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


@scenario_readers_required
def coverage_table(request, table):
    """One of the page's tables, tidy: ``?format=csv`` or ``?format=parquet``."""
    build = statistics.TABLES.get(table)
    if build is None:
        raise Http404("No such table on this page.")
    return table_download(build(), request)
