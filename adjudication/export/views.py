"""The admins' export page and its zip download. Thin: read the counts or build the
bundle (adjudication.export.services), render or send it."""

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from adjudication.export import selectors as export_selectors
from adjudication.export import services as export
from heartbench_site.base.roles import Role, role_required

admin_required = role_required(Role.ADMIN)
ZIP_NAME = "heartbench-final-set.zip"


@admin_required
@require_GET
def export_home(request):
    return render(
        request,
        "adjudication/export/home.html",
        {"summary": export_selectors.export_summary(), "layout": export_selectors.EXPORT_LAYOUT},
    )


@admin_required
@require_GET
def export_download(request):
    bundle = export.build_export()
    response = HttpResponse(bundle.zip_bytes(), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{ZIP_NAME}"'
    return response
