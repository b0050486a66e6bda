"""The pipeline page: the benchmark as seed 000's Figure 2, for admins only."""

from django.shortcuts import render

from core.roles import Role, role_required
from heartbench_site.pipeline import pipeline_overview


@role_required(Role.ADMIN)
def pipeline(request):
    return render(request, "pipeline.html", {"pipeline": pipeline_overview()})
