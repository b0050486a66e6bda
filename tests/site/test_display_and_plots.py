"""The shared display layer and plotting module (issue 21): labels, family order, number
formats, the small-n note, and plots with axes, legends and untruncated text."""

import re

from heartbench_site.base import display, plots
from heartbench_site.base.plot_views import svg_to_png


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
