from django.contrib import admin

from .models import (
    AdjudicationSettings,
    ArbitrationDecision,
    McqItem,
    McqOption,
    ReferenceResponse,
)


@admin.register(ReferenceResponse)
class ReferenceResponseAdmin(admin.ModelAdmin):
    list_display = ["__str__", "decision_type", "final_decision_start", "created_at"]
    list_filter = ["decision_type", "scenario__stage", "character"]
    search_fields = ["character__key", "scenario__scenario_id", "final_decision", "summary"]
    list_select_related = ["character", "scenario"]
    autocomplete_fields = ["character", "scenario"]
    readonly_fields = ["created_at"]

    @admin.display(description="final decision")
    def final_decision_start(self, obj):
        return obj.final_decision[:80] + ("…" if len(obj.final_decision) > 80 else "")


class McqOptionInline(admin.TabularInline):
    model = McqOption
    fields = ["label", "content", "is_correct", "is_generated", "source_character"]
    extra = 0


@admin.register(McqItem)
class McqItemAdmin(admin.ModelAdmin):
    list_display = ["question_id", "character", "scenario", "stage", "correct_answer", "version"]
    list_filter = ["stage", "correct_answer", "character"]
    search_fields = ["question_id", "character__key", "scenario__scenario_id"]
    list_select_related = ["character", "scenario"]
    autocomplete_fields = ["character", "scenario"]
    readonly_fields = ["created_at"]
    inlines = [McqOptionInline]


@admin.register(AdjudicationSettings)
class AdjudicationSettingsAdmin(admin.ModelAdmin):
    list_display = ["__str__", "show_family_to_arbitrator"]


@admin.register(ArbitrationDecision)
class ArbitrationDecisionAdmin(admin.ModelAdmin):
    list_display = ["pair", "kind", "arbitrator", "decided_at", "reopened_at"]
    list_filter = ["kind"]
    readonly_fields = [f.name for f in ArbitrationDecision._meta.fields]

    def has_add_permission(self, request):
        return False  # decisions are made on the arbitration page, through the service
