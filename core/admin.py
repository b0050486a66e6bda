"""What the Django admins of every app share."""

from django.contrib import admin


class ReadOnlyPermissions:
    """Admins may look, filter and search, never add, change or delete."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ReadOnlyAdmin(ReadOnlyPermissions, admin.ModelAdmin):
    """Rows written only by the workflow services (and their history)."""


class ReadOnlyInline(ReadOnlyPermissions, admin.TabularInline):
    """Child rows shown on their parent's read-only page."""
