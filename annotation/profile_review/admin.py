"""Profile review's records and the shared review history in the Django admin:
read-only, since every change goes through ``services`` (and is logged there)."""

from django.contrib import admin

from annotation.profile_review.models import (
    ChangeRequest,
    ProfileEdit,
    ProfileReview,
    ProfileReviewCase,
    ReviewEvent,
)
from core.admin import ReadOnlyAdmin


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


@admin.register(ReviewEvent)
class ReviewEventAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "actor", "action", "character", "scenario")
    list_filter = ("action",)
