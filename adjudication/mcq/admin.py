from django.contrib import admin

from adjudication.mcq.models import (
    McqAssemblyRun,
    McqItem,
    McqItemVersion,
    McqOption,
    McqRecallAudit,
    McqReviewDecision,
    McqScreening,
    McqScreeningCall,
    McqScreeningRun,
)
from core.admin import ReadOnlyAdmin, ReadOnlyInline
from core.llm_runs.admin import (
    CallRecordAdmin,
    CallRecordInline,
    LlmRunAdmin,
    LlmUnitAdmin,
    call_fields,
    run_fields,
)


class McqOptionInline(ReadOnlyInline):
    model = McqOption
    fields = ["label", "content", "is_correct", "is_generated", "source_character"]
    extra = 0


@admin.register(McqItem)
class McqItemAdmin(ReadOnlyAdmin):
    """Items change only through item versions (item review, the label audit), never here."""

    list_display = [
        "question_id",
        "character",
        "scenario",
        "stage",
        "correct_answer",
        "version",
        "status",
    ]
    list_filter = ["status", "stage", "correct_answer", "character"]
    search_fields = ["question_id", "character__key", "scenario__scenario_id"]
    list_select_related = ["character", "scenario"]
    autocomplete_fields = ["character", "scenario"]
    readonly_fields = ["created_at"]
    inlines = [McqOptionInline]


@admin.register(McqItemVersion)
class McqItemVersionAdmin(ReadOnlyAdmin):
    list_display = ["item", "number", "origin", "correct_answer", "created_by", "created_at"]
    list_filter = ["origin"]
    search_fields = ["item__question_id"]
    list_select_related = ["item", "created_by"]


@admin.register(McqAssemblyRun)
class McqAssemblyRunAdmin(ReadOnlyAdmin):
    list_display = ["__str__", "status"]


@admin.register(McqScreeningRun)
class McqScreeningRunAdmin(LlmRunAdmin):
    list_display = ["__str__", "status", "note", "created_at"]
    fields = run_fields("assembly_run")


class McqScreeningCallInline(CallRecordInline):
    model = McqScreeningCall
    fields = ["attempt", "ok", "error_kind", "tokens_in", "tokens_out", "latency_s"]


@admin.register(McqScreening)
class McqScreeningAdmin(LlmUnitAdmin):
    list_display = ["__str__", "run", "status", "outcome", "tokens_in", "tokens_out", "cost_usd"]
    list_filter = ["status", "outcome"]
    inlines = [McqScreeningCallInline]


@admin.register(McqScreeningCall)
class McqScreeningCallAdmin(CallRecordAdmin):
    list_display = ["__str__", "provider", "model", "ok", "tokens_in", "tokens_out", "latency_s"]
    fields = call_fields("screening", "attempt", after_ok=("problems",))


@admin.register(McqReviewDecision)
class McqReviewDecisionAdmin(ReadOnlyAdmin):
    list_display = ["item", "action", "reviewer", "decided_at"]
    list_filter = ["action"]
    search_fields = ["item__question_id", "reviewer__username"]
    list_select_related = ["item", "reviewer"]


@admin.register(McqRecallAudit)
class McqRecallAuditAdmin(ReadOnlyAdmin):
    """Draws of passed items sent back to item review (the screener's recall)."""

    list_display = ["__str__", "created_at", "created_by", "seed", "rate", "min_items"]
