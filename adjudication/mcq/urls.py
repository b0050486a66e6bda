"""MCQ item review and assembly runs (seed 000 §2.4 Stage 3, App. D.3), under /items/."""

from django.urls import path

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
]
