"""What the decision-history page needs to know about the registered models."""

from django.apps import apps

from heartbench_site.models import HISTORY_MODELS

HISTORY_TYPES = {"+": "created", "~": "changed", "-": "deleted"}


def history_models():
    return [apps.get_model(label) for label in HISTORY_MODELS]
