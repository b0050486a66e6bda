from django.apps import AppConfig


class HumanbaselineConfig(AppConfig):
    name = "humanbaseline"
    verbose_name = "Matched-information human baseline"
