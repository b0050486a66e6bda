from django.contrib import admin

from adjudication.arbitration.models import (
    AdjudicationSettings,
    ArbitrationDecision,
    McqItem,
    McqItemVersion,
    McqOption,
    ReferenceResponse,
)
from adjudication.mcq.models import McqAssemblyRun, McqReviewDecision, McqScreening
from heartbench_site.base.admin import ReadOnlyAdmin, ReadOnlyInline


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


@admin.register(AdjudicationSettings)
class AdjudicationSettingsAdmin(admin.ModelAdmin):
    list_display = ["__str__", "show_family_to_arbitrator"]


@admin.register(ArbitrationDecision)
class ArbitrationDecisionAdmin(ReadOnlyAdmin):
    list_display = ["pair", "kind", "arbitrator", "decided_at", "reopened_at"]
    list_filter = ["kind"]
    readonly_fields = [f.name for f in ArbitrationDecision._meta.fields]


@admin.register(McqItemVersion)
class McqItemVersionAdmin(ReadOnlyAdmin):
    list_display = ["item", "number", "origin", "correct_answer", "created_by", "created_at"]
    list_filter = ["origin"]
    search_fields = ["item__question_id"]
    list_select_related = ["item", "created_by"]


@admin.register(McqAssemblyRun)
class McqAssemblyRunAdmin(ReadOnlyAdmin):
    list_display = ["__str__", "status"]


@admin.register(McqScreening)
class McqScreeningAdmin(ReadOnlyAdmin):
    list_display = ["__str__", "outcome"]
    list_filter = ["outcome"]


@admin.register(McqReviewDecision)
class McqReviewDecisionAdmin(ReadOnlyAdmin):
    list_display = ["item", "action", "reviewer", "decided_at"]
    list_filter = ["action"]
    search_fields = ["item__question_id", "reviewer__username"]
    list_select_related = ["item", "reviewer"]
