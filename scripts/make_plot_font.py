"""Write core/plot_font.py: the advance widths of DejaVu Sans, regular and
bold, which the plots use to fit label columns and place value labels (the SVG text
itself is drawn by the reader's browser, or by CairoSVG for the PNG downloads). Chromium
measures each character at 100 px; the plots scale the widths to their own sizes. Run it
again only to change the character set:

    .venv/bin/python scripts/make_plot_font.py
"""

import json
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
SIZE = 100  # px: the widths are per 100 px of font size
CHARS = "".join(chr(c) for c in range(32, 127)) + "καρστΔΣ–—−·×≥≤±≈…°’“”→"

SCRIPT = """([chars, px, weight]) => {
  const g = document.createElement('canvas').getContext('2d');
  g.font = weight + ' ' + px + 'px "DejaVu Sans"';
  const out = {};
  for (const ch of chars) out[ch] = g.measureText(ch).width;
  return out;
}"""


def main():
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_page()
        page.set_content("<p>x</p>")
        regular = page.evaluate(SCRIPT, [CHARS, SIZE, "normal"])
        bold = page.evaluate(SCRIPT, [CHARS, SIZE, "bold"])
        browser.close()
    out = Path(__file__).resolve().parent.parent / "core/plot_font.py"

    def table(widths):
        return json.dumps({c: round(w, 2) for c, w in widths.items()}, ensure_ascii=False)

    out.write_text(
        '"""DejaVu Sans advance widths, regular and bold, for laying out the plots\' text.\n\n'
        'Written by scripts/make_plot_font.py; do not edit.\n"""\n\n'
        f"SIZE = {SIZE}\n"
        f"ADVANCES = {table(regular)}\n"
        f"BOLD_ADVANCES = {table(bold)}\n"
    )
    # The repository's formatter lays the tables out one entry a line.
    subprocess.run([sys.executable, "-m", "ruff", "format", str(out)], check=True)


if __name__ == "__main__":
    main()
