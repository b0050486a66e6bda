"""Django admin for character drafting: jobs, drafts and calls are written by the
drafting services only, so they are read-only here; prompt versions are saved from the
drafting pages (editing one means saving the next number)."""

from django.contrib import admin

from annotation.character_drafting.models import (
    CharacterDraft,
    DraftingCall,
    DraftingJob,
    DraftingPrompt,
)
from core.admin import ReadOnlyAdmin, ReadOnlyInline
from core.llm_runs.admin import CallRecordAdmin, CallRecordInline, LlmRunAdmin


@admin.register(DraftingPrompt)
class DraftingPromptAdmin(ReadOnlyAdmin):
    list_display = ["number", "created_by", "created_at", "note"]
    search_fields = ["note", "system_template", "user_template", "redraft_template"]
    list_select_related = ["created_by"]
    fields = ["number", "system_template", "user_template", "redraft_template", "note"]
    readonly_fields = [*fields, "created_by", "created_at"]


class CharacterDraftInline(ReadOnlyInline):
    model = CharacterDraft
    fields = ["char_key", "status", "profile_version", "error_kind"]
    readonly_fields = fields
    extra = 0
    show_change_link = True


@admin.register(DraftingJob)
class DraftingJobAdmin(LlmRunAdmin):
    list_display = ["id", "kind", "design", "status", "model", "created_by", "created_at"]
    list_filter = ["kind", "status", "design"]
    search_fields = ["note", "model", "created_by__username"]
    readonly_fields = [
        "kind",
        "design",
        "design_text",
        "skipped_keys",
        "provider",
        "model",
        "prompt",
        "max_attempts",
        "note",
        "status",
        "created_by",
        "created_at",
        "finished_at",
        "is_demo",
    ]
    fields = readonly_fields
    inlines = [CharacterDraftInline]


class DraftingCallInline(CallRecordInline):
    model = DraftingCall
    fields = ["attempt", "model", "ok", "error_kind", "tokens_in", "tokens_out"]
    readonly_fields = fields


@admin.register(CharacterDraft)
class CharacterDraftAdmin(ReadOnlyAdmin):
    list_display = ["id", "char_key", "job", "status", "profile_version", "updated_at"]
    list_filter = ["status"]
    search_fields = ["char_key", "error_message"]
    list_select_related = ["job", "profile_version__character"]
    readonly_fields = [
        "job",
        "char_key",
        "planned",
        "redraft_of",
        "redraft_field",
        "guidance",
        "admin_note",
        "status",
        "deliveries",
        "problems",
        "warnings",
        "error_kind",
        "error_message",
        "profile_version",
        "character",
    ]
    fields = readonly_fields
    inlines = [DraftingCallInline]


@admin.register(DraftingCall)
class DraftingCallAdmin(CallRecordAdmin):
    list_display = ["id", "draft", "attempt", "model", "ok", "error_kind", "created_at"]
    list_filter = ["ok", "error_kind"]
    search_fields = ["draft__char_key", "model", "error_message"]
    list_select_related = ["draft"]
    readonly_fields = [
        "draft",
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
        "latency_s",
        "rounds",
        "error_kind",
        "error_message",
        "details",
        "created_at",
    ]
    fields = readonly_fields
