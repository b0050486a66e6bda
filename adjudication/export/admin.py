"""Export jobs in the Django admin: read-only records of who built what, when."""

from django.contrib import admin

from adjudication.export.models import ExportJob
from core.admin import ReadOnlyAdmin


@admin.register(ExportJob)
class ExportJobAdmin(ReadOnlyAdmin):
    list_display = ("pk", "kind", "status", "created_by", "created_at", "finished_at", "size")
    list_filter = ("kind", "status")
    readonly_fields = [f.name for f in ExportJob._meta.fields]
