"""Pages of the reference-label audit, under /audit/labels/. Thin: parse, call a service
or selector, render. Expert pages render only ``expert_pages`` dataclasses, which carry
no key (blinding)."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from adjudication.mcq.models import OPTION_LABELS
from audit.reference_labels import (
    actions,
    adjudicator_pages,
    expert_pages,
    selectors,
    services,
    stored_reports,
)
from audit.reference_labels.forms import (
    LabelAdjudicationForm,
    LabelAuditCreateForm,
    LabelSelectionForm,
)
from audit.reference_labels.models import LabelAuditError, LabelAuditItem
from audit.reference_labels.outcomes import outcome_plots
from audit.reference_labels.statistics import SPECS, TABLES
from core import display, drafts
from core.actions import REFUSED, on_page
from core.conflicts import conflict_page, team_member_conflict
from core.plot_views import page_plot, plot_download
from core.roles import Role, role_required, user_roles
from core.tidy_tables import table_download, table_links
from core.web import csv_download

members_required = role_required(Role.AUDIT_EXPERT, Role.AUDIT_ADJUDICATOR, Role.ADMIN)
expert_required = role_required(Role.AUDIT_EXPERT)
overseers_required = role_required(Role.AUDIT_ADJUDICATOR, Role.ADMIN)
admin_required = role_required(Role.ADMIN)


def _audit_or_404(audit_id):
    audit = selectors.label_audit_get(audit_id=audit_id)
    if audit is None:
        raise Http404("No such reference-label audit.")
    return audit


def _overseer_audit(request, audit_id):
    """The audit, for an admin or for its own adjudicator."""
    audit = _audit_or_404(audit_id)
    if Role.ADMIN not in user_roles(request.user) and audit.adjudicator_id != request.user.pk:
        raise PermissionDenied("You are not this audit's adjudicator.")
    return audit


@members_required
def home(request):
    held = user_roles(request.user)
    audits = list(selectors.label_audit_list(user=request.user))
    mine = []
    if Role.AUDIT_EXPERT in held:
        for audit in audits:
            if audit.adjudicator_id == request.user.pk:
                continue
            queue = expert_pages.expert_queue(audit=audit, expert=request.user)
            if not queue:
                continue
            done = sum(1 for r in queue if r.state == "submitted")
            resume = next((r.audit_item_id for r in queue if r.state != "submitted"), None)
            mine.append({"audit": audit, "done": done, "total": len(queue), "resume": resume})
    overseen = [a for a in audits if Role.ADMIN in held or a.adjudicator_id == request.user.pk]
    return render(
        request,
        "audit/labels/home.html",
        {"mine": mine, "overseen": overseen, "is_admin": Role.ADMIN in held},
    )


@admin_required
@require_http_methods(["GET", "POST"])
def create(request):
    form = LabelAuditCreateForm(request.POST or None, initial={"seed": services.new_seed()})
    if request.method == "POST":
        audit = on_page(lambda: actions.label_audit_create(form, user=request.user))
        if audit is not REFUSED:
            messages.success(
                request, f"Audit #{audit.pk} created: {audit.items.count()} items sampled."
            )
            return redirect("audit:labels:audit", audit.pk)
    return render(
        request,
        "audit/labels/create.html",
        {"form": form, "candidates": selectors.audit_team_candidates()},
    )


@overseers_required
def audit_detail(request, label_audit_id):
    audit = _overseer_audit(request, label_audit_id)
    return render(
        request,
        "audit/labels/audit.html",
        {
            "audit": audit,
            "overview": selectors.label_audit_overview(audit=audit),
            "strata": selectors.strata_table(audit=audit),
            "reproduced": services.label_audit_reproduce(audit=audit),
            "queue": adjudicator_pages.adjudication_queue(audit=audit),
        },
    )


@expert_required
def expert_queue(request, label_audit_id):
    audit = _audit_or_404(label_audit_id)
    if not selectors.is_expert(audit=audit, user=request.user):
        raise Http404("You are not an expert on this audit.")
    rows = expert_pages.expert_queue(audit=audit, expert=request.user)
    return render(
        request,
        "audit/labels/expert_queue.html",
        {
            "audit": audit,
            "rows": rows,
            "done": sum(1 for r in rows if r.state == "submitted"),
            "resume": next((r.audit_item_id for r in rows if r.state != "submitted"), None),
        },
    )


def _expert_page(request, label_item_id):
    page = expert_pages.expert_item_page(audit_item_id=label_item_id, expert=request.user)
    if page is None:
        raise Http404("This item is not in an audit you are an expert on.")
    return page


@expert_required
@require_http_methods(["GET", "POST"])
def select(request, label_item_id):
    page = _expert_page(request, label_item_id)
    if request.method == "POST" and page.submitted:
        raise PermissionDenied(
            f"Your selection for item {page.position} is submitted; it can no longer change."
        )
    if request.method == "POST":
        form = LabelSelectionForm(request.POST, audit_item_id=label_item_id)
        try:
            actions.label_selection_submit(form, user=request.user, label_item_id=label_item_id)
        except actions.ActionRefused as refused:
            if isinstance(refused.cause, services.LabelAuditConflict):
                return conflict_page(request, refused.cause)
        else:
            messages.success(request, f"Selection recorded for item {page.position}.")
            if page.next_item_id:
                return redirect("audit:labels:select", page.next_item_id)
            return redirect("audit:labels:expert-queue", page.audit.pk)
    else:
        form = LabelSelectionForm(
            initial={"choice": page.choice, "note": page.note},
            audit_item_id=label_item_id,
            readonly=page.submitted,
        )
    return render(
        request,
        "audit/labels/select.html",
        {"page": page, "form": form, "autosave_status": drafts.saved_status(page.draft_saved_at)},
    )


@expert_required
@require_POST
def draft(request, label_item_id):
    _expert_page(request, label_item_id)
    try:
        saved = services.label_selection_draft_save(
            audit_item_id=label_item_id,
            expert=request.user,
            choice=request.POST.get("choice", ""),
            note=request.POST.get("note", ""),
        )
    except services.LabelAuditConflict as error:
        if request.htmx:
            return HttpResponse(" ".join(error.messages), status=403)
        return conflict_page(request, error)
    except LabelAuditError as error:
        status = "Not saved: " + " ".join(error.messages)
    else:
        option = f"option {saved.choice}" if saved.choice else "no option yet"
        chars = len(saved.note)
        status = (
            f"{drafts.saved_status(saved.updated_at)[:-1]}: {option}, note of {chars} "
            f"character{pluralize(chars)}."
        )
    if request.htmx:
        return HttpResponse(status)
    messages.info(request, status)
    return redirect("audit:labels:select", label_item_id)


@role_required(Role.AUDIT_ADJUDICATOR, Role.ADMIN)
@require_http_methods(["GET", "POST"])
def adjudicate(request, label_item_id):
    page = adjudicator_pages.adjudication_page(audit_item_id=label_item_id)
    if page is None:
        raise Http404("No such audited item.")
    audit = page.audit_item.audit
    is_adjudicator = audit.adjudicator_id == request.user.pk
    if not is_adjudicator and Role.ADMIN not in user_roles(request.user):
        raise PermissionDenied("You are not this audit's adjudicator.")
    if page.audit_item.status == LabelAuditItem.Status.SELECTING:
        raise Http404("This item's selections are not all in yet.")
    initial = {f"option_{o['label']}": o["content"] for o in page.options}
    form = LabelAdjudicationForm(request.POST or None, initial=initial, audit_item_id=label_item_id)
    can_decide = is_adjudicator and page.audit_item.status == LabelAuditItem.Status.ADJUDICATING
    # Issue #24: a construction record refuses the act (the service checks it too); the
    # page says why instead of offering the form.
    conflict = team_member_conflict(request.user) if can_decide else None
    if request.method == "POST":
        if not can_decide:
            raise PermissionDenied("This item is not awaiting your decision.")
        if conflict:
            return conflict_page(request, services.LabelAuditConflict(conflict))
        try:
            actions.label_item_adjudicate(
                form, user=request.user, label_item_id=label_item_id, options=page.options
            )
        except actions.ActionRefused as refused:
            if isinstance(refused.cause, services.LabelAuditConflict):
                return conflict_page(request, refused.cause)
        else:
            messages.success(request, "Decision recorded.")
            return redirect("audit:labels:audit", audit.pk)
    return render(
        request,
        "audit/labels/adjudicate.html",
        {
            "page": page,
            "form": form if can_decide and not conflict else None,
            "conflict": conflict,
            "labels": OPTION_LABELS,
        },
    )


@overseers_required
def outcomes(request, label_audit_id):
    """Reads the stored outcomes (``stored_reports``): the page never computes them."""
    audit = _overseer_audit(request, label_audit_id)
    report, result = stored_reports.stored_outcomes(audit)
    plot = kappa_note = None
    if result is not None:
        plot = page_plot(
            outcome_plots(result)["outcomes"],
            name="outcomes",
            url_name="audit:labels:outcomes-plot",
            testid="outcome-plot",
            label_audit_id=audit.pk,
        )
        kappa_note = (
            display.small_n_note(result.kappa_items, "item") if result.kappa is not None else ""
        )
    return render(
        request,
        "audit/labels/outcomes.html",
        {
            "audit": audit,
            "report": report,
            "poll_url": request.path,
            "outcomes": result,
            "plot": plot,
            "small_n_note": kappa_note,
            "tidy": {
                slug: table_links(
                    reverse(f"audit:labels:{slug}-table", args=[audit.pk]),
                    name=spec.name,
                    api_url=reverse(f"audit-api:labels-api:{slug}-rows", args=[audit.pk]),
                )
                for slug, spec in SPECS.items()
            },
        },
    )


@overseers_required
def outcomes_plot(request, label_audit_id, plot, fmt):
    audit = _overseer_audit(request, label_audit_id)
    scene = outcome_plots(stored_reports.stored_or_empty(audit)).get(plot)
    return plot_download(scene, filename=f"label-audit-{audit.pk}-{plot}", fmt=fmt)


@overseers_required
def outcomes_csv(request, label_audit_id):
    audit = _overseer_audit(request, label_audit_id)
    result = stored_reports.stored_or_empty(audit)
    response, writer = csv_download(f"label-audit-{audit.pk}-outcomes.csv")
    writer.writerow(["outcome", "items", "percent of sample"])
    for row in result.rows:
        writer.writerow([row["label"], row["n"], f"{row['percent']:.1f}"])
    writer.writerow([])
    ci = result.kappa_ci or ("", "")
    writer.writerow(["fleiss_kappa", "ci_low", "ci_high", "items", "bootstrap resamples", "seed"])
    writer.writerow(
        [
            "" if result.kappa is None else f"{result.kappa:.4f}",
            ci[0] if ci[0] == "" else f"{ci[0]:.4f}",
            ci[1] if ci[1] == "" else f"{ci[1]:.4f}",
            result.kappa_items,
            result.n_boot,
            audit.seed,
        ]
    )
    writer.writerow([])
    writer.writerow(
        [
            "position",
            "question_id",
            "character",
            "stage",
            "expert 1",
            "expert 2",
            "expert 3",
            "key",
            "experts on key",
            "outcome",
        ]
    )
    for it in result.per_item:
        writer.writerow(
            [
                it["position"],
                it["item__question_id"],
                it["character_key"],
                it["stage"],
                *(it["choices"] + ["", "", ""])[:3],
                it["key_at_audit"],
                "" if it["n_on_key"] is None else it["n_on_key"],
                it["outcome"],
            ]
        )
    return response


@overseers_required
def outcomes_table(request, label_audit_id, table):
    """One of the outcome page's tables, tidy: ``?format=csv`` or ``?format=parquet``."""
    audit = _overseer_audit(request, label_audit_id)
    table = TABLES[table](audit, stored_reports.stored_or_empty(audit))
    return table_download(table, request, filename=f"{table.name}_{audit.pk}")


@role_required(Role.ADMIN)
def conflicts(request):
    """The admin's page of current conflicts of interest (issue #24), at /conflicts/."""
    audits = selectors.label_audit_conflicts()
    pairs = selectors.escalated_pair_conflicts()
    return render(
        request,
        "audit/conflicts.html",
        {
            "audits": audits,
            "pairs": pairs,
            "audit_conflicts": sum(len(a.members) for a in audits),
            "pair_conflicts": sum(len(p.arbitrators) for p in pairs),
        },
    )
