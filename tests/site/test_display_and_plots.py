"""The shared display layer and plotting module (issue 21): labels, family order, number
formats, the small-n note, and plots with axes, legends and untruncated text."""

import re

import pytest
from django.http import Http404

from core import display, plots
from core.plot_views import plot_download, svg_to_png


def test_slugs_become_human_labels():
    assert display.human_label("age_30_transition") == "Age 30 transition"
    assert display.human_label("naive_rag") == "Naive RAG"
    assert display.human_label("gpt") == "GPT"
    assert display.human_label("Already a label") == "Already a label"
    assert display.human_label(None) == ""


def test_families_have_one_casing_and_one_order():
    assert [display.family_label(f) for f in ("GEMINI", "claude", "Gpt")] == [
        "Gemini",
        "Claude",
        "GPT",
    ]
    assert display.family_label("expert_rewrite") == "Expert rewrite"
    assert display.sort_families(["gemini", "expert_rewrite", "GPT", "Claude"]) == [
        "Claude",
        "GPT",
        "gemini",
        "expert_rewrite",
    ]


def test_one_number_format_per_kind():
    assert display.format_percent(0.4234) == "42.3%"
    assert display.format_percent(None) == "—"
    assert display.format_coefficient(-0.1254) == "−0.125"
    assert display.format_coefficient(0.5, 2) == "0.50"
    assert display.format_count(10000) == "10,000"
    assert display.format_points(-0.032) == "−3.2 pts"


def test_a_coefficient_over_few_units_carries_a_note():
    assert "not informative" in display.small_n_note(2, "pair")
    assert "only 2 pairs" in display.small_n_note(2, "pair")
    assert "only 1 pair:" in display.small_n_note(1, "pair")
    assert display.small_n_note(display.SMALL_N, "pair") == ""
    assert display.small_n_note(None) == ""


def _chart():
    bars = [
        plots.Bar("A very long run label · Naive-RAG", 0.62, 0.55, 0.97, "62.0%"),
        plots.Bar("Short", 0.3, 0.2, 0.4, "30.0%"),
    ]
    return plots.hbar_chart(
        bars,
        title="Accuracy",
        x_label="Accuracy",
        y_label="Run",
        tick_format=plots.percent_ticks,
        x_range=(0, 1),
        references=[plots.Reference(0.25, "Chance level (25%)")],
        series_label="Accuracy",
    )


def test_a_bar_chart_has_axes_a_legend_and_whole_labels():
    scene = _chart()
    assert scene.texts("axis-label") == ["Run", "Accuracy"]
    assert scene.texts("tick")[:2] == ["0%", "20%"] and scene.texts("tick")[-1] == "100%"
    assert scene.texts("legend") == ["Accuracy", "95% CI", "Chance level (25%)"]
    assert "A very long run label · Naive-RAG" in scene.texts("category")
    svg = plots.to_svg(scene, element_id="acc")
    assert 'role="img"' in svg and 'aria-labelledby="acc-title"' in svg
    assert "A very long run label · Naive-RAG</text>" in svg


def test_value_labels_sit_beyond_the_whisker():
    scene = _chart()
    lines = [i for i in scene.items if isinstance(i, plots.Line)]
    values = {t.text: t for t in scene.items if isinstance(t, plots.Text) and t.kind == "value"}
    # The 62% bar's whisker reaches 97%: its label starts right of the whisker's end.
    whisker_end = max(ln.x2 for ln in lines if ln.y1 == ln.y2 and ln.width == 1.5)
    assert values["62.0%"].x > whisker_end


def test_the_png_is_a_png_of_twice_the_size():
    scene = _chart()
    png = svg_to_png(plots.to_svg(scene, element_id="chart"))
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = (int.from_bytes(png[16:20]), int.from_bytes(png[20:24]))
    assert abs(width - 2 * scene.width) <= 1 and abs(height - 2 * scene.height) <= 1


def test_count_axes_have_whole_ticks():
    assert plots.nice_ticks(0, 3, integer=True) == [0, 1, 2, 3]
    assert all(re.fullmatch(r"\d+", plots.count_ticks(t)) for t in plots.nice_ticks(0, 3))


# --- Issue 32: readable at the size shown, never an empty axis, zeros and groups ----------


def _every_kind_of_plot():
    grouped = [
        plots.Bar(measure, n, value_text=str(n), group=f"Judge as slot {s}")
        for s in (1, 2)
        for measure, n in (("Sent to arbitration", 2), ("Adopted", 0))
    ]
    return [
        _chart(),
        plots.hbar_chart(
            grouped, title="Grouped", x_label="Pairs", y_label="Slot",
            tick_format=plots.count_ticks, integer=True,
        ),
        plots.stacked_hbar_chart(
            [("Duty", [1, 0, 2, 0, 0, 0, 3]), ("Intellect", [0, 0, 0, 6, 0, 0, 0])],
            title="Ratings", categories=[str(v) for v in range(1, 8)], legend_title="Rating",
            x_label="Scenarios", y_label="Dimension", total=6,
        ),
        plots.heatmap_chart(
            ["Model A", "Model B"], [[1.0, 0.4], [0.4, None]], title="Agreement",
            value_format=display.format_percent, axis_label="Share", legend_label="Agreement",
        ),
    ]  # fmt: skip


def test_no_plot_text_is_smaller_than_12_px_and_the_svg_keeps_its_size():
    for scene in _every_kind_of_plot():
        sizes = [t.size for t in scene.items if isinstance(t, plots.Text)]
        assert sizes and min(sizes) >= plots.MIN_FONT == 12
        svg = plots.to_svg(scene)
        # Shown at its own size: width = viewBox width, and no class that shrinks it.
        width = re.search(r'<svg [^>]*width="([\d.]+)"', svg).group(1)
        assert f'viewBox="0 0 {width} ' in svg and "mw-100" not in svg


def test_label_columns_hold_the_bold_axis_name():
    scene = plots.hbar_chart(
        [plots.Bar("A", 0.5)], title="t", x_label="x", y_label="A rather long axis name",
        tick_format=plots.percent_ticks, x_range=(0, 1),
    )  # fmt: skip
    marks = scene.marks()
    assert marks[0].x >= 8 + plots.text_width("A rather long axis name", bold=True)
    assert plots.text_width("Axis", bold=True) > plots.text_width("Axis")


def test_a_plot_without_any_value_is_a_sentence_not_an_empty_axis():
    scene = plots.hbar_chart(
        [plots.Bar("annotator", None), plots.Bar("annotator2", None)],
        title="Overturned", x_label="Share", y_label="Annotator",
        tick_format=plots.percent_ticks, empty_text="No pair has been arbitrated yet.",
    )  # fmt: skip
    assert scene.empty == "No pair has been arbitrated yet." and not scene.items
    with pytest.raises(ValueError):
        plots.to_svg(scene)
    assert plots.stacked_hbar_chart(
        [("Duty", [0] * 7)], title="t", categories=list("1234567"), legend_title="Rating",
        x_label="x", y_label="y", total=0,
    ).empty  # fmt: skip
    assert plots.heatmap_chart(
        ["A"], [[None]], title="t", value_format=str, axis_label="a", legend_label="l"
    ).empty
    with pytest.raises(Http404, match="arbitrated"):
        plot_download(scene, filename="overturned", fmt="svg")


def test_a_bar_without_a_value_beside_bars_with_one_says_so():
    scene = plots.hbar_chart(
        [plots.Bar("Claude", 0.4, value_text="40.0%"),
         plots.Bar("GPT", None, value_text="no guesses")],
        title="t", x_label="x", y_label="y", tick_format=plots.percent_ticks,
    )  # fmt: skip
    assert not scene.empty and "no guesses" in scene.texts("value")
    assert len(scene.marks()) == 1


def test_a_zero_bar_is_marked_and_labelled_0():
    scene = plots.hbar_chart(
        [plots.Bar("Escalated pairs adopted", 0, value_text="0"), plots.Bar("Sent", 2)],
        title="t", x_label="Pairs", y_label="y", tick_format=plots.count_ticks, integer=True,
    )  # fmt: skip
    zero, two = scene.marks()
    assert zero.width == plots.ZERO_MARK and zero.stroke and zero.fill == plots.PALETTE[0]
    assert two.width > zero.width
    assert scene.texts("value") == ["0", "2"]  # "2": the tick format, when no text is given


def test_grouped_bars_name_each_group_once():
    scene = _every_kind_of_plot()[1]
    assert scene.texts("group") == ["Judge as slot 1", "Judge as slot 2"]
    assert scene.texts("category") == ["Sent to arbitration", "Adopted"] * 2
    tips = [m.title for m in scene.marks()]
    assert tips[0] == "Judge as slot 1 · Sent to arbitration: 2"


def test_numbers_on_rating_segments_and_cells_read_against_their_colour():
    stacked, heat = _every_kind_of_plot()[2:]
    for scene in (stacked, heat):
        for mark in scene.marks():
            inside = [
                t for t in scene.items
                if isinstance(t, plots.Text) and t.kind == "value"
                and mark.x <= t.x <= mark.x + mark.width and mark.y <= t.y <= mark.y + mark.height
            ]  # fmt: skip
            for text in inside:
                assert plots.contrast(text.fill, mark.fill) >= 4.5
    # Rating 1 is the darkest colour, and the numbers on it are white.
    first = next(m for m in stacked.marks() if "rated 1" in m.title)
    assert first.fill == plots.SEQUENTIAL[0]
