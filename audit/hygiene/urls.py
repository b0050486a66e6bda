"""Release hygiene (issue #37) under /audit/hygiene/, in the "audit" namespace (joined
by heartbench_site.urls with the memory audit's patterns)."""

from django.urls import path

from audit.hygiene import views

urlpatterns = [
    path("hygiene/", views.flag_list, name="hygiene-flags"),
    path("hygiene/flags/<int:flag_id>/", views.flag_detail, name="hygiene-flag"),
    path("hygiene/flags/<int:flag_id>/decide/", views.flag_decide, name="hygiene-flag-decide"),
    path("hygiene/screens/", views.run_list, name="hygiene-runs"),
    path("hygiene/screens/<int:run_id>/", views.run_detail, name="hygiene-run"),
    path("hygiene/screens/<int:run_id>/cancel/", views.run_cancel, name="hygiene-run-cancel"),
    path("hygiene/screens/<int:run_id>/retry/", views.run_retry, name="hygiene-run-retry"),
]
