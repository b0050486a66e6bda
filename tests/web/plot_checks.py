"""Checks every statistics page's plots pass (issue 21), shared by the pages' tests."""

import re
from html import unescape

SLUG = re.compile(r"\b[a-z0-9]+(?:_[a-z0-9]+)+\b")
FAMILY_ORDER = ("Claude", "GPT", "Gemini")


def svgs(html: str) -> dict[str, str]:
    """Each inline plot of the page by its data-testid."""
    found = re.findall(r'(<svg [^>]*data-testid="([^"]+)"[^>]*>.*?</svg>)', html, re.S)
    return {testid: svg for svg, testid in found}


def texts(svg: str, kind: str = "") -> list[str]:
    pattern = (
        rf'<text [^>]*data-kind="{kind}"[^>]*>(.*?)</text>' if kind else r"<text[^>]*>(.*?)</text>"
    )
    return [unescape(t) for t in re.findall(pattern, svg, re.S)]


def assert_readable_plot(svg: str, *, legend: bool = False):
    """Accessible, with labelled axes and ticks, a legend where asked, no raw slug, no
    text under 12 px (issue 32: the page shows the SVG at its own size), and at least one
    mark: a plot without data is a sentence, not an empty axis."""
    assert 'role="img"' in svg and "aria-labelledby=" in svg and "<title" in svg
    sizes = [float(size) for size in re.findall(r'<text [^>]*font-size="([\d.]+)"', svg)]
    assert sizes and min(sizes) >= 12, f"text smaller than 12 px: {min(sizes or [0])}"
    assert 'data-kind="mark"' in svg, "an axis without marks"
    assert texts(svg, "axis-label"), "the plot has no axis label"
    if legend:
        assert texts(svg, "legend"), "the plot has no legend"
    for text in texts(svg):
        assert not SLUG.search(text), f"raw slug in a plot: {text!r}"
        assert not text.endswith("…"), f"truncated label: {text!r}"


def assert_family_order(labels: list[str]):
    """The families appear as Claude, GPT, Gemini (those present, in that order)."""
    seen = [f for label in labels for f in FAMILY_ORDER if label.startswith(f)]
    assert seen == [f for f in FAMILY_ORDER if f in seen], seen


def assert_downloads(client, plot):
    """The plot's SVG and PNG downloads answer with the right type and content."""
    svg = client.get(plot.svg_url)
    assert svg.status_code == 200 and svg["Content-Type"] == "image/svg+xml"
    assert svg["Content-Disposition"].endswith('.svg"')
    assert b"<svg" in svg.content and b"</svg>" in svg.content
    png = client.get(plot.png_url)
    assert png.status_code == 200 and png["Content-Type"] == "image/png"
    assert png.content.startswith(b"\x89PNG\r\n\x1a\n")
