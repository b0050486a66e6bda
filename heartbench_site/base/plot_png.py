"""PNG downloads of the plots: the scene of :mod:`heartbench_site.base.plots` drawn on a
numpy canvas at twice its size and encoded with zlib; no imaging library needed.

The scenes hold axis-aligned rectangles and lines and horizontal or vertical text, which
is all this rasterizer draws. Text uses the DejaVu Sans masks of
:mod:`heartbench_site.base.plot_font`.
"""

import base64
import struct
import zlib
from functools import cache

import numpy as np

from . import plot_font
from .plots import Line, Rect, Scene, Text, text_width

SCALE = plot_font.SCALE


@cache
def _glyphs() -> dict[str, np.ndarray]:
    blob = zlib.decompress(base64.b64decode("".join(plot_font.MASKS)))
    glyphs, offset, h = {}, 0, plot_font.MASK_HEIGHT
    for ch, cols in plot_font.INDEX:
        size = cols * h
        mask = np.frombuffer(blob, np.uint8, size, offset).reshape(h, cols)
        glyphs[ch] = mask.astype(np.float32) / 255.0
        offset += size
    return glyphs


def _colour(value: str) -> np.ndarray:
    value = value.lstrip("#")
    if len(value) == 3:
        value = "".join(c * 2 for c in value)
    return np.array([int(value[k : k + 2], 16) for k in (0, 2, 4)], np.float32)


def _text_mask(text: str, size: float) -> np.ndarray:
    """The coverage of ``text`` at ``size`` px (times SCALE), baseline at row BASELINE·f."""
    glyphs = _glyphs()
    f = size / plot_font.SIZE
    width = int(np.ceil(text_width(text, size) * SCALE)) + 4
    mask = np.zeros((plot_font.MASK_HEIGHT, int(width / f) + 8), np.float32)
    x = 0.0
    for ch in text:
        g = glyphs.get(ch, glyphs["?"])
        x0 = int(round(x))
        cols = min(g.shape[1], mask.shape[1] - x0)
        if cols > 0:
            mask[:, x0 : x0 + cols] = np.maximum(mask[:, x0 : x0 + cols], g[:, :cols])
        x += plot_font.ADVANCES.get(ch, plot_font.ADVANCES["?"]) * SCALE
    if f != 1:
        rows = (np.arange(int(mask.shape[0] * f)) / f).astype(int)
        cols = (np.arange(int(mask.shape[1] * f)) / f).astype(int)
        mask = mask[rows][:, cols]
    return mask


def _blend(canvas, y0, x0, mask, colour):
    h, w = mask.shape
    cy0, cx0 = max(y0, 0), max(x0, 0)
    cy1, cx1 = min(y0 + h, canvas.shape[0]), min(x0 + w, canvas.shape[1])
    if cy1 <= cy0 or cx1 <= cx0:
        return
    a = mask[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0, None]
    region = canvas[cy0:cy1, cx0:cx1]
    canvas[cy0:cy1, cx0:cx1] = region * (1 - a) + colour * a


def _fill(canvas, x0, y0, x1, y1, colour):
    xa, xb = sorted((int(round(x0 * SCALE)), int(round(x1 * SCALE))))
    ya, yb = sorted((int(round(y0 * SCALE)), int(round(y1 * SCALE))))
    canvas[max(ya, 0) : max(yb, ya + 1), max(xa, 0) : max(xb, xa + 1)] = colour


def _line(canvas, item: Line):
    colour, half = _colour(item.stroke), item.width / 2
    dashes = [float(d) for d in item.dash.split()] if item.dash else []
    horizontal = abs(item.y1 - item.y2) < abs(item.x1 - item.x2)
    start, end = (item.x1, item.x2) if horizontal else (item.y1, item.y2)
    start, end = min(start, end), max(start, end)
    segments = [(start, end)]
    if dashes:
        segments, pos, k = [], start, 0
        while pos < end:
            length = dashes[k % len(dashes)]
            if k % 2 == 0:
                segments.append((pos, min(pos + length, end)))
            pos, k = pos + length, k + 1
    for a, b in segments:
        if horizontal:
            _fill(canvas, a, item.y1 - half, b, item.y1 + half, colour)
        else:
            _fill(canvas, item.x1 - half, a, item.x1 + half, b, colour)


def _text(canvas, item: Text):
    mask = _text_mask(item.text, item.size)
    f = item.size / plot_font.SIZE
    baseline = int(round(plot_font.BASELINE * f))
    w = text_width(item.text, item.size) * SCALE
    shift = {"start": 0, "middle": w / 2, "end": w}[item.anchor]
    x, y = int(round(item.x * SCALE)), int(round(item.y * SCALE))
    if item.rotate:
        # Counter-clockwise: the text reads bottom to top, its baseline at x.
        mask = np.rot90(mask)
        _blend(canvas, y - mask.shape[0] + int(shift), x - baseline, mask, _colour(item.fill))
    else:
        _blend(canvas, y - baseline, x - int(shift), mask, _colour(item.fill))
        if item.bold:
            _blend(canvas, y - baseline, x - int(shift) + 1, mask, _colour(item.fill))


def to_png(scene: Scene) -> bytes:
    """The scene as a PNG at twice its SVG size (crisp on high-density screens)."""
    height, width = int(np.ceil(scene.height * SCALE)), int(np.ceil(scene.width * SCALE))
    canvas = np.full((height, width, 3), 255.0, np.float32)
    for item in scene.items:
        if isinstance(item, Rect):
            _fill(canvas, item.x, item.y, item.x + item.width, item.y + item.height,
                  _colour(item.fill))  # fmt: skip
            if item.stroke:
                for line in _outline(item):
                    _line(canvas, line)
        elif isinstance(item, Line):
            _line(canvas, item)
        elif isinstance(item, Text):
            _text(canvas, item)
    return _encode(np.clip(canvas, 0, 255).astype(np.uint8))


def _outline(r: Rect) -> list[Line]:
    x1, y1 = r.x + r.width, r.y + r.height
    return [
        Line(r.x, r.y, x1, r.y, r.stroke, 0.5),
        Line(r.x, y1, x1, y1, r.stroke, 0.5),
        Line(r.x, r.y, r.x, y1, r.stroke, 0.5),
        Line(x1, r.y, x1, y1, r.stroke, 0.5),
    ]


def _encode(pixels: np.ndarray) -> bytes:
    height, width, _ = pixels.shape
    raw = np.concatenate([np.zeros((height, 1), np.uint8), pixels.reshape(height, -1)], axis=1)

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw.tobytes(), 6))
        + chunk(b"IEND", b"")
    )
