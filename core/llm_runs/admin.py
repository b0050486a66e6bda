"""What the Django admins of every LLM-backed run share (``core.llm_runs``).

Runs, units and call records are written by the workflow services only, so their admin
pages are read-only (``core.admin.ReadOnlyAdmin``). A workflow's admin class derives
from one of these and names its own columns; ``run_fields`` and ``call_fields`` put
them among the framework's in one order for every stage.
"""

from django.contrib import admin

from core.admin import ReadOnlyAdmin, ReadOnlyInline
from core.llm_runs.models import MonthlySpendingCap
from core.llm_runs.spending import month_spend, usd

__all__ = [
    "CallRecordAdmin",
    "CallRecordInline",
    "LlmRunAdmin",
    "LlmUnitAdmin",
    "MonthlySpendingCapAdmin",
    "call_fields",
    "run_fields",
]

# The fields of a call record's page after the workflow's own (the unit, stage, slot).
CALL_FIELDS = [
    "provider",
    "model",
    "prompt_hash",
    "ok",
    "error_kind",
    "error_message",
    "tokens_in",
    "tokens_out",
    "latency_s",
    "attempt_count",
    "request",
    "raw_response",
    "parsed",
    "details",
    "created_at",
]


def run_fields(*own: str, timestamps=("created_at", "started_at", "finished_at")) -> list[str]:
    """A run page's fields: its status, the workflow's own, who launched it and when."""
    return ["status", *own, "note", "created_by", *timestamps]


def call_fields(*own: str, after_ok=()) -> list[str]:
    """A call record's page: the workflow's own fields, then the call's (``after_ok``,
    e.g. the problems found, right after whether it was usable)."""
    fields = [*own, *CALL_FIELDS]
    at = fields.index("ok") + 1
    return [*fields[:at], *after_ok, *fields[at:]]


class LlmRunAdmin(ReadOnlyAdmin):
    """A run changes only through its pages (start, cancel, resume, retry)."""

    list_filter = ["status"]
    search_fields = ["note", "created_by__username"]
    list_select_related = ["created_by"]


class LlmUnitAdmin(ReadOnlyAdmin):
    """A run's units: many rows, so no full count and 50 a page."""

    show_full_result_count = False
    list_per_page = 50


class CallRecordAdmin(LlmUnitAdmin):
    """A stage's model calls, filtered by outcome, found by prompt hash or error."""

    list_filter = ["ok", "provider", "error_kind"]
    search_fields = ["prompt_hash", "model", "error_message"]


class CallRecordInline(ReadOnlyInline):
    """A unit's calls on its page; the large columns are never loaded."""

    extra = 0
    show_change_link = True

    def get_queryset(self, request):
        # Requests and raw responses can be large; the inline never shows them.
        names = {f.name for f in self.model._meta.fields} - set(self.fields or ())
        large = [n for n in ("request", "raw_response", "parsed", "details") if n in names]
        return super().get_queryset(request).defer(*large)


@admin.register(MonthlySpendingCap)
class MonthlySpendingCapAdmin(admin.ModelAdmin):
    """The lab's monthly cap per provider (issue #36): the one row admins edit here. The
    list shows what each provider has cost this month, from the recorded calls."""

    list_display = ["provider", "cap_usd", "spent_this_month", "updated_at"]
    fields = ["provider", "cap_usd", "note"]

    @admin.display(description="Spent this month (UTC)")
    def spent_this_month(self, cap):
        return usd(month_spend(cap.provider))
