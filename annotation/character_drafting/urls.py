"""Character drafting's pages, admin only, under /drafting/ in the ``drafting`` namespace
(heartbench_site/urls.py)."""

from django.urls import path

from annotation.character_drafting import views

app_name = "drafting"
urlpatterns = [
    path("", views.drafting_job_list, name="job-list"),
    path("new/", views.drafting_job_new, name="job-new"),
    path("jobs/<int:job_id>/", views.drafting_job_detail, name="job-detail"),
    path("jobs/<int:job_id>/retry/", views.drafting_job_retry, name="job-retry"),
    path("jobs/<int:job_id>/cancel/", views.drafting_job_cancel, name="job-cancel"),
    path("jobs/<int:job_id>/resume/", views.drafting_job_resume, name="job-resume"),
    path("jobs/<int:job_id>/drafts/<int:id>/", views.character_draft_detail, name="draft-detail"),
    path("redraft/", views.redraft_list, name="redraft-list"),
    path("redraft/<str:key>/", views.redraft_new, name="redraft-new"),
    path("prompts/", views.drafting_prompt_list, name="prompt-list"),
    path("prompts/new/", views.drafting_prompt_new, name="prompt-new"),
]
