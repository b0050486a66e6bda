"""The append-only decision history (django-simple-history).

Every model that records a person's decision, or a state a decision moves, is
listed here; each save writes a historical row (who: the request's user, or none
for a worker; when; the whole row after the change). The historical tables live in this
app so one migration holds them, and nothing in the platform updates or deletes them:
admins browse them at /history/, and on PostgreSQL a trigger (migration
0003_history_append_only) refuses any UPDATE or DELETE of a historical row.

Writes made with ``QuerySet.update()`` or bulk COPY (the importer) bypass model saves
and so are not in this history; the workflows record those in their own event tables
(ReviewEvent, AuditEvent, LabelAuditEvent, AnswerEvent, item versions).
"""

# app_label.ModelName of every model whose saves are recorded; registered in
# HeartbenchSiteConfig.ready() (importing the apps' models from here would run before
# they are loaded: this app comes first in INSTALLED_APPS).
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

from heartbench_site.base.deviations import ProtocolDeviation  # noqa: E402, F401 (its table is this app's)
from heartbench_site.base.drafts import FormDraft  # noqa: E402, F401 (its table is this app's)
