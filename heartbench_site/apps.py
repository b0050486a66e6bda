from django.apps import AppConfig


class HeartbenchSiteConfig(AppConfig):
    name = "heartbench_site"
    verbose_name = "heartbench"

    def ready(self):
        from simple_history import register

        from .models import HISTORY_MODELS

        for label in HISTORY_MODELS:
            model = self.apps.get_model(label)
            if not hasattr(model, "history"):
                register(model, app=self.label, table_name=f"history_{model._meta.db_table}")
