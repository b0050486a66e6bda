"""Django admin for family guesses: written by the annotators' question only, read-only
here (staff admins)."""

from django.contrib import admin

from annotation.blinding.models import FamilyGuess
from core.admin import ReadOnlyAdmin


@admin.register(FamilyGuess)
class FamilyGuessAdmin(ReadOnlyAdmin):
    list_display = ["id", "assignment", "created_at", "updated_at"]
    list_select_related = ["assignment__pair__character", "assignment__pair__scenario"]
    fields = ["assignment", "guesses", "created_at", "updated_at"]
    readonly_fields = fields
