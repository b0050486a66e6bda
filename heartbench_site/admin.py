"""The site's own rows in the Django admin, read-only: the protocol deviations and the
autosaved form drafts (a draft is its owner's; admins may look, as at any row)."""

from django.contrib import admin

from heartbench_site.base.admin import ReadOnlyAdmin
from heartbench_site.base.deviations import ProtocolDeviation
from heartbench_site.base.drafts import FormDraft


@admin.register(ProtocolDeviation)
class ProtocolDeviationAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "stage", "kind", "subject", "rule", "recorded_by")
    list_filter = ("stage", "kind")
    search_fields = ("subject", "rule", "reason")


@admin.register(FormDraft)
class FormDraftAdmin(ReadOnlyAdmin):
    list_display = ("key", "user", "updated_at")
    search_fields = ("key", "user__username")
