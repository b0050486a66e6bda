from django.apps import AppConfig


class TeamConfig(AppConfig):
    """The team page, invitations and the record of mail sent (its own migrations)."""

    name = "core.team"
    label = "team"
    verbose_name = "Team and mail"
