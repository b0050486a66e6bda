from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from adjudication.consensus import urls as consensus_urls
from annotation.comparison import urls as comparison_urls
from annotation.corpus import urls as corpus_urls
from annotation.corpus_import import urls as corpus_import_urls
from annotation.generation import urls as generation_urls
from annotation.profile_review import urls as profile_review_urls
from annotation.scenario_review import urls as scenario_review_urls
from audit.hygiene import urls as hygiene_urls
from audit.memory_quality import urls as memory_quality_urls
from audit.reference_labels import views as label_audit_views
from core.team import urls as team_urls
from core.web import include_joined

from . import health, help, history_views, pipeline_views, token_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/token/", token_views.token_page, name="account-token"),
    path("accounts/", include(team_urls.account_urlpatterns)),
    path("team/", include("core.team.urls")),
    path(
        "corpus/",
        include_joined(
            "corpus",
            corpus_urls.urlpatterns,
            corpus_import_urls.urlpatterns,
            generation_urls.urlpatterns,
        ),
    ),
    path(
        "review/",
        include_joined("review", profile_review_urls.urlpatterns, scenario_review_urls.urlpatterns),
    ),
    path(
        "audit/",
        include_joined(
            "audit",
            memory_quality_urls.urlpatterns,
            hygiene_urls.urlpatterns,
            [path("labels/", include("audit.reference_labels.urls"))],
            [path("observers/", include("audit.observers.urls"))],
        ),
    ),
    path(
        "compare/",
        include_joined("comparison", comparison_urls.urlpatterns, consensus_urls.urlpatterns),
    ),
    path("memory-generation/", include("annotation.memory_generation.urls")),
    path("drafting/", include("annotation.character_drafting.urls")),
    path("arbitration/", include("adjudication.arbitration.urls")),
    path("screening/", include("annotation.candidate_screening.urls")),
    path("blinding/", include("annotation.blinding.urls")),
    path("baseline/", include("humanbaseline.urls")),
    path("evaluation/", include("evaluation.urls")),
    path("items/", include("adjudication.mcq.urls")),
    path("judging/", include("adjudication.judging.urls")),
    path("export/", include("adjudication.export.urls")),
    path("api/", views.api_index, name="api-index"),
    path("api/", include("heartbench_site.api_urls")),
    path("api/schema/", views.SchemaView.as_view(), name="api-schema"),
    path("api/docs/", views.SwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("history/", history_views.decision_history, name="decision-history"),
    path("conflicts/", label_audit_views.conflicts, name="conflicts"),
    path("pipeline/", pipeline_views.pipeline, name="pipeline"),
    # The guides (docs/, built by MkDocs); every page's Help link opens one (help.py).
    path("docs/", help.docs, name="docs-index"),
    path("docs/<path:path>", help.docs, name="docs"),
    path("admin/", admin.site.urls),
    # Browsers ask for /favicon.ico on their own; the icon is an SVG under static/.
    path("favicon.ico", views.favicon, name="favicon"),
    # The compose health check; no slash so the probe needs no redirect.
    path("healthz", health.healthz, name="healthz"),
]
