"""Observer reports' rows in the Django admin, read-only: changes go through the services."""

from django.contrib import admin

from audit.observers.models import (
    ObserverCall,
    ObserverInventory,
    ObserverRating,
    ObserverRun,
    ObserverUnit,
)
from core.admin import ReadOnlyAdmin
from core.llm_runs.admin import CallRecordAdmin, LlmRunAdmin, LlmUnitAdmin, call_fields


@admin.register(ObserverInventory)
class ObserverInventoryAdmin(ReadOnlyAdmin):
    list_display = ("name", "version", "item_count", "loaded_by", "loaded_at")


@admin.register(ObserverRun)
class ObserverRunAdmin(LlmRunAdmin):
    list_display = ("pk", "status", "inventory", "target", "sample_size", "seed", "created_at")


@admin.register(ObserverUnit)
class ObserverUnitAdmin(LlmUnitAdmin):
    list_display = ("pk", "run", "character", "observer_kind", "observer", "status")
    list_filter = ("status", "observer_kind")
    list_select_related = ("run", "character")


@admin.register(ObserverCall)
class ObserverCallAdmin(CallRecordAdmin):
    list_display = ("pk", "unit", "provider", "model", "ok", "error_kind", "created_at")
    fields = call_fields("unit")


@admin.register(ObserverRating)
class ObserverRatingAdmin(ReadOnlyAdmin):
    list_display = ("unit", "item_id", "trait", "keying", "value")
