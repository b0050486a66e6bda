"""The memory generation pages, under /memory-generation/ (heartbench_site/urls.py)."""

from annotation.memory_generation.views import plans, prompts, runs

app_name = "memory_generation"
urlpatterns = [*plans.urlpatterns, *runs.urlpatterns, *prompts.urlpatterns]
