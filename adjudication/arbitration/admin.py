from django.contrib import admin

from adjudication.arbitration.models import (
    AdjudicationSettings,
    ArbitrationDecision,
    ReferenceResponse,
)
from heartbench_site.base.admin import ReadOnlyAdmin


@admin.register(ReferenceResponse)
class ReferenceResponseAdmin(ReadOnlyAdmin):
    """References change only through arbitration (a new row supersedes the old)."""

    list_display = ["__str__", "decision_type", "final_decision_start", "created_at"]
    list_filter = ["decision_type", "scenario__stage", "character"]
    search_fields = ["character__key", "scenario__scenario_id", "final_decision", "summary"]
    list_select_related = ["character", "scenario"]
    autocomplete_fields = ["character", "scenario"]
    readonly_fields = ["created_at"]

    @admin.display(description="final decision")
    def final_decision_start(self, obj):
        return obj.final_decision[:80] + ("…" if len(obj.final_decision) > 80 else "")


@admin.register(AdjudicationSettings)
class AdjudicationSettingsAdmin(admin.ModelAdmin):
    list_display = ["__str__", "show_family_to_arbitrator"]


@admin.register(ArbitrationDecision)
class ArbitrationDecisionAdmin(ReadOnlyAdmin):
    list_display = ["pair", "kind", "arbitrator", "decided_at", "reopened_at"]
    list_filter = ["kind"]
    readonly_fields = [f.name for f in ArbitrationDecision._meta.fields]
