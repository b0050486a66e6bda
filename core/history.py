"""The append-only decision history (django-simple-history): its registry and what the
decision-history page needs to know about the registered models.

Every model that records a person's decision, or a state a decision moves, is listed in
``HISTORY_MODELS``; each save writes a historical row (who: the request's user, or none for
a worker; when; the whole row after the change). ``CoreConfig.ready()`` registers them,
each historical model in its own model's app (``annotation.HistoricalProfileVersion``),
so each app's migrations carry its historical tables (``history_<table>``; the tables were
first created under ``heartbench_site/migrations``, whose state moved to the apps without
touching a table). Nothing in the platform updates or deletes them: admins browse them at
/history/, and on PostgreSQL a trigger (heartbench_site migration 0003_history_append_only;
a migration adding a historical table installs it too, as 0006 does, and a test checks every
historical table has it) refuses any UPDATE or DELETE of a historical row.

Writes made with ``QuerySet.update()`` or bulk COPY (the importer) bypass model saves and
so are not in this history; the workflows record those in their own event tables
(ReviewEvent, AuditEvent, LabelAuditEvent, AnswerEvent, item versions).
"""

from django.apps import apps

# app_label.ModelName of every model whose saves are recorded.
HISTORY_MODELS = (
    "annotation.ProfileVersion",
    "annotation.ProfileReviewCase",
    "annotation.ProfileReview",
    "annotation.ChangeRequest",
    "annotation.ProfileEdit",
    "annotation.QuotaWeights",
    "annotation.MemoryPlan",
    "annotation.ScenarioReview",
    "annotation.ScreeningDecision",
    "annotation.DiamondsRating",
    "annotation.FinalDiamondsRating",
    "annotation.PairAssignment",
    "annotation.ComparisonJudgment",
    "adjudication.ArbitrationDecision",
    "adjudication.ReferenceResponse",
    "adjudication.AdjudicationSettings",
    "adjudication.McqItem",
    "adjudication.McqReviewDecision",
    "audit.AuditSettings",
    "audit.MemoryCase",
    "audit.MemoryFlag",
    "audit.LabelAudit",
    "audit.LabelAuditExpert",
    "audit.LabelSelection",
    "audit.LabelAdjudication",
    "humanbaseline.ItemSourceFamily",
    "humanbaseline.BaselineStudy",
    "humanbaseline.Participation",
    "humanbaseline.ItemResponse",
    "evaluation.EvaluationRun",
)

HISTORY_TYPES = {"+": "created", "~": "changed", "-": "deleted"}


def register_history(app_registry) -> None:
    """Register every model of ``HISTORY_MODELS`` with django-simple-history (once)."""
    from simple_history import register

    for label in HISTORY_MODELS:
        model = app_registry.get_model(label)
        if not hasattr(model, "history"):
            register(
                model,
                app=model._meta.app_label,
                table_name=f"history_{model._meta.db_table}",
            )


def history_models():
    return [apps.get_model(label) for label in HISTORY_MODELS]
