"""Django admin for import jobs: read-only, since imports go through the import service."""

from django.contrib import admin

from annotation.corpus_import.models import ImportJob, ImportJobFile


class ImportJobFileInline(admin.TabularInline):
    model = ImportJobFile
    fields = ["name", "size"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def get_queryset(self, request):
        # The uploaded bytes can be tens of megabytes; the admin never shows them.
        return super().get_queryset(request).defer("content")

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(ImportJob)
class ImportJobAdmin(admin.ModelAdmin):
    list_display = ["id", "status", "created_by", "created_at", "started_at", "finished_at"]
    list_filter = ["status"]
    search_fields = ["created_by__username", "files__name"]
    list_select_related = ["created_by"]
    fields = [
        "status",
        "created_by",
        "created_at",
        "started_at",
        "finished_at",
        "summary",
        "errors",
    ]
    readonly_fields = fields
    inlines = [ImportJobFileInline]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
