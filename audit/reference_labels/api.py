"""The reference-label audit over REST (/api/audit/labels/). Thin: selector → serializer.

An expert's endpoints serialize ``expert_pages`` dataclasses: option labels and texts and
the expert's own selection, never the key or anyone else's selection.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from audit.reference_labels import expert_pages, outcomes, selectors
from heartbench_site.base.roles import HasRole, Role, user_roles


class LabelAuditSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    note = serializers.CharField()
    status = serializers.CharField()
    items = serializers.IntegerField(source="item_count")
    created_at = serializers.DateTimeField()


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


class LabelAuditExpertQueueRowSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="audit_item_id")
    position = serializers.IntegerField()
    question_id = serializers.CharField()
    character = serializers.CharField(source="character_key")
    stage = serializers.CharField(source="stage_label")
    state = serializers.CharField(help_text="Your own progress: todo, draft, submitted.")


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


class LabelAuditListApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.AUDIT_EXPERT, Role.AUDIT_ADJUDICATOR, Role.ADMIN)

    @extend_schema(
        summary="Reference-label audits you take part in (admins: all)",
        responses=LabelAuditSerializer(many=True),
    )
    def get(self, request):
        audits = selectors.label_audit_list(user=request.user)[:100]
        return Response(LabelAuditSerializer(audits, many=True).data)


class ExpertQueueApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.AUDIT_EXPERT,)

    @extend_schema(
        summary="Your items in one audit, with your own progress",
        responses=LabelAuditExpertQueueRowSerializer(many=True),
    )
    def get(self, request, label_audit_id: int):
        audit = selectors.label_audit_get(audit_id=label_audit_id)
        if audit is None or not selectors.is_expert(audit=audit, user=request.user):
            raise NotFound("You are not an expert on this audit.")
        rows = expert_pages.expert_queue(audit=audit, expert=request.user)
        return Response(LabelAuditExpertQueueRowSerializer(rows, many=True).data)


class ExpertItemApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.AUDIT_EXPERT,)

    @extend_schema(
        summary="One item as you audit it: options in order and your selection",
        responses=LabelAuditExpertItemSerializer,
    )
    def get(self, request, label_item_id: int):
        page = expert_pages.expert_item_page(audit_item_id=label_item_id, expert=request.user)
        if page is None:
            raise NotFound("This item is not in an audit you are an expert on.")
        return Response(LabelAuditExpertItemSerializer(page).data)


class LabelOutcomesApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.AUDIT_ADJUDICATOR, Role.ADMIN)

    @extend_schema(
        summary="Table 14 and Fleiss' κ of one audit", responses=LabelAuditOutcomesSerializer
    )
    def get(self, request, label_audit_id: int):
        audit = selectors.label_audit_get(audit_id=label_audit_id)
        if audit is None:
            raise NotFound("No such reference-label audit.")
        if Role.ADMIN not in user_roles(request.user) and audit.adjudicator_id != request.user.pk:
            raise PermissionDenied("You are not this audit's adjudicator.")
        result = outcomes.label_audit_outcomes(audit=audit)
        data = LabelAuditOutcomesSerializer(result).data
        data["kappa_ci"] = list(result.kappa_ci) if result.kappa_ci else None
        return Response(data)
