"""Registers each workflow package's Django admin pages (Django autodiscovers this module)."""

from adjudication.arbitration import admin as arbitration_admin  # noqa: F401
from adjudication.export import admin as export_admin  # noqa: F401
from adjudication.judging import admin as judging_admin  # noqa: F401
from adjudication.mcq import admin as mcq_admin  # noqa: F401
