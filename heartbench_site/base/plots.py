"""The platform's one way to draw a plot: server-side SVG with axes, ticks, axis labels,
a legend and readable intervals; the PNG download is the same SVG drawn by CairoSVG
(:mod:`heartbench_site.base.plot_views`).

Pure Python (no Django, no JavaScript, nothing from a CDN). Text stays ``<text>`` (screen
readers and tests read it) and is laid out with DejaVu Sans metrics, so a label is never
truncated: the label column grows to the longest label instead. Value labels sit beyond
the end of the bar *and* of its interval whisker, so they never collide with it; every
reference line has an entry in the legend. Names and numbers come formatted from the
callers, through :mod:`heartbench_site.base.display`.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html import escape

from . import plot_font

FONT_FAMILY = "'DejaVu Sans', Verdana, Arial, sans-serif"
INK, MUTED, GRID, AXIS = "#212529", "#495057", "#e9ecef", "#343a40"
#: Colour-blind-safe categorical colours (Okabe-Ito), in the order series get them.
PALETTE = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442")
#: Reference lines: colour and dash pattern, in the order they are given.
REFERENCE_STYLES = (("#d62728", "6 4"), ("#495057", "2 3"), ("#7b3294", "8 3 2 3"))
#: A sequential palette for ordered categories such as 1-7 ratings.
SEQUENTIAL = ("#f1eef6", "#d7b5d8", "#df65b0", "#dd1c77", "#c51b8a", "#980043", "#67001f")

FONT = plot_font.SIZE  # px
SMALL = 10  # px, tick labels


def count_ticks(value: float) -> str:
    """A tick label on an axis of counts."""
    return f"{value:,.0f}"


def percent_ticks(value: float) -> str:
    """A tick label on an axis of proportions, shown as percentages."""
    return f"{100 * value:.0f}%"


def text_width(text: str, size: float = FONT) -> float:
    """The advance width of ``text`` in DejaVu Sans at ``size`` px."""
    unit = size / plot_font.SIZE
    return unit * sum(plot_font.ADVANCES.get(ch, 0.62 * plot_font.SIZE) for ch in str(text))


# --- The scene: what SVG and PNG both draw ------------------------------------------------


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    width: float
    height: float
    fill: str
    title: str = ""
    stroke: str = ""


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    stroke: str = AXIS
    width: float = 1.0
    dash: str = ""
    title: str = ""


@dataclass(frozen=True)
class Text:
    x: float
    y: float  # baseline
    text: str
    anchor: str = "start"  # start | middle | end
    size: float = FONT
    fill: str = INK
    bold: bool = False
    rotate: bool = False  # reads bottom to top (a vertical axis label)
    kind: str = ""  # tick | axis-label | category | value | legend | note


@dataclass
class Scene:
    width: float
    height: float
    title: str  # what the plot shows, for screen readers
    items: list = field(default_factory=list)

    def texts(self, kind: str = "") -> list[str]:
        return [t.text for t in self.items if isinstance(t, Text) and (not kind or t.kind == kind)]


def _n(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def to_svg(scene: Scene, *, element_id: str = "plot", testid: str = "") -> str:
    """The scene as a standalone, accessible SVG document fragment; ``element_id`` must be
    unique in the page (its title's id derives from it)."""
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" '
        f'aria-labelledby="{escape(element_id)}-title" width="{_n(scene.width)}" '
        f'height="{_n(scene.height)}" viewBox="0 0 {_n(scene.width)} {_n(scene.height)}" '
        f'font-family="{FONT_FAMILY}" class="hb-plot mw-100 h-auto" '
        f'data-testid="{escape(testid or element_id)}">',
        f'<title id="{escape(element_id)}-title">{escape(scene.title)}</title>',
        f'<rect x="0" y="0" width="{_n(scene.width)}" height="{_n(scene.height)}" fill="#fff"/>',
    ]
    for item in scene.items:
        if isinstance(item, Rect):
            stroke = f' stroke="{item.stroke}"' if item.stroke else ""
            tip = f"<title>{escape(item.title)}</title>" if item.title else ""
            out.append(
                f'<rect x="{_n(item.x)}" y="{_n(item.y)}" width="{_n(item.width)}" '
                f'height="{_n(item.height)}" fill="{item.fill}"{stroke}>{tip}</rect>'
            )
        elif isinstance(item, Line):
            dash = f' stroke-dasharray="{item.dash}"' if item.dash else ""
            tip = f"<title>{escape(item.title)}</title>" if item.title else ""
            out.append(
                f'<line x1="{_n(item.x1)}" y1="{_n(item.y1)}" x2="{_n(item.x2)}" '
                f'y2="{_n(item.y2)}" stroke="{item.stroke}" stroke-width="{_n(item.width)}"'
                f"{dash}>{tip}</line>"
            )
        else:
            extra = ' font-weight="bold"' if item.bold else ""
            if item.rotate:
                extra += f' transform="rotate(-90 {_n(item.x)} {_n(item.y)})"'
            kind = f' data-kind="{item.kind}"' if item.kind else ""
            out.append(
                f'<text x="{_n(item.x)}" y="{_n(item.y)}" font-size="{_n(item.size)}" '
                f'fill="{item.fill}" text-anchor="{item.anchor}"{extra}{kind}>'
                f"{escape(item.text)}</text>"
            )
    out.append("</svg>")
    return "\n".join(out)


# --- Axes -----------------------------------------------------------------------------


def nice_ticks(low: float, high: float, target: int = 5, *, integer: bool = False) -> list[float]:
    """Round tick values covering [low, high] (1, 2, 2.5 or 5 times a power of ten);
    whole numbers only when ``integer`` (an axis of counts)."""
    if high <= low:
        high = low + 1
    raw = (high - low) / target
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    if integer:
        step = max(1, math.ceil(step))
    first = math.floor(low / step + 1e-9) * step
    ticks, value = [], first
    while value <= high + step * 1e-6:
        ticks.append(round(value, 10))
        value += step
    if ticks[-1] < high - step * 1e-6:
        ticks.append(round(value, 10))
    return ticks


@dataclass(frozen=True)
class Reference:
    """A vertical reference line (a chance level, a target), named in the legend."""

    value: float
    label: str


@dataclass(frozen=True)
class Bar:
    label: str
    value: float | None
    low: float | None = None  # interval ends, in the value's units
    high: float | None = None
    value_text: str = ""  # the formatted value written beyond the bar
    detail: str = ""  # a tooltip (e.g. "12/40 correct")
    colour: str = ""  # when bars differ by a category named in ``categories``


class _Legend:
    """Legend entries laid out left to right, wrapping at ``width``."""

    def __init__(self):
        self.entries: list[tuple[str, str, str]] = []  # (kind, colour/dash, label)

    def add(self, kind: str, style: str, label: str):
        self.entries.append((kind, style, label))

    def draw(self, scene: Scene, x0: float, y0: float, width: float) -> float:
        """Draw at (x0, y0); return the height used."""
        if not self.entries:
            return 0.0
        x, y, row = x0, y0, 18
        for kind, style, label in self.entries:
            w = 22 + text_width(label) + 16
            if x > x0 and x + w > x0 + width:
                x, y = x0, y + row
            mid = y + 9
            if kind == "swatch":
                scene.items.append(Rect(x, mid - 5, 14, 10, style, stroke="#adb5bd"))
            elif kind == "whisker":
                scene.items.append(Line(x, mid, x + 16, mid, AXIS, 1.5))
                scene.items.append(Line(x, mid - 4, x, mid + 4, AXIS, 1.5))
                scene.items.append(Line(x + 16, mid - 4, x + 16, mid + 4, AXIS, 1.5))
            else:
                colour, dash = style.split("|")
                scene.items.append(Line(x + 8, mid - 7, x + 8, mid + 7, colour, 2, dash))
            scene.items.append(Text(x + 22, mid + 4, label, kind="legend"))
            x += w
        return y + row - y0 + 6


def _x_axis(scene, *, left, right, top, bottom, lo, hi, ticks, tick_format, label):
    """Grid lines, the axis line, ticks with labels and the axis label under them."""
    span = (hi - lo) or 1.0

    def sx(v):
        return left + (right - left) * (v - lo) / span

    for t in ticks:
        x = sx(t)
        scene.items.append(Line(x, top, x, bottom, GRID, 1))
        scene.items.append(Line(x, bottom, x, bottom + 4, AXIS, 1))
        scene.items.append(
            Text(x, bottom + 16, tick_format(t), "middle", SMALL, MUTED, kind="tick")
        )
    scene.items.append(Line(left, bottom, right, bottom, AXIS, 1))
    scene.items.append(Line(left, top, left, bottom, AXIS, 1))
    scene.items.append(
        Text((left + right) / 2, bottom + 34, label, "middle", FONT, INK, True, kind="axis-label")
    )
    return sx


def hbar_chart(
    bars: Sequence[Bar],
    *,
    title: str,
    x_label: str,
    y_label: str,
    tick_format: Callable[[float], str],
    x_range: tuple[float, float] | None = None,
    references: Sequence[Reference] = (),
    series_label: str = "",
    interval_label: str = "95% CI",
    categories: Sequence[tuple[str, str]] = (),
    plot_width: float = 420,
    integer: bool = False,
) -> Scene:
    """One horizontal bar per row, optional interval whiskers, reference lines, an x axis
    with ticks and a label, the y axis named above its category labels, and a legend.
    ``categories`` (colour, label) names bar colours in the legend when they differ."""
    values = [v for b in bars for v in (b.value, b.high) if v is not None]
    values += [r.value for r in references]
    lo, hi = x_range or (0.0, max(values or [1.0]) or 1.0)
    ticks = nice_ticks(lo, hi, integer=integer)
    lo, hi = min(lo, ticks[0]), max(hi, ticks[-1])
    label_col = max([text_width(b.label) for b in bars] + [text_width(y_label, FONT)]) + 12
    value_col = max([text_width(b.value_text) for b in bars] + [0]) + 10
    left, right = 8 + label_col, 8 + label_col + plot_width
    width = right + value_col + 8

    legend = _Legend()
    if categories:
        for colour, label in categories:
            legend.add("swatch", colour, label)
    elif series_label:
        legend.add("swatch", PALETTE[0], series_label)
    if any(b.low is not None for b in bars):
        legend.add("whisker", "", interval_label)
    for i, ref in enumerate(references):
        colour, dash = REFERENCE_STYLES[i % len(REFERENCE_STYLES)]
        legend.add("line", f"{colour}|{dash}", ref.label)

    scene = Scene(width, 0, title)
    legend_h = legend.draw(scene, 8, 6, width - 16)
    header = 6 + legend_h + 16
    scene.items.append(Text(8, header - 4, y_label, bold=True, kind="axis-label"))
    row, bar_h = 24, 14
    top = header + 2
    bottom = top + row * max(len(bars), 1) + 4
    sx = _x_axis(
        scene, left=left, right=right, top=top, bottom=bottom, lo=lo, hi=hi,
        ticks=ticks, tick_format=tick_format, label=x_label,
    )  # fmt: skip
    for i, b in enumerate(bars):
        y = top + 4 + i * row
        mid = y + row / 2
        scene.items.append(Text(left - 8, mid + 4, b.label, "end", kind="category"))
        if b.value is None:
            scene.items.append(Text(left + 6, mid + 4, "no value", fill=MUTED, kind="value"))
            continue
        x0, x1 = sx(max(lo, 0.0)), sx(b.value)
        tip = f"{b.label}: {b.value_text}" + (f" ({b.detail})" if b.detail else "")
        colour = b.colour or PALETTE[0]
        scene.items.append(
            Rect(min(x0, x1), mid - bar_h / 2, abs(x1 - x0), bar_h, colour, title=tip)
        )
        end = max(x0, x1)
        if b.low is not None and b.high is not None:
            xl, xh = sx(b.low), sx(b.high)
            scene.items.append(Line(xl, mid, xh, mid, AXIS, 1.5))
            scene.items.append(Line(xl, mid - 5, xl, mid + 5, AXIS, 1.5))
            scene.items.append(Line(xh, mid - 5, xh, mid + 5, AXIS, 1.5))
            end = max(end, xh)
        scene.items.append(Text(end + 5, mid + 4, b.value_text, kind="value"))
    for i, ref in enumerate(references):
        colour, dash = REFERENCE_STYLES[i % len(REFERENCE_STYLES)]
        x = sx(ref.value)
        scene.items.append(Line(x, top, x, bottom, colour, 2, dash, title=ref.label))
    scene.height = bottom + 44
    return scene


def stacked_hbar_chart(
    rows: Sequence[tuple[str, Sequence[int]]],
    *,
    title: str,
    categories: Sequence[str],
    legend_title: str,
    x_label: str,
    y_label: str,
    total: int,
    colours: Sequence[str] = SEQUENTIAL,
    plot_width: float = 460,
) -> Scene:
    """One stacked horizontal bar per row: the counts of each category, left to right; a
    full bar is ``total``. Counts are written in segments wide enough to hold them."""
    label_col = max([text_width(label) for label, _ in rows] + [text_width(y_label)]) + 12
    left, right = 8 + label_col, 8 + label_col + plot_width
    width = right + 16
    legend = _Legend()
    for name, colour in zip(categories, colours, strict=False):
        legend.add("swatch", colour, name)
    scene = Scene(width, 0, title)
    scene.items.append(Text(8, 18, legend_title, bold=True, kind="legend"))
    legend_h = legend.draw(scene, 16 + text_width(legend_title), 5, width - 24)
    header = 6 + legend_h + 16
    scene.items.append(Text(8, header - 4, y_label, bold=True, kind="axis-label"))
    row, bar_h = 26, 18
    top = header + 2
    bottom = top + row * max(len(rows), 1) + 4
    ticks = nice_ticks(0, total or 1, integer=True)
    hi = ticks[-1]
    sx = _x_axis(
        scene, left=left, right=right, top=top, bottom=bottom, lo=0, hi=hi,
        ticks=ticks, tick_format=count_ticks, label=x_label,
    )  # fmt: skip
    for i, (label, counts) in enumerate(rows):
        y = top + 4 + i * row
        mid = y + row / 2
        scene.items.append(Text(left - 8, mid + 4, label, "end", kind="category"))
        x = 0.0
        for j, count in enumerate(counts):
            if not count:
                continue
            x0, x1 = sx(x), sx(x + count)
            colour = colours[j % len(colours)]
            name = categories[j] if j < len(categories) else str(j + 1)
            scene.items.append(
                Rect(x0, mid - bar_h / 2, x1 - x0, bar_h, colour, f"{label}: {count} rated {name}")
            )
            text = f"{count:,}"
            if x1 - x0 >= text_width(text, SMALL) + 4:
                fill = "#fff" if j >= len(colours) // 2 else INK
                scene.items.append(
                    Text((x0 + x1) / 2, mid + 4, text, "middle", SMALL, fill, kind="value")
                )
            x += count
    scene.height = bottom + 44
    return scene


def heatmap_chart(
    labels: Sequence[str],
    cells: Sequence[Sequence[float | None]],
    *,
    title: str,
    value_format: Callable[[float], str],
    axis_label: str,
    legend_label: str,
    colour: str = "#009e73",
    cell: float = 44,
) -> Scene:
    """A square matrix (row i, column j), each cell's value written in it and its shade
    proportional to the value in [0, 1]; column labels read bottom to top."""
    label_col = max([text_width(label) for label in labels] + [0]) + 12
    col_head = label_col
    scene = Scene(0, 0, title)
    legend = _Legend()
    legend.add("swatch", colour, legend_label)
    legend_h = legend.draw(scene, 8, 6, 400)
    top = 6 + legend_h + col_head + 8
    left = 8 + label_col
    n = len(labels)
    for j, label in enumerate(labels):
        x = left + j * cell + cell / 2 + 4
        scene.items.append(Text(x, top - 6, label, rotate=True, kind="category"))
    for i, label in enumerate(labels):
        y = top + i * cell
        scene.items.append(Text(left - 8, y + cell / 2 + 4, label, "end", kind="category"))
        for j in range(n):
            value = cells[i][j]
            x = left + j * cell
            if value is None:
                scene.items.append(Rect(x, y, cell, cell, "#f8f9fa", "no common items", "#fff"))
                continue
            shade = _mix("#ffffff", colour, max(0.0, min(1.0, value)))
            tip = f"{labels[i]} vs {labels[j]}: {value_format(value)}"
            scene.items.append(Rect(x, y, cell, cell, shade, tip, "#fff"))
            fill = "#fff" if value > 0.6 else INK
            scene.items.append(
                Text(x + cell / 2, y + cell / 2 + 4, value_format(value), "middle", SMALL, fill,
                     kind="value")
            )  # fmt: skip
    bottom = top + n * cell
    scene.items.append(
        Text(left + n * cell / 2, bottom + 20, axis_label, "middle", bold=True, kind="axis-label")
    )
    scene.width = max(left + n * cell + 16, 8 + text_width(legend_label) + 60)
    scene.height = bottom + 30
    return scene


def _mix(a: str, b: str, t: float) -> str:
    ca = [int(a[k : k + 2], 16) for k in (1, 3, 5)]
    cb = [int(b[k : k + 2], 16) for k in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(ca, cb, strict=True))
