"""The review records in the Django admin: read-only, since every change goes through
``review_services`` (and is logged there)."""

from django.contrib import admin

from annotation.profile_review.models import (
    ChangeRequest,
    DiamondsRating,
    FinalDiamondsRating,
    ProfileEdit,
    ProfileReview,
    ProfileReviewCase,
    ReviewEvent,
    ScenarioBlueprint,
    ScenarioReview,
    ScenarioVersion,
    ScreeningDecision,
)
from heartbench_site.base.admin import ReadOnlyAdmin


@admin.register(ProfileReviewCase)
class ProfileReviewCaseAdmin(ReadOnlyAdmin):
    list_display = ("character", "reviewed_version", "status", "final_version", "frozen_at")
    list_filter = ("status",)


@admin.register(ProfileReview)
class ProfileReviewAdmin(ReadOnlyAdmin):
    list_display = ("case", "reviewer", "recommendation", "submitted_at")
    list_filter = ("recommendation",)


@admin.register(ChangeRequest)
class ChangeRequestAdmin(ReadOnlyAdmin):
    list_display = ("review", "field", "status", "resolved_by", "resolved_at")
    list_filter = ("status", "field")


@admin.register(ProfileEdit)
class ProfileEditAdmin(ReadOnlyAdmin):
    list_display = ("case", "from_version", "to_version", "editor", "anchor_change_confirmed")


@admin.register(ScenarioBlueprint)
class ScenarioBlueprintAdmin(ReadOnlyAdmin):
    list_display = ("title", "stage", "diamonds_dimension", "status", "scenario", "created_at")
    list_filter = ("status", "stage")


@admin.register(ScenarioVersion)
class ScenarioVersionAdmin(ReadOnlyAdmin):
    list_display = ("scenario", "number", "origin", "created_by", "created_at")
    list_filter = ("origin",)


@admin.register(ScenarioReview)
class ScenarioReviewAdmin(ReadOnlyAdmin):
    list_display = ("scenario", "stage", "version", "screened_at", "completed_at")
    list_filter = ("stage",)


@admin.register(ScreeningDecision)
class ScreeningDecisionAdmin(ReadOnlyAdmin):
    list_display = ("review", "version", "reviewer", "decision", "created_at")


@admin.register(DiamondsRating)
class DiamondsRatingAdmin(ReadOnlyAdmin):
    list_display = ("review", "reviewer", "submitted_at")


@admin.register(FinalDiamondsRating)
class FinalDiamondsRatingAdmin(ReadOnlyAdmin):
    list_display = ("review", "recorded_by", "recorded_at")


@admin.register(ReviewEvent)
class ReviewEventAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "actor", "action", "character", "scenario")
    list_filter = ("action",)
