"""The plots' colours stay apart for readers with a colour-vision deficiency (issue 32):
every pair of categorical colours, and every pair of the 1-7 rating colours, differs by
a clearly visible CIEDE2000 ΔE under normal vision and under simulated protanopia,
deuteranopia and tritanopia (Machado et al. 2009, full severity); none is near-white on
the page; the rating colours run dark to light; numbers written on a colour contrast
with it. No database: pure colour arithmetic (tests/site/colour_vision.py)."""

from itertools import combinations

import numpy as np
import pytest

from core import plots

from .colour_vision import (
    CVD_MATRICES,
    delta_e_2000,
    difference,
    hex_to_srgb,
    simulate,
    srgb_to_lab,
)

VISIONS = ("", *CVD_MATRICES)  # "" is normal vision
PAGE = "#ffffff"
#: ΔE00 between two colours that must be told apart side by side. Around 2 is a just
#: noticeable difference; 8 is an obvious one at a glance.
DISTINCT = 8.0
#: ΔE00 a colour keeps from the white page, so a bar never fades into it.
NOT_WHITE = 20.0


def test_ciede2000_matches_the_published_test_pairs():
    # Sharma, Wu and Dalal (2005), Table 1: pairs 1, 7, 13, 17, 25 and 34.
    pairs = [
        ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
        ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
        ((50.0, 2.49, -0.001), (50.0, -2.49, 0.0009), 7.1792),
        ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
        ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
        ((2.0776, 0.0795, -1.135), (0.9033, -0.0636, -0.5514), 0.9082),
    ]
    for lab1, lab2, expected in pairs:
        assert delta_e_2000(lab1, lab2) == pytest.approx(expected, abs=1e-4)


def test_the_simulation_keeps_greys_and_merges_red_and_green():
    for grey in ("#000000", "#777777", "#ffffff"):
        for deficiency in CVD_MATRICES:
            assert np.allclose(simulate(grey, deficiency), hex_to_srgb(grey), atol=2e-3)
    # Red and green, far apart to most readers, nearly merge without M or L cones.
    assert difference("#d62728", "#2ca02c") > 50
    assert difference("#d62728", "#2ca02c", "deuteranopia") < 20
    assert srgb_to_lab(hex_to_srgb("#ffffff"))[0] == pytest.approx(100, abs=1e-6)


@pytest.mark.parametrize("name", ["PALETTE", "SEQUENTIAL"])
@pytest.mark.parametrize("vision", VISIONS)
def test_every_two_colours_of_a_palette_stay_apart(name, vision):
    palette = getattr(plots, name)
    closest = min(
        (difference(a, b, vision), a, b) for a, b in combinations(palette, 2)
    )  # fmt: skip
    assert closest[0] >= DISTINCT, (name, vision or "normal", closest)


@pytest.mark.parametrize("vision", VISIONS)
def test_no_colour_is_near_white_on_the_page(vision):
    for colour in (*plots.PALETTE, *plots.SEQUENTIAL):
        assert difference(colour, PAGE, vision) >= NOT_WHITE, (colour, vision or "normal")


def test_the_rating_colours_run_dark_to_light_and_rating_1_is_dark():
    lightness = [srgb_to_lab(hex_to_srgb(c))[0] for c in plots.SEQUENTIAL]
    assert lightness == sorted(lightness) and len(set(lightness)) == len(lightness)
    assert lightness[0] < 30  # rating 1: dark, not the page's white
    assert lightness[-1] < 90
    assert plots.sequential_colour(0) == plots.SEQUENTIAL[0]
    assert plots.sequential_colour(1) == plots.SEQUENTIAL[-1]


def test_numbers_written_on_a_colour_contrast_with_it():
    shades = [plots.sequential_colour(t / 50) for t in range(51)]
    for fill in (*plots.PALETTE, *plots.SEQUENTIAL, *shades):
        assert plots.contrast(plots.text_on(fill), fill) >= 4.5, fill
