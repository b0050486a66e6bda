"""Label audits over REST (/api/audit/labels/): the admin creates one (team and sample,
with the create page's fields); members list them; the adjudicator and admins see one
(team, progress, strata) and its items (they see the key).
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from audit.reference_labels import actions, selectors, services
from audit.reference_labels.forms import LabelAuditCreateForm
from audit.reference_labels.models import LabelAudit, LabelAuditItem
from core.api import ERROR, ListFilter, list_parameters, list_response, paginated_schema
from core.roles import HasRole, Role
from core.text_rules import SerializerTextRules

from . import examples
from .common import MEMBERS, OVERSEERS, overseer_audit, request_fields


class LabelAuditSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    note = serializers.CharField()
    status = serializers.CharField()
    items = serializers.IntegerField(source="item_count")
    created_at = serializers.DateTimeField()


AUDIT_FILTERS = [ListFilter("status", "status", choices=tuple(LabelAudit.Status.values))]
AUDIT_ORDERINGS = ("created_at", "status")


class LabelAuditListApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = MEMBERS

    @extend_schema(
        operation_id="audit_labels_list",
        summary="Reference-label audits you take part in (admins: all)",
        description="Experts and adjudicators see the audits they are on; admins every one.",
        parameters=list_parameters(AUDIT_FILTERS, AUDIT_ORDERINGS),
        responses={200: paginated_schema(LabelAuditSerializer), 400: ERROR, 403: ERROR},
        examples=examples.LABEL_AUDIT_LIST_GET,
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
        examples=examples.LABEL_AUDIT_DETAIL_GET,
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
        examples=examples.LABEL_AUDIT_ITEMS_GET,
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


class LabelAuditCreateSerializer(SerializerTextRules, serializers.Serializer):
    experts = serializers.ListField(child=serializers.IntegerField(), help_text="Three user ids.")
    adjudicator = serializers.IntegerField(help_text="The adjudicator's user id.")
    items_per_stratum = serializers.IntegerField(required=False)
    seed = serializers.IntegerField(required=False, allow_null=True)
    note = serializers.CharField(
        required=False, allow_blank=True, max_length=services.AUDIT_NOTE_MAX
    )


class LabelAuditListCreateApi(LabelAuditListApi):
    write_roles = (Role.ADMIN,)

    @extend_schema(
        summary="Create a reference-label audit: check the team and draw the sample",
        description="The create page: three audit experts and an adjudicator (user ids) "
        "with no part in construction (App. D.4), items per character × life-stage "
        "stratum, and a seed (empty: a fresh one, recorded). 201 with the audit; 400 with "
        "the page's messages (wrong team, conflict of interest, empty final set).",
        request=LabelAuditCreateSerializer,
        responses={201: LabelAuditDetailSerializer, 400: ERROR, 403: ERROR},
        examples=examples.LABEL_AUDIT_LIST_CREATE_POST,
    )
    def post(self, request):
        data = request_fields(
            request, ("experts", "adjudicator", "items_per_stratum", "seed", "note")
        )
        data.setdefault(
            "items_per_stratum", LabelAuditCreateForm().fields["items_per_stratum"].initial
        )
        audit = actions.label_audit_create(LabelAuditCreateForm(data=data), user=request.user)
        return Response(audit_detail_data(audit), status=status.HTTP_201_CREATED)
