"""Geometry of the coverage plots, drawn as inline SVG by the templates. Pure Python:
no Django, no JavaScript; the numbers are also in the tables next to each plot."""

from dataclasses import dataclass

from heartbench_site.base.wording import counted

# A sequential palette for the 1-7 ratings (light = not present, dark = strongly present).
RATING_COLOURS = ("#f1eef6", "#d7b5d8", "#df65b0", "#dd1c77", "#c51b8a", "#980043", "#67001f")
RATING_TEXT = ("#000", "#000", "#000", "#fff", "#fff", "#fff", "#fff")


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    width: float
    height: float
    fill: str
    label: str
    title: str
    text_fill: str = "#000"


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    rects: list[Rect]
    row_labels: list[tuple[float, str]]
    guides: list[tuple[float, float, float, float, str]]


def stacked_rows(
    rows: list[tuple[str, list[int]]],
    *,
    total: int,
    label_width: int = 100,
    bar_width: int = 520,
    row_height: int = 22,
    gap: int = 6,
) -> Chart:
    """One stacked horizontal bar per row; each bar's segments are the counts of ratings
    1..7, scaled so a full bar is ``total``."""
    rects, labels = [], []
    for i, (label, counts) in enumerate(rows):
        y = i * (row_height + gap)
        labels.append((y + row_height * 0.7, label))
        x = float(label_width)
        for rating, count in enumerate(counts, start=1):
            if not count or not total:
                continue
            width = bar_width * count / total
            rects.append(
                Rect(
                    x=round(x, 2),
                    y=y,
                    width=round(width, 2),
                    height=row_height,
                    fill=RATING_COLOURS[rating - 1],
                    label=str(count) if width >= 14 else "",
                    title=f"{label}: {count} rated {rating}",
                    text_fill=RATING_TEXT[rating - 1],
                )
            )
            x += width
    height = max(len(rows) * (row_height + gap), row_height)
    return Chart(label_width + bar_width + 10, height, rects, labels, [])


def bars(
    rows: list[tuple[str, int]],
    *,
    target: int,
    label_width: int = 190,
    bar_width: int = 430,
    row_height: int = 20,
    gap: int = 6,
) -> Chart:
    """One horizontal bar per row with a guide line at ``target``."""
    top = max([target, *[count for _, count in rows]] or [1]) or 1
    rects, labels = [], []
    for i, (label, count) in enumerate(rows):
        y = i * (row_height + gap)
        labels.append((y + row_height * 0.7, label))
        width = bar_width * count / top
        rects.append(
            Rect(
                x=label_width,
                y=y,
                width=round(width, 2),
                height=row_height,
                fill="#6c8ebf" if count == target else "#d6a04a",
                label=str(count),
                title=f"{label}: {counted(count, 'scenario')}, target {target}",
                text_fill="#000",
            )
        )
    height = max(len(rows) * (row_height + gap), row_height)
    x = label_width + bar_width * target / top
    guides = [(round(x, 2), 0.0, round(x, 2), float(height), f"target {target}")]
    return Chart(label_width + bar_width + 40, height, rects, labels, guides)
