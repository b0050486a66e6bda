"""Django admin for memory generation (registered through annotation/admin.py).

Weights, plans, prompt versions, runs, batches, call records and provenance are written
by the services only (a weights or prompt version is immutable once used; editing one
means saving the next number from the pages), so every page here is read-only, as for
candidate generation. The Django admin is for staff admins, who may see model names.
"""

from django.contrib import admin

from annotation.memory_generation.models import (
    GeneratedMemory,
    MemoryBatch,
    MemoryCallRecord,
    MemoryPlan,
    MemoryPromptVersion,
    MemoryRun,
    QuotaWeights,
)
from core.admin import ReadOnlyAdmin
from core.llm_runs.admin import (
    CallRecordAdmin,
    CallRecordInline,
    LlmRunAdmin,
    LlmUnitAdmin,
    call_fields,
    run_fields,
)


@admin.register(QuotaWeights)
class QuotaWeightsAdmin(ReadOnlyAdmin):
    list_display = ["number", "created_by", "created_at", "note"]
    search_fields = ["note"]
    list_select_related = ["created_by"]
    fields = ["number", "weights", "note", "created_by", "created_at"]
    readonly_fields = fields


@admin.register(MemoryPlan)
class MemoryPlanAdmin(ReadOnlyAdmin):
    list_display = ["id", "character", "kind", "target", "accepted", "weights", "created_at"]
    list_filter = ["kind"]
    search_fields = ["character__key", "note"]
    list_select_related = ["character", "weights"]
    fields = [
        "character",
        "profile_version",
        "weights",
        "kind",
        "previous",
        "target",
        "accepted",
        "existing",
        "quotas",
        "audit_run_id",
        "note",
        "created_by",
        "created_at",
    ]
    readonly_fields = fields


@admin.register(MemoryPromptVersion)
class MemoryPromptVersionAdmin(ReadOnlyAdmin):
    list_display = ["number", "created_by", "created_at", "note"]
    search_fields = ["note", "system_template", "user_template"]
    list_select_related = ["created_by"]
    fields = ["number", "system_template", "user_template", "note", "created_by", "created_at"]
    readonly_fields = fields


@admin.register(MemoryRun)
class MemoryRunAdmin(LlmRunAdmin):
    list_display = ["id", "status", "provider", "model_name", "created_by", "created_at"]
    list_filter = ["status", "provider"]
    search_fields = ["note", "model_name", "created_by__username"]
    fields = run_fields(
        "plans", "prompt", "provider", "model_name", "concurrency", "seed", "tier_shares"
    )
    readonly_fields = fields


class MemoryCallRecordInline(CallRecordInline):
    model = MemoryCallRecord
    fields = ["slot", "provider", "model", "ok", "error_kind", "tokens_in", "tokens_out"]
    readonly_fields = fields


@admin.register(MemoryBatch)
class MemoryBatchAdmin(LlmUnitAdmin):
    list_display = [
        "id",
        "run",
        "index",
        "character",
        "life_stage",
        "first_age",
        "last_age",
        "status",
        "attempts",
        "error_kind",
        "updated_at",
    ]
    list_filter = ["status", "life_stage", "error_kind"]
    search_fields = ["character__key", "error_message"]
    list_select_related = ["run", "character"]
    fields = [
        "run",
        "plan",
        "character",
        "index",
        "life_stage",
        "first_age",
        "last_age",
        "slots",
        "status",
        "attempts",
        "error_kind",
        "error_message",
        "tokens_in",
        "tokens_out",
        "cost_usd",
        "updated_at",
    ]
    readonly_fields = fields
    inlines = [MemoryCallRecordInline]


@admin.register(MemoryCallRecord)
class MemoryCallRecordAdmin(CallRecordAdmin):
    list_display = [
        "id",
        "batch",
        "slot",
        "provider",
        "model",
        "ok",
        "error_kind",
        "tokens_in",
        "tokens_out",
        "latency_s",
        "created_at",
    ]
    list_select_related = ["batch__character"]
    fields = call_fields("batch", "slot", after_ok=("problems",))
    readonly_fields = fields


@admin.register(GeneratedMemory)
class GeneratedMemoryAdmin(ReadOnlyAdmin):
    list_display = ["memory", "batch", "slot", "tier", "prompt", "model_name", "created_at"]
    list_filter = ["tier", "model_name"]
    search_fields = ["memory__memory_id", "model_name"]
    list_select_related = ["memory", "batch__character", "prompt"]
    fields = ["memory", "batch", "slot", "tier", "prompt", "model_name", "call", "created_at"]
    readonly_fields = fields
    show_full_result_count = False
    list_per_page = 50
