"""Invitations and mail attempts in Django's admin, read-only: every change goes through
the team page's services. An invitation's nonce is never shown."""

from django.contrib import admin

from core.admin import ReadOnlyAdmin

from .models import Invitation, MailAttempt


@admin.register(Invitation)
class InvitationAdmin(ReadOnlyAdmin):
    list_display = ("email", "invited_by", "created_at", "expires_at", "accepted_at", "revoked_at")
    search_fields = ("email",)
    exclude = ("nonce",)


@admin.register(MailAttempt)
class MailAttemptAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "kind", "to", "subject", "status", "finished_at")
    list_filter = ("kind", "status")
    search_fields = ("to", "subject", "error")
