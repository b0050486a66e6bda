"""The memory quality audit's rows in the Django admin, read-only: changes go through the services
(settings versions through the audit settings page, which creates a new version)."""

from django.contrib import admin

from audit.memory_quality.models import (
    AuditCall,
    AuditEvent,
    AuditRun,
    AuditSettings,
    AuditUnit,
    ClassifierResult,
    FactCheck,
    MemoryCase,
    MemoryFlag,
    MemoryVersion,
    OverrideAgreement,
    RepairAttempt,
    RepairDefect,
    TimelineEntry,
)
from core.admin import ReadOnlyAdmin
from core.llm_runs.admin import CallRecordAdmin, LlmRunAdmin, LlmUnitAdmin, call_fields


@admin.register(AuditSettings)
class AuditSettingsAdmin(ReadOnlyAdmin):
    list_display = ("number", "note", "created_by", "created_at")


@admin.register(AuditRun)
class AuditRunAdmin(LlmRunAdmin):
    list_display = ("pk", "status", "settings_version", "memory_done", "memory_total", "created_at")


@admin.register(AuditUnit)
class AuditUnitAdmin(LlmUnitAdmin):
    list_display = ("pk", "run", "character", "status", "memory_count", "tokens_in", "tokens_out")
    list_filter = ("status",)
    list_select_related = ("run", "character")


@admin.register(AuditCall)
class AuditCallAdmin(CallRecordAdmin):
    list_display = ("pk", "run", "kind", "provider", "model", "ok", "error_kind", "created_at")
    fields = call_fields("run", "kind")


@admin.register(MemoryCase)
class MemoryCaseAdmin(ReadOnlyAdmin):
    list_display = ("memory", "run", "status", "decision", "escalated")
    list_filter = ("status",)
    list_select_related = ("memory", "run")


@admin.register(RepairAttempt)
class RepairAttemptAdmin(ReadOnlyAdmin):
    list_display = ("case", "number", "defect", "defect_attempt", "passed", "created_at")
    list_select_related = ("case__memory",)


@admin.register(MemoryVersion)
class MemoryVersionAdmin(ReadOnlyAdmin):
    list_display = ("memory", "number", "origin", "author", "created_at")
    list_select_related = ("memory", "author")


@admin.register(FactCheck)
class FactCheckAdmin(ReadOnlyAdmin):
    list_display = ("attempt", "status", "omitted_rate", "missing_count", "invented_count")
    list_select_related = ("attempt",)


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "actor", "action", "run", "case")


# The rest of the memory audit: written only through its services, browsed here.
for _model in (MemoryFlag, ClassifierResult, TimelineEntry, RepairDefect, OverrideAgreement):
    admin.site.register(_model, ReadOnlyAdmin)
