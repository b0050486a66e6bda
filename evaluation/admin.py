"""Evaluation runs, predictions and stored retrieval sets in the Django admin,
read-only: runs are created and resumed on the evaluation pages."""

from django.contrib import admin

from core.admin import ReadOnlyAdmin

from . import models

for _model in (
    models.EvaluationRun,
    models.EvaluationPrediction,
    models.EvaluationCall,
    models.RetrievalSet,
    models.RetrievedMemory,
    models.MemoryEmbedding,
):
    admin.site.register(_model, ReadOnlyAdmin)
