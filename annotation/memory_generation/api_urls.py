"""Memory generation endpoints, admin only: /api/memory-generation/."""

from annotation.memory_generation.api import plans, runs

app_name = "memory-generation-api"
urlpatterns = [*plans.urlpatterns, *runs.urlpatterns]
