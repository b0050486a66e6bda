"""Character drafting over REST (admin only): jobs with their drafts and calls."""

from rest_framework import serializers

from annotation.character_drafting.models import CharacterDraft, DraftingCall, DraftingJob


class DraftingJobListSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    prompt_version = serializers.IntegerField(source="prompt.number", read_only=True)
    drafts_total = serializers.IntegerField(read_only=True)
    drafts_succeeded = serializers.IntegerField(read_only=True)
    drafts_failed = serializers.IntegerField(read_only=True)

    class Meta:
        model = DraftingJob
        fields = [
            "id",
            "kind",
            "design",
            "status",
            "provider",
            "model",
            "prompt_version",
            "max_attempts",
            "skipped_keys",
            "note",
            "created_by",
            "created_at",
            "finished_at",
            "drafts_total",
            "drafts_succeeded",
            "drafts_failed",
        ]
        read_only_fields = fields


class DraftingCallSerializer(serializers.ModelSerializer):
    class Meta:
        model = DraftingCall
        fields = [
            "attempt",
            "provider",
            "model",
            "system",
            "user",
            "raw_response",
            "parsed",
            "ok",
            "problems",
            "tokens_in",
            "tokens_out",
            "rounds",
            "error_kind",
            "error_message",
            "created_at",
        ]
        read_only_fields = fields


class CharacterDraftSerializer(serializers.ModelSerializer):
    profile_version = serializers.IntegerField(source="profile_version.number", default=None)
    redraft_of = serializers.IntegerField(source="redraft_of.number", default=None)
    calls = DraftingCallSerializer(many=True, read_only=True)

    class Meta:
        model = CharacterDraft
        fields = [
            "id",
            "char_key",
            "planned",
            "status",
            "redraft_of",
            "redraft_field",
            "guidance",
            "admin_note",
            "problems",
            "warnings",
            "error_kind",
            "error_message",
            "profile_version",
            "calls",
        ]
        read_only_fields = fields


class DraftingJobSerializer(DraftingJobListSerializer):
    drafts = CharacterDraftSerializer(many=True, read_only=True)

    class Meta(DraftingJobListSerializer.Meta):
        fields = [*DraftingJobListSerializer.Meta.fields, "drafts"]
        read_only_fields = fields
