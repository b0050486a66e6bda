from django.contrib import admin

from adjudication.judging.models import JudgeCall, JudgeCallRecord, JudgeRun, JudgeVerdict
from core.admin import ReadOnlyAdmin
from core.llm_runs.admin import (
    CallRecordAdmin,
    CallRecordInline,
    LlmRunAdmin,
    LlmUnitAdmin,
    call_fields,
)


@admin.register(JudgeRun)
class JudgeRunAdmin(LlmRunAdmin):
    """Runs change only through the judge-run pages (launch, cancel, resume, retry)."""

    list_display = ["name", "judge_family", "model", "orders_per_pair", "status", "created_at"]
    list_filter = ["status", "judge_family"]


class JudgeCallRecordInline(CallRecordInline):
    model = JudgeCallRecord
    fields = ["provider", "model", "ok", "error_kind", "tokens_in", "tokens_out", "created_at"]
    readonly_fields = fields


@admin.register(JudgeCall)
class JudgeCallAdmin(LlmUnitAdmin):
    list_display = ["run", "pair", "order_index", "status", "attempts", "error_kind", "cost_usd"]
    list_filter = ["status"]
    inlines = [JudgeCallRecordInline]


@admin.register(JudgeCallRecord)
class JudgeCallRecordAdmin(CallRecordAdmin):
    list_display = ["id", "call", "provider", "model", "ok", "error_kind", "created_at"]
    list_select_related = ["call__pair__character", "call__pair__scenario"]
    readonly_fields = call_fields("call")
    fields = readonly_fields


@admin.register(JudgeVerdict)
class JudgeVerdictAdmin(ReadOnlyAdmin):
    list_display = ["call", "suitability", "selected_letter", "selected_candidate", "rating"]
