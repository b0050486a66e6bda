"""The platform's one way to draw a plot: server-side SVG with axes, ticks, axis labels,
a legend and readable intervals; the PNG download is the same SVG drawn by CairoSVG
(:mod:`core.plot_views`).

Pure Python (no Django, no JavaScript, nothing from a CDN). Text stays ``<text>`` (screen
readers and tests read it) and is laid out with DejaVu Sans metrics, so a label is never
truncated: the label column grows to the longest label instead. Value labels sit beyond
the end of the bar *and* of its interval whisker, so they never collide with it; every
reference line has an entry in the legend. Names and numbers come formatted from the
callers, through :mod:`core.display`.

Readable where it is shown: no text is smaller than :data:`MIN_FONT` px, and the page shows
the SVG at its own size (never scaled down; a plot wider than the column scrolls inside
its figure), so 12 px in the drawing is 12 px on the screen. A plot with nothing to draw
is a :func:`no_data` scene: the page shows its sentence instead of an empty axis.

Colours are colour-blind safe (tests/site/test_plot_palette.py measures them under
simulated protanopia, deuteranopia and tritanopia): :data:`PALETTE` for categories,
:data:`SEQUENTIAL` for ordered categories and shades; numbers written on a colour are white
or black, whichever contrasts more (:func:`text_on`).
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html import escape

from . import plot_font

FONT_FAMILY = "'DejaVu Sans', Verdana, Arial, sans-serif"
INK, MUTED, GRID, AXIS = "#212529", "#495057", "#e9ecef", "#343a40"
WHITE, BLACK = "#ffffff", "#000000"
#: Categorical colours (Okabe and Ito, "Color Universal Design", 2008), in the order
#: series get them: blue, orange, bluish green, reddish purple, sky blue, vermilion. Their
#: yellow is left out: seen with tritanopia it comes too close to the page's white.
PALETTE = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00")
#: Ordered categories such as the 1-7 DIAMONDS ratings, dark to light: seven samples of
#: viridis (van der Walt and Smith, matplotlib; entries 0, 40, 79, 109, 141, 183 and 215
#: of its 256), stopping short of its light yellow (which tritanopia sees near-white) and
#: spaced so that neighbours stay apart under every simulated colour-vision deficiency.
SEQUENTIAL = ("#440154", "#453781", "#33628d", "#277f8e", "#1e9d89", "#4cc26c", "#95d840")
#: Reference lines: colour and dash pattern, in the order they are given; dark, so they
#: show over any bar colour, and told apart by their dashes.
REFERENCE_STYLES = (("#000000", "6 4"), ("#6c757d", "2 3"), ("#000000", "8 3 2 3"))
#: A bar whose value is zero is still marked: a sliver this wide, in the bar's colour.
ZERO_MARK = 3.0

#: The smallest text any plot draws, in px (ticks, numbers inside bars and cells).
MIN_FONT = 12
FONT = 13  # px: category labels, axis labels, legends, values
SMALL = MIN_FONT  # px: tick labels and numbers written inside marks


def count_ticks(value: float) -> str:
    """A tick label on an axis of counts."""
    return f"{value:,.0f}"


def percent_ticks(value: float) -> str:
    """A tick label on an axis of proportions, shown as percentages."""
    return f"{100 * value:.0f}%"


def text_width(text: str, size: float = FONT, *, bold: bool = False) -> float:
    """The advance width of ``text`` in DejaVu Sans (bold when ``bold``) at ``size`` px."""
    advances = plot_font.BOLD_ADVANCES if bold else plot_font.ADVANCES
    fallback = 0.7 * plot_font.SIZE
    return size / plot_font.SIZE * sum(advances.get(ch, fallback) for ch in str(text))


def luminance(colour: str) -> float:
    """WCAG 2 relative luminance of a ``#rrggbb`` colour."""
    channels = [int(colour[k : k + 2], 16) / 255 for k in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two colours (1 to 21)."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def text_on(fill: str) -> str:
    """White or black, whichever reads better on ``fill``: at least 4.58:1 on any colour
    (WCAG AA asks 4.5:1 of text this small)."""
    return WHITE if contrast(WHITE, fill) > contrast(BLACK, fill) else BLACK


def sequential_colour(t: float) -> str:
    """A shade of :data:`SEQUENTIAL` for ``t`` in [0, 1] (0: the darkest)."""
    t = max(0.0, min(1.0, t)) * (len(SEQUENTIAL) - 1)
    i = min(int(t), len(SEQUENTIAL) - 2)
    return _mix(SEQUENTIAL[i], SEQUENTIAL[i + 1], t - i)


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
    mark: bool = False  # draws a value (a bar, a segment, a cell), not a legend swatch


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
    kind: str = ""  # tick | axis-label | category | group | value | legend | note


@dataclass
class Scene:
    width: float
    height: float
    title: str  # what the plot shows, for screen readers
    items: list = field(default_factory=list)
    #: Set when there is nothing to plot: the sentence the page shows instead.
    empty: str = ""

    def texts(self, kind: str = "") -> list[str]:
        return [t.text for t in self.items if isinstance(t, Text) and (not kind or t.kind == kind)]

    def marks(self) -> list[Rect]:
        return [r for r in self.items if isinstance(r, Rect) and r.mark]


def no_data(title: str, sentence: str) -> Scene:
    """A plot with nothing to draw: the page shows ``sentence`` (say what is missing and
    why, e.g. "No pair has been decided yet, so there is nothing to plot.") instead of an
    axis without marks; its downloads answer 404."""
    return Scene(0, 0, title, empty=sentence)


def _n(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def to_svg(scene: Scene, *, element_id: str = "plot", testid: str = "") -> str:
    """The scene as a standalone, accessible SVG document fragment; ``element_id`` must be
    unique in the page (its title's id derives from it). The SVG keeps its own size: text
    drawn at 12 px is shown at 12 px."""
    if scene.empty:
        raise ValueError(f"Nothing to draw: {scene.empty}")
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" '
        f'aria-labelledby="{escape(element_id)}-title" width="{_n(scene.width)}" '
        f'height="{_n(scene.height)}" viewBox="0 0 {_n(scene.width)} {_n(scene.height)}" '
        f'font-family="{FONT_FAMILY}" class="hb-plot" '
        f'data-testid="{escape(testid or element_id)}">',
        f'<title id="{escape(element_id)}-title">{escape(scene.title)}</title>',
        f'<rect x="0" y="0" width="{_n(scene.width)}" height="{_n(scene.height)}" fill="#fff"/>',
    ]
    for item in scene.items:
        if isinstance(item, Rect):
            stroke = f' stroke="{item.stroke}"' if item.stroke else ""
            mark = ' data-kind="mark"' if item.mark else ""
            tip = f"<title>{escape(item.title)}</title>" if item.title else ""
            out.append(
                f'<rect x="{_n(item.x)}" y="{_n(item.y)}" width="{_n(item.width)}" '
                f'height="{_n(item.height)}" fill="{item.fill}"{stroke}{mark}>{tip}</rect>'
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
    #: Consecutive bars with the same group are drawn together under one group label,
    #: written once (e.g. the annotator slot a judge takes, with one bar per measure).
    group: str = ""


#: What an hbar chart says when none of its bars has a value; callers say better.
NO_VALUES = "No value is defined yet, so there is nothing to plot."

ROW, BAR_H = 26, 16  # px: one bar's row and the bar's thickness
LEGEND_ROW = 20  # px


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
        x, y = x0, y0
        for kind, style, label in self.entries:
            w = 22 + text_width(label) + 18
            if x > x0 and x + w > x0 + width:
                x, y = x0, y + LEGEND_ROW
            mid = y + LEGEND_ROW / 2
            if kind == "swatch":
                scene.items.append(Rect(x, mid - 6, 16, 12, style, stroke="#6c757d"))
            elif kind == "whisker":
                scene.items.append(Line(x, mid, x + 16, mid, AXIS, 1.5))
                scene.items.append(Line(x, mid - 4, x, mid + 4, AXIS, 1.5))
                scene.items.append(Line(x + 16, mid - 4, x + 16, mid + 4, AXIS, 1.5))
            else:
                colour, dash = style.split("|")
                scene.items.append(Line(x + 8, mid - 8, x + 8, mid + 8, colour, 2, dash))
            scene.items.append(Text(x + 22, mid + 4.5, label, kind="legend"))
            x += w
        return y + LEGEND_ROW - y0 + 6


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
            Text(x, bottom + 18, tick_format(t), "middle", SMALL, MUTED, kind="tick")
        )
    scene.items.append(Line(left, bottom, right, bottom, AXIS, 1))
    scene.items.append(Line(left, top, left, bottom, AXIS, 1))
    scene.items.append(
        Text((left + right) / 2, bottom + 38, label, "middle", FONT, INK, True, kind="axis-label")
    )
    return sx


def _axis_overhang(ticks, tick_format, label, plot_width) -> float:
    """How far the last tick label and the x axis label reach past the plot's right end."""
    last = text_width(tick_format(ticks[-1]), SMALL) / 2
    return max(last, (text_width(label, bold=True) - plot_width) / 2, 0.0)


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
    plot_width: float = 480,
    integer: bool = False,
    empty_text: str = NO_VALUES,
) -> Scene:
    """One horizontal bar per row, optional interval whiskers, reference lines, an x axis
    with ticks and a label, the y axis named above its category labels, and a legend.
    ``categories`` (colour, label) names bar colours in the legend when they differ.
    Bars with a ``group`` are drawn in blocks with the group's label written once. A bar
    of zero is marked with a sliver and its value; a bar without a value says so (its
    ``value_text``, else "no value"). With no value at all the scene is :func:`no_data`
    with ``empty_text``."""
    if not any(b.value is not None for b in bars):
        return no_data(title, empty_text)
    values = [v for b in bars for v in (b.value, b.high) if v is not None]
    values += [r.value for r in references]
    lo, hi = x_range or (0.0, max(values or [1.0]) or 1.0)
    ticks = nice_ticks(lo, hi, integer=integer)
    lo, hi = min(lo, ticks[0]), max(hi, ticks[-1])
    grouped = any(b.group for b in bars)
    group_col = max([text_width(b.group) for b in bars] + [0]) + 16 if grouped else 0
    label_col = max(
        group_col + max(text_width(b.label) for b in bars),
        text_width(y_label, bold=True),
    )
    label_col += 12
    value_col = max(
        [text_width(b.value_text or (tick_format(b.value) if b.value is not None else ""))
         for b in bars] + [text_width("no value")]
    )  # fmt: skip
    value_col = max(value_col + 10, _axis_overhang(ticks, tick_format, x_label, plot_width))
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
    header = 6 + legend_h + 18
    scene.items.append(Text(8, header - 5, y_label, bold=True, kind="axis-label"))
    top = header + 2
    # Each bar's row, with a gap before each new group.
    rows, y, previous = [], top + 4, None
    for i, b in enumerate(bars):
        if grouped and i and b.group != previous:
            y += 10
        rows.append(y)
        y += ROW
        previous = b.group
    bottom = y + 4
    sx = _x_axis(
        scene, left=left, right=right, top=top, bottom=bottom, lo=lo, hi=hi,
        ticks=ticks, tick_format=tick_format, label=x_label,
    )  # fmt: skip
    if grouped:
        _group_labels(scene, bars, rows, left=left, right=right)
    for b, y in zip(bars, rows, strict=True):
        mid = y + ROW / 2
        scene.items.append(Text(left - 8, mid + 4.5, b.label, "end", kind="category"))
        if b.value is None:
            text = b.value_text or "no value"
            scene.items.append(Text(left + 6, mid + 4.5, text, fill=MUTED, kind="value"))
            continue
        x0, x1 = sx(max(lo, 0.0)), sx(b.value)
        name = f"{b.group} · {b.label}" if b.group else b.label
        value_text = b.value_text or tick_format(b.value)
        tip = f"{name}: {value_text}" + (f" ({b.detail})" if b.detail else "")
        colour = b.colour or PALETTE[0]
        if abs(x1 - x0) < ZERO_MARK:  # zero, or nearly: a sliver, outlined, still shows
            x = x0 if x1 >= x0 else x0 - ZERO_MARK
            bar = Rect(x, mid - BAR_H / 2, ZERO_MARK, BAR_H, colour, tip, AXIS, mark=True)
        else:
            bar = Rect(min(x0, x1), mid - BAR_H / 2, abs(x1 - x0), BAR_H, colour, tip, mark=True)
        scene.items.append(bar)
        end = max(x0, x1, bar.x + bar.width)
        if b.low is not None and b.high is not None:
            xl, xh = sx(b.low), sx(b.high)
            scene.items.append(Line(xl, mid, xh, mid, AXIS, 1.5))
            scene.items.append(Line(xl, mid - 5, xl, mid + 5, AXIS, 1.5))
            scene.items.append(Line(xh, mid - 5, xh, mid + 5, AXIS, 1.5))
            end = max(end, xh)
        scene.items.append(Text(end + 6, mid + 4.5, value_text, kind="value"))
    for i, ref in enumerate(references):
        colour, dash = REFERENCE_STYLES[i % len(REFERENCE_STYLES)]
        x = sx(ref.value)
        scene.items.append(Line(x, top, x, bottom, colour, 2, dash, title=ref.label))
    scene.height = bottom + 48
    return scene


def _group_labels(scene, bars, rows, *, left, right):
    """Each group's label once, beside its first bar, and a rule between groups."""
    for i, (b, y) in enumerate(zip(bars, rows, strict=True)):
        if i and b.group == bars[i - 1].group:
            continue
        if i:
            scene.items.append(Line(8, y - 5, right, y - 5, GRID, 1))
        scene.items.append(Text(8, y + ROW / 2 + 4.5, b.group, bold=False, kind="group"))


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
    plot_width: float = 520,
    empty_text: str = NO_VALUES,
) -> Scene:
    """One stacked horizontal bar per row: the counts of each category, left to right; a
    full bar is ``total``. Counts are written in segments wide enough to hold them, in
    white or ink, whichever reads better on the segment."""
    if not total or not any(any(counts) for _, counts in rows):
        return no_data(title, empty_text)
    label_col = max(
        [text_width(label) for label, _ in rows] + [text_width(y_label, bold=True)]
    ) + 12  # fmt: skip
    ticks = nice_ticks(0, total, integer=True)
    hi = ticks[-1]
    left, right = 8 + label_col, 8 + label_col + plot_width
    width = right + max(16, _axis_overhang(ticks, count_ticks, x_label, plot_width) + 8)
    legend = _Legend()
    for name, colour in zip(categories, colours, strict=False):
        legend.add("swatch", colour, name)
    scene = Scene(width, 0, title)
    scene.items.append(Text(8, 6 + LEGEND_ROW / 2 + 4.5, legend_title, bold=True, kind="legend"))
    x_legend = 20 + text_width(legend_title, bold=True)
    legend_h = legend.draw(scene, x_legend, 6, width - x_legend - 8)
    header = 6 + legend_h + 18
    scene.items.append(Text(8, header - 5, y_label, bold=True, kind="axis-label"))
    row, bar_h = 28, 20
    top = header + 2
    bottom = top + row * len(rows) + 8
    sx = _x_axis(
        scene, left=left, right=right, top=top, bottom=bottom, lo=0, hi=hi,
        ticks=ticks, tick_format=count_ticks, label=x_label,
    )  # fmt: skip
    for i, (label, counts) in enumerate(rows):
        y = top + 4 + i * row
        mid = y + row / 2
        scene.items.append(Text(left - 8, mid + 4.5, label, "end", kind="category"))
        x = 0.0
        for j, count in enumerate(counts):
            if not count:
                continue
            x0, x1 = sx(x), sx(x + count)
            colour = colours[j % len(colours)]
            name = categories[j] if j < len(categories) else str(j + 1)
            scene.items.append(
                Rect(x0, mid - bar_h / 2, x1 - x0, bar_h, colour,
                     f"{label}: {count:,} rated {name}", WHITE, mark=True)
            )  # fmt: skip
            text = f"{count:,}"
            if x1 - x0 >= text_width(text, SMALL) + 6:
                scene.items.append(
                    Text((x0 + x1) / 2, mid + 4.5, text, "middle", SMALL, text_on(colour),
                         kind="value")
                )  # fmt: skip
            x += count
    scene.height = bottom + 48
    return scene


def heatmap_chart(
    labels: Sequence[str],
    cells: Sequence[Sequence[float | None]],
    *,
    title: str,
    value_format: Callable[[float], str],
    axis_label: str,
    legend_label: str,
    empty_text: str = NO_VALUES,
) -> Scene:
    """A square matrix (row i, column j), each cell's value written in it and shaded on
    :data:`SEQUENTIAL` by its value in [0, 1], darker for higher; column labels read
    bottom to top. A cell without a value is grey with a dash."""
    n = len(labels)
    if not n or all(v is None for row in cells for v in row):
        return no_data(title, empty_text)
    texts = [value_format(v) for row in cells for v in row if v is not None]
    cell = max([text_width(t, SMALL) for t in texts] + [text_width(value_format(1.0), SMALL)])
    cell = max(44.0, cell + 12)
    label_col = max(text_width(label) for label in labels) + 12
    scene = Scene(0, 0, title)
    # The colour scale: five swatches from 0 to 1, after its name.
    scene.items.append(Text(8, 6 + LEGEND_ROW / 2 + 4.5, legend_label, bold=True, kind="legend"))
    x_legend = 20 + text_width(legend_label, bold=True)
    legend = _Legend()
    for t in (0.0, 0.25, 0.5, 0.75, 1.0):
        legend.add("swatch", sequential_colour(1 - t), value_format(t))
    legend_width = sum(22 + text_width(label) + 18 for _, _, label in legend.entries)
    legend_h = legend.draw(scene, x_legend, 6, max(legend_width, 8 + label_col + n * cell))
    top = 6 + legend_h + label_col + 8
    left = 8 + label_col
    for j, label in enumerate(labels):
        x = left + j * cell + cell / 2 + 4.5
        scene.items.append(Text(x, top - 6, label, rotate=True, kind="category"))
    for i, label in enumerate(labels):
        y = top + i * cell
        scene.items.append(Text(left - 8, y + cell / 2 + 4.5, label, "end", kind="category"))
        for j in range(n):
            value = cells[i][j]
            x = left + j * cell
            if value is None:
                scene.items.append(Rect(x, y, cell, cell, "#e9ecef", "no common items", WHITE))
                scene.items.append(
                    Text(x + cell / 2, y + cell / 2 + 4.5, "—", "middle", SMALL, MUTED,
                         kind="value")
                )  # fmt: skip
                continue
            shade = sequential_colour(1 - max(0.0, min(1.0, value)))
            tip = f"{labels[i]} vs {labels[j]}: {value_format(value)}"
            scene.items.append(Rect(x, y, cell, cell, shade, tip, WHITE, mark=True))
            scene.items.append(
                Text(x + cell / 2, y + cell / 2 + 4.5, value_format(value), "middle", SMALL,
                     text_on(shade), kind="value")
            )  # fmt: skip
    bottom = top + n * cell
    axis_w = text_width(axis_label, bold=True)
    centre = max(left + n * cell / 2, 8 + axis_w / 2)
    scene.items.append(
        Text(centre, bottom + 24, axis_label, "middle", bold=True, kind="axis-label")
    )
    scene.width = max(left + n * cell + 16, x_legend + legend_width + 8, centre + axis_w / 2 + 8)
    scene.height = bottom + 36
    return scene


def _mix(a: str, b: str, t: float) -> str:
    ca = [int(a[k : k + 2], 16) for k in (1, 3, 5)]
    cb = [int(b[k : k + 2], 16) for k in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(ca, cb, strict=True))
