"""What the Django admins of every app share, and the base's own rows: the protocol
deviations and the autosaved form drafts, read-only (a draft is its owner's; admins may
look, as at any row), and API tokens by owner and date, never by key."""

from django.contrib import admin
from rest_framework.authtoken.admin import TokenAdmin
from rest_framework.authtoken.models import TokenProxy

from core.deviations import ProtocolDeviation
from core.drafts import FormDraft


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


@admin.register(ProtocolDeviation)
class ProtocolDeviationAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "stage", "kind", "subject", "rule", "recorded_by")
    list_filter = ("stage", "kind")
    search_fields = ("subject", "rule", "reason")


@admin.register(FormDraft)
class FormDraftAdmin(ReadOnlyAdmin):
    list_display = ("key", "user", "updated_at")
    search_fields = ("key", "user__username")


# DRF's own token admin lists every key in clear: an admin could act as anyone through the
# API. Here an admin sees whose token exists and since when, and may delete (revoke) it.
admin.site.unregister(TokenProxy)


@admin.register(TokenProxy)
class ApiTokenAdmin(TokenAdmin):
    list_display = ("user", "created")
    fields = ("user", "created")
    readonly_fields = ("user", "created")
    search_fields = ("user__username",)

    def has_add_permission(self, request):
        return False  # a token is made by its owner (/accounts/token/), shown to them once

    def has_change_permission(self, request, obj=None):
        return False
