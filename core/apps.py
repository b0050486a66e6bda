from django.apps import AppConfig


class CoreConfig(AppConfig):
    """The shared base: roles, web and API helpers, the decision history's registry,
    the display layer and its template tags, plots, protocol constants."""

    name = "core"
    verbose_name = "heartbench base"

    def ready(self):
        from core.history import register_history

        register_history(self.apps)
