"""What the Django admins of every app share."""

from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows written only by the workflow services (and their history): admins may look,
    filter and search, never add, change or delete."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
