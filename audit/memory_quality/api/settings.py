"""The audit's settings over REST (/api/audit/settings/), for admins: the current version
and a new one from the fields that change plus a note.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from audit.memory_quality import actions, selectors
from audit.memory_quality.actions import ActionRefused
from audit.memory_quality.forms import AuditSettingsForm
from audit.memory_quality.models import NOTE_MAX_CHARS
from audit.memory_quality.services import configuration
from core.api import serializer_error_response
from core.text_rules import SerializerTextRules

from . import examples
from .common import ERROR, AdminApi, refused_response, request_body


class AgeWindowSerializer(SerializerTextRules, serializers.Serializer):
    key = serializers.CharField(max_length=40)
    first_age = serializers.IntegerField()
    last_age = serializers.IntegerField()


class SettingsInputSerializer(SerializerTextRules, serializers.Serializer):
    # A refused note is named in the page's words (issue #33).
    text_labels = {"note": AuditSettingsForm.base_fields["note"].label}
    note = serializers.CharField(max_length=NOTE_MAX_CHARS)
    omniscient_patterns = serializers.ListField(child=serializers.CharField(), required=False)
    adult_evaluation_patterns = serializers.ListField(child=serializers.CharField(), required=False)
    adult_evaluation_max_age = serializers.IntegerField(required=False)
    context_words_min = serializers.IntegerField(required=False)
    context_words_max = serializers.IntegerField(required=False)
    summary_words_min = serializers.IntegerField(required=False)
    summary_words_max = serializers.IntegerField(required=False)
    duplicate_threshold = serializers.FloatField(required=False)
    age_windows = serializers.ListField(child=AgeWindowSerializer(), required=False)
    length_max_chars = serializers.IntegerField(required=False)
    guided_min_chars = serializers.IntegerField(required=False)
    guided_max_chars = serializers.IntegerField(required=False)
    psychoanalytic_terms = serializers.ListField(child=serializers.CharField(), required=False)
    low_intensity_threshold = serializers.FloatField(required=False)
    max_repair_attempts = serializers.IntegerField(required=False)
    enabled_criteria = serializers.ListField(child=serializers.IntegerField(), required=False)
    narrator_labels = serializers.DictField(child=serializers.CharField(), required=False)


class SettingsVersionSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    note = serializers.CharField()
    created_by = serializers.CharField(source="created_by.username", allow_null=True)
    created_at = serializers.DateTimeField()
    values = serializers.SerializerMethodField()

    def get_values(self, version) -> dict:
        return {name: getattr(version, name) for name in configuration.audit_settings_defaults()}


class SettingsApi(AdminApi):
    @extend_schema(
        operation_id="audit_settings_list",
        summary="The audit settings' versions, newest first",
        description="Each run names the version it used; versions never change.",
        responses=SettingsVersionSerializer(many=True),
    )
    def get(self, request):
        versions = selectors.audit_settings_versions()
        return Response(SettingsVersionSerializer(versions, many=True).data)

    @extend_schema(
        summary="Save a new settings version",
        description=(
            "Send the settings you change (lists as JSON lists, `age_windows` as "
            "`[{key, first_age, last_age}]`, `narrator_labels` as an object) and a `note`; "
            "the rest keep the latest version's values. Validated as the settings page."
        ),
        request=SettingsInputSerializer,
        responses={201: SettingsVersionSerializer, 400: ERROR, 403: ERROR},
        examples=examples.SETTINGS_POST,
    )
    def post(self, request):
        body = request_body(request)
        # The shapes first (lists of strings, windows as objects...), so a body of the wrong
        # shape is a 400 naming the field, never a crash while filling the page's form.
        shaped = SettingsInputSerializer(data=body)
        if not shaped.is_valid():
            return serializer_error_response(shaped)
        latest = selectors.audit_settings_latest()
        values = configuration.audit_settings_defaults()
        if latest is not None:
            values = {name: getattr(latest, name) for name in values}
        sent = {k: v for k, v in shaped.validated_data.items() if k in values}
        data = AuditSettingsForm.initial_from({**values, **sent})
        data["note"] = body.get("note", "")
        if "enabled_criteria" not in sent:
            data["enabled_criteria"] = values["enabled_criteria"]
        try:
            version = actions.settings_create(
                AuditSettingsForm(data=data),
                user=request.user,
                character_names=values["character_names"],
            )
        except ActionRefused as refused:
            return refused_response(refused)
        return Response(SettingsVersionSerializer(version).data, status=status.HTTP_201_CREATED)
