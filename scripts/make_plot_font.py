"""Write heartbench_site/base/plot_font.py: the glyphs the PNG plots are drawn with.

The SVG plots are text and use the reader's fonts; the PNG downloads need pixels, and the
site has no imaging library. This script has Chromium draw each character of DejaVu Sans
(Bitstream Vera licence, free to redistribute) on a canvas at twice the plots' text size
and stores the advance widths (for layout, in SVG and PNG alike) and 8-bit coverage
masks. Run it again only to change the character set:

    .venv/bin/python scripts/make_plot_font.py
"""

import base64
import json
import zlib
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
SIZE = 11  # px, the plots' text size; masks are drawn at 2×
SCALE = 2
CHARS = "".join(chr(c) for c in range(32, 127)) + "καρσΣ–—·×≥≤±…°’“”→"

SCRIPT = """([chars, px]) => {
  const c = document.createElement('canvas'); c.width = 4 * px; c.height = 2 * px;
  const g = c.getContext('2d', {willReadFrequently: true});
  g.font = px + 'px "DejaVu Sans"'; g.textBaseline = 'alphabetic';
  const out = {};
  for (const ch of chars) {
    g.clearRect(0, 0, c.width, c.height);
    g.fillStyle = '#000'; g.fillText(ch, 0, Math.round(1.5 * px));
    const w = g.measureText(ch).width, cols = Math.ceil(w) + 2;
    const d = g.getImageData(0, 0, cols, c.height).data, a = [];
    for (let i = 3; i < d.length; i += 4) a.push(d[i]);
    out[ch] = [w, cols, a];
  }
  return out;
}"""


def main():
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_page()
        page.set_content("<p>x</p>")
        glyphs = page.evaluate(SCRIPT, [CHARS, SIZE * SCALE])
        browser.close()
    height = 2 * SIZE * SCALE
    advances = {ch: round(w / SCALE, 3) for ch, (w, _, _) in glyphs.items()}
    masks = {ch: [cols, bytes(a)] for ch, (_, cols, a) in glyphs.items()}
    blob = b"".join(m for _, m in masks.values())
    index = [(ch, cols) for ch, (cols, _) in masks.items()]
    data = base64.b64encode(zlib.compress(blob, 9)).decode()
    lines = [data[i : i + 96] for i in range(0, len(data), 96)]
    body = "\n".join(f'    "{line}"' for line in lines)
    out = Path(__file__).resolve().parent.parent / "heartbench_site/base/plot_font.py"
    out.write_text(
        '"""DejaVu Sans metrics and glyph masks for the plots.\n\n'
        'Written by scripts/make_plot_font.py; do not edit.\n"""\n\n'
        f"SIZE = {SIZE}\nSCALE = {SCALE}\nMASK_HEIGHT = {height}\n"
        f"BASELINE = {round(1.5 * SIZE * SCALE)}\n"
        f"ADVANCES = {json.dumps(advances, ensure_ascii=False)}\n"
        f"INDEX = {json.dumps(index, ensure_ascii=False)}\n"
        f"MASKS = (\n{body}\n)\n"
    )


if __name__ == "__main__":
    main()
