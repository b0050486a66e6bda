"""The reference-label audit over REST (/api/audit/labels/): reads. Thin: selector →
serializer. The writes are in ``api_writes``.

An expert's endpoints serialize ``expert_pages`` dataclasses: option labels and texts and
the expert's own selection, never the key or anyone else's selection. The audit's items,
outcomes and adjudication pages are the adjudicator's and admin's (they see the key).
"""

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from audit.reference_labels import adjudicator_pages, expert_pages, outcomes, selectors, services
from audit.reference_labels.models import LabelAudit, LabelAuditItem, LabelSelection
from core.api import (
    ERROR,
    ListFilter,
    etag,
    list_parameters,
    list_response,
    paginated_schema,
    with_etag,
)
from core.roles import HasRole, Role, user_roles

MEMBERS = (Role.AUDIT_EXPERT, Role.AUDIT_ADJUDICATOR, Role.ADMIN)
OVERSEERS = (Role.AUDIT_ADJUDICATOR, Role.ADMIN)


def overseer_audit(request, audit_id: int) -> LabelAudit:
    """The audit, for an admin or for its own adjudicator (as the pages: 404, then 403)."""
    audit = selectors.label_audit_get(audit_id=audit_id)
    if audit is None:
        raise NotFound("No such reference-label audit.")
    if Role.ADMIN not in user_roles(request.user) and audit.adjudicator_id != request.user.pk:
        raise PermissionDenied("You are not this audit's adjudicator.")
    return audit


# --- Audits -------------------------------------------------------------------------------


class LabelAuditSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    note = serializers.CharField()
    status = serializers.CharField()
    items = serializers.IntegerField(source="item_count")
    created_at = serializers.DateTimeField()


AUDIT_FILTERS = [ListFilter("status", "status", choices=tuple(LabelAudit.Status.values))]
AUDIT_ORDERINGS = ("created_at", "status")
AUDIT_EXAMPLE = {
    "id": 3,
    "note": "spring audit",
    "status": "selecting",
    "items": 176,
    "created_at": "2026-01-05T10:00:00Z",
}


class LabelAuditListApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = MEMBERS

    @extend_schema(
        operation_id="audit_labels_list",
        summary="Reference-label audits you take part in (admins: all)",
        description="Experts and adjudicators see the audits they are on; admins every one.",
        parameters=list_parameters(AUDIT_FILTERS, AUDIT_ORDERINGS),
        responses={200: paginated_schema(LabelAuditSerializer), 400: ERROR, 403: ERROR},
        examples=[
            OpenApiExample(
                "Audits",
                value={"count": 1, "next": None, "previous": None, "results": [AUDIT_EXAMPLE]},
                response_only=True,
            )
        ],
    )
    def get(self, request):
        return list_response(
            request,
            self,
            selectors.label_audit_list(user=request.user).order_by("-created_at", "-pk"),
            LabelAuditSerializer,
            filters=AUDIT_FILTERS,
            orderings=AUDIT_ORDERINGS,
        )


class LabelAuditExpertSlotSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    username = serializers.CharField(source="user.username")
    submitted = serializers.IntegerField()


class LabelAuditDetailSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="audit.pk")
    note = serializers.CharField(source="audit.note")
    status = serializers.CharField(source="audit.status")
    seed = serializers.IntegerField(source="audit.seed")
    items_per_stratum = serializers.IntegerField(source="audit.items_per_stratum")
    adjudicator = serializers.CharField(source="audit.adjudicator.username")
    created_at = serializers.DateTimeField(source="audit.created_at")
    completed_at = serializers.DateTimeField(source="audit.completed_at", allow_null=True)
    counts = serializers.DictField(
        child=serializers.IntegerField(), source="overview.counts", help_text="Items per status."
    )
    total = serializers.IntegerField(source="overview.total")
    experts = LabelAuditExpertSlotSerializer(many=True, source="overview.experts")
    strata = serializers.JSONField(help_text="Per stratum: items available and drawn.")
    reproduced = serializers.BooleanField(
        help_text="The stored frame, k and seed draw the same sample again."
    )


DETAIL_EXAMPLE = {
    "id": 3,
    "note": "spring audit",
    "status": "selecting",
    "seed": 31,
    "items_per_stratum": 2,
    "adjudicator": "audit-adjudicator",
    "created_at": "2026-01-05T10:00:00Z",
    "completed_at": None,
    "counts": {"selecting": 170, "approved": 4, "adjudicating": 2, "resolved": 0},
    "total": 176,
    "experts": [{"position": 1, "username": "auditor-1", "submitted": 6}],
    "strata": [
        {
            "character": "CHAR_01",
            "stage": "school_age",
            "stage_label": "School age",
            "available": 9,
            "drawn": 2,
        }
    ],
    "reproduced": True,
}


def audit_detail_data(audit: LabelAudit) -> dict:
    return LabelAuditDetailSerializer(
        {
            "audit": audit,
            "overview": selectors.label_audit_overview(audit=audit),
            "strata": selectors.strata_table(audit=audit),
            "reproduced": services.label_audit_reproduce(audit=audit),
        }
    ).data


class LabelAuditDetailApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = OVERSEERS

    @extend_schema(
        summary="One audit: its team, progress, strata and sample check",
        description="For its adjudicator and admins, as the audit page.",
        responses={200: LabelAuditDetailSerializer, 403: ERROR, 404: ERROR},
        examples=[OpenApiExample("Audit", value=DETAIL_EXAMPLE, response_only=True)],
    )
    def get(self, request, label_audit_id: int):
        audit = overseer_audit(request, label_audit_id)
        return Response(audit_detail_data(audit))


class LabelAuditItemRowSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    position = serializers.IntegerField()
    question_id = serializers.CharField(source="item.question_id")
    character = serializers.CharField(source="character_key")
    stage = serializers.CharField()
    version_audited = serializers.IntegerField(source="item_version.number")
    status = serializers.CharField()
    key_at_audit = serializers.CharField()
    experts_on_key = serializers.IntegerField(source="n_on_key", allow_null=True)
    outcome = serializers.CharField()
    decision = serializers.SerializerMethodField()

    def get_decision(self, row) -> str | None:
        adjudication = getattr(row, "adjudication", None)
        return adjudication.decision if adjudication else None


ITEM_FILTERS = [
    ListFilter("status", "status", choices=tuple(LabelAuditItem.Status.values)),
    ListFilter("outcome", "outcome", choices=tuple(LabelAuditItem.Outcome.values), description=""),
    ListFilter("character", "character_key", description="The target character's key."),
    ListFilter("stage", "stage", description="The life-stage bin."),
]
ITEM_ORDERINGS = {"position": "position", "status": "status", "question_id": "item__question_id"}
ITEM_ROW_EXAMPLE = {
    "id": 51,
    "position": 1,
    "question_id": "Q_CHAR_01_SCN_SCHOOL_AGE_1",
    "character": "CHAR_01",
    "stage": "school_age",
    "version_audited": 2,
    "status": "resolved",
    "key_at_audit": "B",
    "experts_on_key": 2,
    "outcome": "usable_as_is",
    "decision": "usable_as_is",
}


class LabelAuditItemsApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = OVERSEERS

    @extend_schema(
        operation_id="audit_labels_audit_items_list",
        summary="The audit's sampled items with their keys and outcomes",
        description="For its adjudicator and admins: each item's status, key at the audit, "
        "experts on the key and outcome.",
        parameters=list_parameters(ITEM_FILTERS, ITEM_ORDERINGS),
        responses={
            200: paginated_schema(LabelAuditItemRowSerializer),
            400: ERROR,
            403: ERROR,
            404: ERROR,
        },
        examples=[
            OpenApiExample(
                "Items",
                value={"count": 1, "next": None, "previous": None, "results": [ITEM_ROW_EXAMPLE]},
                response_only=True,
            )
        ],
    )
    def get(self, request, label_audit_id: int):
        audit = overseer_audit(request, label_audit_id)
        rows = (
            LabelAuditItem.objects.filter(audit=audit)
            .select_related("item", "item_version", "adjudication")
            .order_by("position")
        )
        return list_response(
            request,
            self,
            rows,
            LabelAuditItemRowSerializer,
            filters=ITEM_FILTERS,
            orderings=ITEM_ORDERINGS,
        )


# --- An expert's reads (blind) ------------------------------------------------------------


class LabelAuditBlindOptionSerializer(serializers.Serializer):
    label = serializers.CharField()
    content = serializers.CharField()


class LabelAuditExpertItemSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="audit_item_id")
    position = serializers.IntegerField()
    question_id = serializers.CharField()
    character = serializers.CharField(source="character_key")
    scenario = serializers.CharField(source="scenario.scenario_id")
    options = LabelAuditBlindOptionSerializer(many=True)
    my_choice = serializers.CharField(source="choice", allow_blank=True)
    my_note = serializers.CharField(source="note", allow_blank=True)
    submitted = serializers.BooleanField()
    draft_saved_at = serializers.DateTimeField(allow_null=True)
    next_item = serializers.IntegerField(source="next_item_id", allow_null=True)


EXPERT_ITEM_EXAMPLE = {
    "id": 51,
    "position": 1,
    "question_id": "Q_CHAR_01_SCN_SCHOOL_AGE_1",
    "character": "CHAR_01",
    "scenario": "SCN_SCHOOL_AGE_1",
    "options": [{"label": "A", "content": "I go to the park with Mom."}],
    "my_choice": "A",
    "my_note": "",
    "submitted": False,
    "draft_saved_at": "2026-01-05T10:00:00Z",
    "next_item": 52,
}


def expert_item_etag(audit_item_id: int, expert) -> str:
    """The expert's own selection on the item: changes with each draft save and submit."""
    mine = LabelSelection.objects.filter(audit_item_id=audit_item_id, expert=expert).first()
    stamp = (mine.updated_at.isoformat(), mine.submitted_at) if mine else ("", "")
    return etag("label-selection", audit_item_id, expert.pk, *stamp)


def expert_page_or_404(audit_item_id: int, expert):
    page = expert_pages.expert_item_page(audit_item_id=audit_item_id, expert=expert)
    if page is None:
        raise NotFound("This item is not in an audit you are an expert on.")
    return page


def expert_item_response(page, expert, *, status: int = 200) -> Response:
    response = Response(LabelAuditExpertItemSerializer(page).data, status=status)
    return with_etag(response, expert_item_etag(page.audit_item_id, expert))


class LabelAuditExpertQueueRowSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="audit_item_id")
    position = serializers.IntegerField()
    question_id = serializers.CharField()
    character = serializers.CharField(source="character_key")
    stage = serializers.CharField(source="stage_label")
    state = serializers.CharField(help_text="Your own progress: todo, draft, submitted.")


QUEUE_FILTERS = [
    ListFilter(
        "state",
        "state",
        description="Your own progress on the item.",
        choices=("todo", "draft", "submitted"),
    )
]
QUEUE_ORDERINGS = ("position", "question_id", "state")


class ExpertQueueApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.AUDIT_EXPERT,)

    @extend_schema(
        operation_id="audit_labels_mine_list",
        summary="Your items in one audit, with your own progress",
        description="Sample order; nothing about the other experts or the key.",
        parameters=list_parameters(QUEUE_FILTERS, QUEUE_ORDERINGS),
        responses={
            200: paginated_schema(LabelAuditExpertQueueRowSerializer),
            400: ERROR,
            403: ERROR,
            404: ERROR,
        },
        examples=[
            OpenApiExample(
                "Queue",
                value={
                    "count": 1,
                    "next": None,
                    "previous": None,
                    "results": [
                        {
                            "id": 51,
                            "position": 1,
                            "question_id": "Q_CHAR_01_SCN_SCHOOL_AGE_1",
                            "character": "CHAR_01",
                            "stage": "School age",
                            "state": "todo",
                        }
                    ],
                },
                response_only=True,
            )
        ],
    )
    def get(self, request, label_audit_id: int):
        audit = selectors.label_audit_get(audit_id=label_audit_id)
        if audit is None or not selectors.is_expert(audit=audit, user=request.user):
            raise NotFound("You are not an expert on this audit.")
        rows = expert_pages.expert_queue(audit=audit, expert=request.user)
        return list_response(
            request,
            self,
            rows,
            LabelAuditExpertQueueRowSerializer,
            filters=QUEUE_FILTERS,
            orderings=QUEUE_ORDERINGS,
        )


class ExpertItemApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.AUDIT_EXPERT,)

    @extend_schema(
        summary="One item as you audit it: options in order and your selection",
        description="The options' labels and texts only (no key, no provenance) and your "
        "own draft or submitted selection. The ETag changes with your selection.",
        responses={200: LabelAuditExpertItemSerializer, 403: ERROR, 404: ERROR},
        examples=[OpenApiExample("Item", value=EXPERT_ITEM_EXAMPLE, response_only=True)],
    )
    def get(self, request, label_item_id: int):
        page = expert_page_or_404(label_item_id, request.user)
        return expert_item_response(page, request.user)


# --- Outcomes (Table 14) ------------------------------------------------------------------


class LabelAuditOutcomeRowSerializer(serializers.Serializer):
    key = serializers.CharField()
    label = serializers.CharField()
    n = serializers.IntegerField()
    percent = serializers.FloatField()


class LabelAuditOutcomesSerializer(serializers.Serializer):
    rows = LabelAuditOutcomeRowSerializer(many=True)
    fleiss_kappa = serializers.FloatField(source="kappa", allow_null=True)
    kappa_ci = serializers.ListField(child=serializers.FloatField(), allow_null=True)
    kappa_items = serializers.IntegerField()
    n_boot = serializers.IntegerField()


class LabelOutcomesApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = OVERSEERS

    @extend_schema(
        summary="One audit's outcome table and Fleiss' κ",
        description="The outcome counts over the sample and the three experts' κ with its "
        "bootstrap interval, as the outcomes page.",
        responses={200: LabelAuditOutcomesSerializer, 403: ERROR, 404: ERROR},
        examples=[
            OpenApiExample(
                "Outcomes",
                value={
                    "rows": [
                        {"key": "sampled", "label": "Items in the sample", "n": 1, "percent": 100}
                    ],
                    "fleiss_kappa": None,
                    "kappa_ci": None,
                    "kappa_items": 1,
                    "n_boot": 0,
                },
                response_only=True,
            )
        ],
    )
    def get(self, request, label_audit_id: int):
        audit = overseer_audit(request, label_audit_id)
        result = outcomes.label_audit_outcomes(audit=audit)
        data = LabelAuditOutcomesSerializer(result).data
        data["kappa_ci"] = list(result.kappa_ci) if result.kappa_ci else None
        return Response(data)


# --- The adjudicator's item page ----------------------------------------------------------


class AdjudicationOptionSerializer(serializers.Serializer):
    label = serializers.CharField()
    content = serializers.CharField()
    is_key = serializers.BooleanField()
    chosen_by = serializers.ListField(child=serializers.IntegerField())


class AdjudicationSelectionSerializer(serializers.Serializer):
    position = serializers.IntegerField(allow_null=True)
    username = serializers.CharField()
    choice = serializers.CharField()
    note = serializers.CharField()
    on_key = serializers.BooleanField()


class LabelAdjudicationSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    decision = serializers.CharField()
    note = serializers.CharField()
    new_key = serializers.CharField()
    adjudicator = serializers.CharField(source="adjudicator.username")
    result_version = serializers.IntegerField(
        source="result_version.number", default=None, allow_null=True
    )
    decided_at = serializers.DateTimeField()


class AdjudicationPageSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="audit_item.pk")
    audit = serializers.IntegerField(source="audit_item.audit_id")
    position = serializers.IntegerField(source="audit_item.position")
    question_id = serializers.CharField(source="audit_item.item.question_id")
    character = serializers.CharField(source="audit_item.character_key")
    stage = serializers.CharField(source="audit_item.stage")
    status = serializers.CharField(source="audit_item.status")
    outcome = serializers.CharField(source="audit_item.outcome")
    version_audited = serializers.IntegerField(source="audit_item.item_version.number")
    current_version = serializers.IntegerField()
    key_at_audit = serializers.CharField(source="audit_item.key_at_audit")
    experts_on_key = serializers.IntegerField(source="audit_item.n_on_key", allow_null=True)
    options = AdjudicationOptionSerializer(many=True)
    selections = AdjudicationSelectionSerializer(many=True)
    adjudication = LabelAdjudicationSerializer(allow_null=True)


def adjudication_etag(page) -> str:
    row = page.audit_item
    return etag("label-adjudication", row.pk, row.status, page.current_version)


def adjudication_page_for(request, audit_item_id: int):
    """The adjudication page, as the page view allows it: 404 for no such item or one
    still awaiting selections, 403 for anyone but the audit's adjudicator and admins."""
    page = adjudicator_pages.adjudication_page(audit_item_id=audit_item_id)
    if page is None:
        raise NotFound("No such audited item.")
    audit = page.audit_item.audit
    if audit.adjudicator_id != request.user.pk and Role.ADMIN not in user_roles(request.user):
        raise PermissionDenied("You are not this audit's adjudicator.")
    if page.audit_item.status == LabelAuditItem.Status.SELECTING:
        raise NotFound("This item's selections are not all in yet.")
    return page
