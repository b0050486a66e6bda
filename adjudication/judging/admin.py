from django.contrib import admin

from adjudication.judging.models import JudgeCall, JudgeRun, JudgeVerdict
from core.admin import ReadOnlyAdmin
from core.llm_runs.admin import LlmRunAdmin, LlmUnitAdmin


@admin.register(JudgeRun)
class JudgeRunAdmin(LlmRunAdmin):
    """Runs change only through the judge-run pages (launch, cancel, resume)."""

    list_display = ["name", "judge_family", "model", "orders_per_pair", "status", "created_at"]
    list_filter = ["status", "judge_family"]


@admin.register(JudgeCall)
class JudgeCallAdmin(LlmUnitAdmin):
    list_display = ["run", "pair", "order_index", "status", "attempts"]
    list_filter = ["status"]


@admin.register(JudgeVerdict)
class JudgeVerdictAdmin(ReadOnlyAdmin):
    list_display = ["call", "suitability", "selected_letter", "selected_candidate", "rating"]
