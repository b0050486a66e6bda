"""The Django side of the plots: a plot as the page shows it (inline SVG with its SVG and
PNG download links) and as a download. Each statistics page names its plots with a
function ``name -> Scene`` that both its page view and its plot view call, so the
downloads are the plots of the page, computed the same way, behind the same permission.
A plot with nothing to draw (:func:`~core.plots.no_data`) is its sentence
on the page, and has no downloads.
"""

from dataclasses import dataclass

from django.http import Http404, HttpResponse
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from .plots import Scene, to_svg

FORMATS = {"svg": "image/svg+xml", "png": "image/png"}


@dataclass(frozen=True)
class PagePlot:
    """What a template needs: ``{% include "partials/plot.html" with plot=... %}``."""

    name: str
    svg: SafeString
    svg_url: str
    png_url: str
    title: str
    note: str = ""
    #: When there is nothing to plot: the sentence shown instead of the plot.
    empty: str = ""


def page_plot(
    scene: Scene,
    *,
    name: str,
    url_name: str,
    note: str = "",
    testid: str = "",
    query: str = "",
    **kwargs,
) -> PagePlot:
    """``scene`` inline, with the download URLs of ``url_name`` (a plot view whose
    pattern ends ``<slug:plot>.<slug:fmt>``; ``kwargs`` fill the rest) for ``name``.
    The SVG's ``data-testid`` is ``testid`` or ``plot-<name>``; ``query`` (a page's
    query string) is passed on to the downloads."""

    def url(fmt):
        url = reverse(url_name, kwargs={**kwargs, "plot": name, "fmt": fmt})
        return f"{url}?{query}" if query else url

    if scene.empty:
        return PagePlot(name, mark_safe(""), "", "", scene.title, note, empty=scene.empty)
    svg = mark_safe(to_svg(scene, element_id=f"plot-{name}", testid=testid))  # noqa: S308 (escaped in to_svg)
    return PagePlot(name, svg, url("svg"), url("png"), scene.title, note)


def plot_download(scene: Scene | None, *, filename: str, fmt: str) -> HttpResponse:
    """The plot as an SVG or PNG attachment; 404 for a plot the page does not show, or
    one with nothing to draw (the page says why)."""
    if scene is None or fmt not in FORMATS:
        raise Http404("No such plot on this page.")
    if scene.empty:
        raise Http404(scene.empty)
    svg = '<?xml version="1.0" encoding="UTF-8"?>\n' + to_svg(scene, element_id=filename)
    body = svg if fmt == "svg" else svg_to_png(svg)
    response = HttpResponse(body, content_type=FORMATS[fmt])
    response["Content-Disposition"] = f'attachment; filename="{filename}.{fmt}"'
    return response


def svg_to_png(svg: str) -> bytes:
    """The plot's SVG drawn by CairoSVG at twice its size (sharp on a slide or a page).
    CairoSVG needs the Cairo library (Debian: libcairo2)."""
    import cairosvg

    return cairosvg.svg2png(bytestring=svg.encode("utf-8"), scale=2)
