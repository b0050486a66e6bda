"""The reference-label audit's rows in the Django admin, read-only: written only through
its services, browsed here."""

from django.contrib import admin

from audit.reference_labels.models import (
    LabelAdjudication,
    LabelAudit,
    LabelAuditEvent,
    LabelAuditExpert,
    LabelAuditItem,
    LabelSelection,
)
from core.admin import ReadOnlyAdmin

for _model in (
    LabelAudit,
    LabelAuditExpert,
    LabelAuditItem,
    LabelSelection,
    LabelAdjudication,
    LabelAuditEvent,
):
    admin.site.register(_model, ReadOnlyAdmin)
