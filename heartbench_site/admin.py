"""The site's own rows in the Django admin: the protocol deviations, read-only."""

from django.contrib import admin

from heartbench_site.base.admin import ReadOnlyAdmin
from heartbench_site.base.deviations import ProtocolDeviation


@admin.register(ProtocolDeviation)
class ProtocolDeviationAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "stage", "kind", "subject", "rule", "recorded_by")
    list_filter = ("stage", "kind")
    search_fields = ("subject", "rule", "reason")
