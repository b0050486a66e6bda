"""Registers each workflow package's Django admin pages (Django autodiscovers this module)."""

from audit.hygiene import admin as hygiene_admin  # noqa: F401
from audit.memory_quality import admin as memory_quality_admin  # noqa: F401
from audit.observers import admin as observers_admin  # noqa: F401
from audit.reference_labels import admin as reference_labels_admin  # noqa: F401
