"""MCQ item review, assembly runs and screening runs (seed 000 §2.4 Stage 3, App. D.3),
under /items/."""

from django.urls import path

from adjudication.mcq import screener_agreement_views
from adjudication.mcq import views as mcq_views

app_name = "mcq"
urlpatterns = [
    path("", mcq_views.item_queue, name="queue"),
    path("queue.csv", mcq_views.item_queue_csv, name="queue-csv"),
    path("<int:item_id>/", mcq_views.item_detail, name="item"),
    path("<int:item_id>/revise/draft/", mcq_views.item_revise_draft, name="revise-draft"),
    path("<int:item_id>/screen/", mcq_views.item_screen, name="screen"),
    path("assembly/", mcq_views.assembly_runs, name="runs"),
    path("assembly/<int:run_id>/", mcq_views.assembly_run, name="run"),
    path("screening/", mcq_views.screening_run_list, name="screening-runs"),
    path("screening/<int:run_id>/", mcq_views.screening_run, name="screening-run"),
    path(
        "screening/<int:run_id>/cancel/",
        mcq_views.screening_run_cancel,
        name="screening-run-cancel",
    ),
    path(
        "screening/<int:run_id>/resume/",
        mcq_views.screening_run_resume,
        name="screening-run-resume",
    ),
    path(
        "screening/<int:run_id>/retry/", mcq_views.screening_run_retry, name="screening-run-retry"
    ),
    path(
        "screening/agreement/",
        screener_agreement_views.screener_agreement_report,
        name="screener-agreement",
    ),
    path(
        "screening/recall-audit/",
        screener_agreement_views.recall_audit_draw,
        name="recall-audit",
    ),
]
