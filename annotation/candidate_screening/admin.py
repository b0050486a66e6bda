"""Django admin for leak flags and cleaning edits: written by the screening services
only, so read-only here (staff admins, who may see everything)."""

from django.contrib import admin

from annotation.candidate_screening.models import CandidateCleaning, LeakFlag
from core.admin import ReadOnlyAdmin


@admin.register(LeakFlag)
class LeakFlagAdmin(ReadOnlyAdmin):
    list_display = ["id", "candidate", "status", "created_at", "resolved_by", "resolved_at"]
    list_filter = ["status"]
    list_select_related = ["candidate", "resolved_by"]
    fields = [
        "candidate",
        "status",
        "findings",
        "screened_texts",
        "screened_by",
        "created_at",
        "resolved_by",
        "resolved_at",
        "reason",
    ]
    readonly_fields = fields


@admin.register(CandidateCleaning)
class CandidateCleaningAdmin(ReadOnlyAdmin):
    list_display = ["id", "candidate", "flag", "edited_by", "edited_at"]
    list_select_related = ["candidate", "flag", "edited_by"]
    fields = ["flag", "candidate", "before", "after", "edited_by", "edited_at", "reason"]
    readonly_fields = fields
