"""Registers each workflow package's Django admin pages (Django autodiscovers this module)."""

from audit.memory_quality import admin as memory_quality_admin  # noqa: F401
