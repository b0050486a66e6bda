"""The baseline's rows in the Django admin, read-only: studies, selections, consent and
answers change only through the baseline pages and their services."""

from django.contrib import admin

from core.admin import ReadOnlyAdmin

from . import models

for _model in (
    models.ItemSourceFamily,
    models.SubsetSelection,
    models.SelectionItem,
    models.BaselineStudy,
    models.StudyItem,
    models.Participation,
    models.ItemResponse,
    models.AnswerEvent,
    models.TimeReport,
    models.PracticeAnswer,
    models.WorkSession,
    models.ImportedPrediction,
    models.BaselineReport,
    models.BestModelChoice,
    models.ParticipantErasure,
):
    admin.site.register(_model, ReadOnlyAdmin)
