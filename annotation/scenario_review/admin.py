"""Scenario review's records in the Django admin: read-only, since every change goes
through ``services`` or ``blueprints`` (and is logged there)."""

from django.contrib import admin

from annotation.scenario_review.models import (
    DiamondsRating,
    FinalDiamondsRating,
    ReassessmentProposal,
    ScenarioBlueprint,
    ScenarioReview,
    ScenarioVersion,
    ScreeningDecision,
)
from core.admin import ReadOnlyAdmin


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


@admin.register(ReassessmentProposal)
class ReassessmentProposalAdmin(ReadOnlyAdmin):
    list_display = ("review", "proposed_by", "values", "created_at")


@admin.register(FinalDiamondsRating)
class FinalDiamondsRatingAdmin(ReadOnlyAdmin):
    list_display = ("review", "recorded_by", "proposal", "recorded_at")
