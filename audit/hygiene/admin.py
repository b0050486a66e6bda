"""The release hygiene screen's rows in the Django admin, read-only: changes go through
the services (a reviewer's decision through the flag's page)."""

from django.contrib import admin

from audit.hygiene.models import HygieneDecision, HygieneFlag, HygieneRun, HygieneUnit
from core.admin import ReadOnlyAdmin
from core.llm_runs.admin import LlmRunAdmin, LlmUnitAdmin


@admin.register(HygieneRun)
class HygieneRunAdmin(LlmRunAdmin):
    list_display = ("pk", "status", "lexicon_name", "text_done", "text_total", "created_at")


@admin.register(HygieneUnit)
class HygieneUnitAdmin(LlmUnitAdmin):
    list_display = ("pk", "run", "character", "status", "texts")
    list_select_related = ("run", "character")


@admin.register(HygieneFlag)
class HygieneFlagAdmin(ReadOnlyAdmin):
    list_display = ("pk", "run", "character", "text_kind", "rule", "status", "created_at")
    list_filter = ("rule", "status", "text_kind")
    list_select_related = ("run", "character")


@admin.register(HygieneDecision)
class HygieneDecisionAdmin(ReadOnlyAdmin):
    list_display = ("flag", "decision", "reviewer", "created_at")
    list_select_related = ("flag", "reviewer")
