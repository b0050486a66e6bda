"""Site-wide pages: the per-role home, the caller's identity in the API, the API index
and docs.

The home shows one card per role the person holds and nothing else: a role's card is
built only when the role is held, so no queue, count or link of another role reaches
the page (DESIGN.md, "what each must never see").
"""

from dataclasses import dataclass

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.templatetags.static import static
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.utils import extend_schema, inline_serializer
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework import serializers
from rest_framework.decorators import api_view
from rest_framework.request import ForcedAuthentication, Request
from rest_framework.response import Response

from adjudication.arbitration.selectors import arbitration_home_queues
from adjudication.export.selectors import export_home_queues
from adjudication.mcq.selectors import mcq_home_queues
from annotation.comparison.selectors import comparison_home_queues
from annotation.corpus.selectors import corpus_overview
from annotation.corpus_import.selectors import import_job_list
from annotation.generation.selectors import generation_running_count
from annotation.profile_review.selectors import profile_home_queues
from annotation.scenario_review.selectors import scenario_home_queues
from audit.memory_quality.selectors import audit_home_queues
from audit.observers.human import observer_home_queues
from audit.reference_labels.selectors import label_audit_home_queues
from core.protocol import BASELINE_SUBSET_SIZE
from core.roles import (
    CORPUS_READERS,
    HasRole,
    Role,
    has_any_role,
    ordered_roles,
    user_roles,
)
from evaluation.selectors import evaluation_home_queues
from humanbaseline.selectors import baseline_home_queues

# Seed 000 App. J: each baseline participant answers the same 150-item subset.
HUMAN_BASELINE_ITEM_COUNT = BASELINE_SUBSET_SIZE
RECENT_IMPORT_JOBS_ON_HOME = 5


@dataclass(frozen=True)
class Queue:
    title: str
    purpose: str
    empty_state: str
    # Key of the live count in one of HOME_QUEUE_SOURCES' dicts.
    live: str = ""


ROLE_QUEUES: dict[Role, tuple[Queue, ...]] = {
    Role.PRIMARY_ANNOTATOR: (
        Queue(
            "Profile review",
            "Review character profiles against their memories before they are frozen.",
            "No profiles assigned yet",
            live="profile_review",
        ),
        Queue(
            "Blinded three-candidate comparison",
            "Pick the candidate response that best fits the character; model families stay hidden.",
            "No items assigned yet",
            live="comparison",
        ),
    ),
    Role.ARBITRATOR: (
        Queue(
            "Profile adjudication",
            "Weigh the three reviews, apply field-level edits and freeze the profile version.",
            "No profiles awaiting adjudication",
            live="profile_adjudication",
        ),
        Queue(
            "Escalated cases",
            "Profile reviews and comparisons on which the annotators did not agree.",
            "No escalated cases yet",
            live="escalated",
        ),
        Queue(
            "Senior memory edits",
            "Edit memories whose audit defect a memory reviewer confirmed; the edit is re-audited.",
            "No confirmed memory defects awaiting your edit",
            live="memory_senior_edit",
        ),
        Queue(
            "MCQ item review",
            "Items the LLM screen flagged or could not screen, and items assembled with fewer "
            "than three valid distractors: retain, revise, replace, re-key, reconstruct or "
            "remove; every edit is screened again in full.",
            "No item awaits review: every screened item passed or has been resolved",
            live="mcq_item_review",
        ),
    ),
    Role.SCENARIO_REVIEWER: (
        Queue(
            "Scenario review",
            "Two-pass DIAMONDS review of the shared decision scenarios.",
            "No scenarios assigned yet",
            live="scenario_review",
        ),
    ),
    Role.MEMORY_REVIEWER: (
        Queue(
            "Memory quality audit",
            "Confirm or override the six-criterion audit flags on memories.",
            "No flagged memories yet",
            live="memory_audit",
        ),
    ),
    Role.AUDIT_EXPERT: (
        Queue(
            "Reference-label audit",
            "Select, blind to the key, the option most likely and most reasonable for the "
            "target character, on a stratified sample of final items.",
            "No items awaiting your selection",
            live="label_audit",
        ),
    ),
    Role.AUDIT_ADJUDICATOR: (
        Queue(
            "Audit disagreements",
            "Items on which not all three audit experts chose the key: keep, reword, re-key "
            "or remove.",
            "No items awaiting your decision",
            live="label_audit_adjudication",
        ),
    ),
    Role.BASELINE_PARTICIPANT: (
        Queue(
            f"Human baseline — your {HUMAN_BASELINE_ITEM_COUNT} items",
            "Consent, a short briefing, then the study items in your own order.",
            "No study to take yet: use the invitation link you received",
            live="baseline_study",
        ),
    ),
    Role.OBSERVER: (
        Queue(
            "Observer tasks",
            "Read a few passages a person wrote about their life, then say how well each "
            "statement describes them.",
            "No one to rate yet",
            live="observer_tasks",
        ),
    ),
    Role.ADMIN: (
        Queue(
            "MCQ assembly and item review",
            "Flagged, unscreenable and incomplete items; assembly runs start from the queue.",
            "No item awaits review: every screened item passed or has been resolved",
            live="mcq_item_review",
        ),
        Queue(
            "Reference-label audits",
            "Create an audit (three experts and an adjudicator, checked for conflicts of "
            "interest), draw the stratified sample, read the outcome table.",
            "No audit in progress",
            live="label_audit_admin",
        ),
        Queue(
            "Baseline studies",
            "Select the balanced subset by integer programming, run studies, export time on "
            "task and compute the study's report.",
            "No open baseline study",
            live="baseline_admin",
        ),
        Queue(
            "Evaluation runs",
            "No-Retrieval, Naive-RAG and Disclosed-Profile runs on the final set: launch, "
            "watch, resume, import predictions, analyse.",
            "No evaluation run is running or waiting to be resumed",
            live="evaluation_runs",
        ),
        Queue(
            "Export the final set",
            "The release layouts, the model-facing files with the keys apart, the "
            "construction record and a manifest of hashes.",
            "No item is in the final set yet: import the release or finish item review first",
            live="final_set_export",
        ),
    ),
}

HOME_QUEUE_SOURCES = (
    profile_home_queues,
    scenario_home_queues,
    comparison_home_queues,
    arbitration_home_queues,
    audit_home_queues,
    mcq_home_queues,
    label_audit_home_queues,
    baseline_home_queues,
    observer_home_queues,
    evaluation_home_queues,
    export_home_queues,
)


@login_required
def home(request):
    held = user_roles(request.user)
    live = {}
    for source in HOME_QUEUE_SOURCES:
        live |= source(user=request.user)
    cards = [
        (role, [(queue, live.get(queue.live)) for queue in ROLE_QUEUES[role]])
        for role in ordered_roles(held)
        if role in ROLE_QUEUES
    ]
    context = {"cards": cards, "is_admin": Role.ADMIN in held}
    if Role.ADMIN in held:
        context["overview"] = corpus_overview()
        context["recent_jobs"] = import_job_list(limit=RECENT_IMPORT_JOBS_ON_HOME)
        context["running_generation_runs"] = generation_running_count()
    return render(request, "home.html", context)


@extend_schema(
    summary="The signed-in user and their roles",
    responses=inline_serializer(
        "Me",
        fields={
            "username": serializers.CharField(),
            "roles": serializers.ListField(
                child=serializers.ChoiceField(choices=[r.value for r in Role])
            ),
        },
    ),
)
@api_view(["GET"])
def api_me(request):
    return Response(
        {
            "username": request.user.get_username(),
            "roles": [r.value for r in ordered_roles(user_roles(request.user))],
        }
    )


class SchemaView(SpectacularAPIView):
    """The OpenAPI schema, for the roles that have an API to call. Each caller's schema
    lists only the endpoints their roles may call, so the admin-only generation API (and
    its model-family vocabulary) stays out of an annotator's copy."""

    permission_classes = [HasRole]
    allowed_roles = CORPUS_READERS
    serve_public = False


class SwaggerView(SpectacularSwaggerSplitView):
    """Swagger UI from the sidecar package's static files (lab machines may be offline).

    The split view serves its start-up script as a file (``?script``): the CSP allows no
    inline script.
    """

    permission_classes = [HasRole]
    allowed_roles = CORPUS_READERS


API_METHODS = ("get", "post", "put", "patch", "delete")


def api_endpoints(request) -> list[dict]:
    """The endpoints the caller's roles may call, from the same per-caller OpenAPI schema
    /api/schema/ serves (drf-spectacular drops what the caller's permissions refuse)."""
    # The generator wants the API's request (it copies .auth); the session already says who.
    caller = Request(request, authenticators=[ForcedAuthentication(request.user, None)])
    schema = SchemaGenerator().get_schema(request=caller, public=False)
    endpoints = []
    for path, operations in schema.get("paths", {}).items():
        for method in API_METHODS:
            operation = operations.get(method)
            if operation is None:
                continue
            text = operation.get("summary") or operation.get("description") or ""
            endpoints.append(
                {
                    "method": method.upper(),
                    "path": path,
                    "summary": text.strip().splitlines()[0] if text.strip() else "",
                    "followable": method == "get" and "{" not in path,
                }
            )
    return endpoints


@login_required
def api_index(request):
    """/api/ itself: what the signed-in person may call, with a line on each, and the
    schema and interactive docs for the roles that may open them."""
    return render(
        request,
        "api_index.html",
        {
            "endpoints": api_endpoints(request),
            "docs": has_any_role(request.user, SchemaView.allowed_roles),
        },
    )


def favicon(request):
    return redirect(static("app/favicon.svg"), permanent=True)
