from django.apps import AppConfig


class HeartbenchSiteConfig(AppConfig):
    name = "heartbench_site"
    verbose_name = "heartbench"
