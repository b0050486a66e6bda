"""Invitations to join the team, and a record of every mail the platform tries to send."""

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone


class Invitation(models.Model):
    """An admin's invitation of one email address with a set of roles.

    The link carries a signed value naming this row and its ``nonce``: it cannot be forged
    without SECRET_KEY, resending draws a new nonce (the earlier link stops working), and
    accepting, revoking or passing ``expires_at`` ends it for good. The nonce alone opens
    nothing, so reading this table does not hand out working links.
    """

    email = models.EmailField()
    roles = models.JSONField(default=list, help_text="Role values (core.roles.Role).")
    nonce = models.CharField(max_length=64)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(help_text="When the current link was issued.")
    expires_at = models.DateTimeField()
    # The address the link starts with (SITE_URL, or the host the admin's request came to).
    site_url = models.CharField(max_length=300)
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            # One open invitation per address: a second would leave two live links.
            models.UniqueConstraint(
                Lower("email"),
                condition=models.Q(accepted_at__isnull=True, revoked_at__isnull=True),
                name="team_one_open_invitation_per_email",
            )
        ]

    def __str__(self):
        return f"invitation of {self.email}"

    @property
    def state(self) -> str:
        if self.accepted_at:
            return "accepted"
        if self.revoked_at:
            return "revoked"
        if self.expires_at <= timezone.now():
            return "expired"
        return "pending"


class MailAttempt(models.Model):
    """One mail the platform tried to send: queued by a service, sent by a worker."""

    class Kind(models.TextChoices):
        INVITATION = "invitation", "Invitation"
        PASSWORD_RESET = "password_reset", "Password reset"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        SENT = "sent", "Sent"
        FAILED = "failed", "Failed"

    to = models.EmailField()
    subject = models.CharField(max_length=200)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    error = models.TextField(blank=True)
    invitation = models.ForeignKey(
        Invitation, null=True, blank=True, on_delete=models.CASCADE, related_name="mails"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The account a password reset mail was for.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"{self.get_kind_display()} mail to {self.to} ({self.status})"
