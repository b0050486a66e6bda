"""API shapes of import jobs: a job's status, files (names and sizes, never bytes),
summary and errors, and the multipart upload that creates one."""

from rest_framework import serializers

from annotation.corpus_import.models import ImportJob, ImportJobFile


class ImportJobFileSerializer(serializers.ModelSerializer):
    class Meta:
        model = ImportJobFile
        fields = ["name", "size"]
        read_only_fields = fields


class ImportErrorSerializer(serializers.Serializer):
    file = serializers.CharField()
    # Errors about a whole file name no record or field.
    record = serializers.CharField(required=False, allow_null=True)
    field = serializers.CharField(required=False, allow_null=True)
    message = serializers.CharField()


class ImportJobSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    files = ImportJobFileSerializer(source="file_list", many=True, read_only=True)
    summary = serializers.JSONField(read_only=True)
    errors = ImportErrorSerializer(many=True, read_only=True)

    class Meta:
        model = ImportJob
        fields = [
            "id",
            "status",
            "as_new_versions",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
            "files",
            "summary",
            "errors",
        ]
        read_only_fields = fields


class ImportJobListSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    file_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = ImportJob
        fields = ["id", "status", "created_by", "created_at", "finished_at", "file_count"]
        read_only_fields = fields


class ImportJobCreateSerializer(serializers.Serializer):
    files = serializers.ListField(
        child=serializers.FileField(allow_empty_file=True),
        allow_empty=False,
        help_text="One or more corpus files (send the `files` part once per file).",
    )
    as_new_versions = serializers.BooleanField(
        required=False,
        default=False,
        help_text=(
            "Add a changed profile whose current version is frozen as its next version, a "
            "draft for profile review, instead of refusing the import. Memories and "
            "scenarios are never replaced this way."
        ),
    )
