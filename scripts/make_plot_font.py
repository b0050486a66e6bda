"""Write heartbench_site/base/plot_font.py: the advance widths of DejaVu Sans at the plots'
text size, which the plots use to fit label columns and place value labels (the SVG text
itself is drawn by the reader's browser, or by CairoSVG for the PNG downloads). Chromium
measures each character. Run it again only to change the character set:

    .venv/bin/python scripts/make_plot_font.py
"""

import json
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
SIZE = 11  # px, the plots' text size; measured at 2× for precision
SCALE = 2
CHARS = "".join(chr(c) for c in range(32, 127)) + "καρσΣ–—·×≥≤±…°’“”→"

SCRIPT = """([chars, px]) => {
  const g = document.createElement('canvas').getContext('2d');
  g.font = px + 'px "DejaVu Sans"';
  const out = {};
  for (const ch of chars) out[ch] = g.measureText(ch).width;
  return out;
}"""


def main():
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_page()
        page.set_content("<p>x</p>")
        widths = page.evaluate(SCRIPT, [CHARS, SIZE * SCALE])
        browser.close()
    advances = {ch: round(w / SCALE, 3) for ch, w in widths.items()}
    out = Path(__file__).resolve().parent.parent / "heartbench_site/base/plot_font.py"
    out.write_text(
        '"""DejaVu Sans advance widths, for laying out the plots\' text.\n\n'
        'Written by scripts/make_plot_font.py; do not edit.\n"""\n\n'
        f"SIZE = {SIZE}\n"
        f"ADVANCES = {json.dumps(advances, ensure_ascii=False)}\n"
    )


if __name__ == "__main__":
    main()
