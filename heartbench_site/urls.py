from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from . import health, history_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("corpus/", include("annotation.corpus.urls")),
    path("review/", include("annotation.profile_review.urls")),
    path("audit/", include("audit.memory_quality.urls")),
    path("compare/", include("annotation.comparison.urls")),
    path("arbitration/", include("adjudication.arbitration.urls")),
    path("baseline/", include("humanbaseline.urls")),
    path("evaluation/", include("evaluation.urls")),
    path("items/", include("adjudication.mcq.urls")),
    path("export/", include("adjudication.export.urls")),
    path("api/", include("heartbench_site.api_urls")),
    path("api/schema/", views.SchemaView.as_view(), name="api-schema"),
    path("api/docs/", views.SwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("history/", history_views.decision_history, name="decision-history"),
    path("admin/", admin.site.urls),
    # The compose health check; no slash so the probe needs no redirect.
    path("healthz", health.healthz, name="healthz"),
]
