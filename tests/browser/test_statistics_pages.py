"""The admin reads every statistics page of the demo in Chromium (issues 21 and 32).

At a 1280 × 800 laptop screen, on the demo's own data:

* every plot is an accessible SVG whose text lies wholly inside it (nothing clipped or cut
  with an ellipsis) and is at least 12 px as rendered: font size × the SVG's on-screen
  scale, so a plot shrunk to fit its column would fail;
* no plot is an axis without marks: a plot has at least one visible mark, and a plot with
  nothing to draw is a figure that says why in a sentence, without an SVG;
* no page scrolls sideways;
* the long pages have a section index whose every link lands on its section.

A screenshot of each page is kept under the test output at 1280 × 800, 1920 × 1080 and
390 × 844 (a phone), where no page scrolls sideways either.
"""

import pytest
from django.contrib.auth.models import Group

from adjudication.judging.models import JudgeRun
from audit.memory_quality.models import AuditRun
from audit.reference_labels.models import LabelAudit
from core.roles import Role
from humanbaseline.models import BaselineStudy
from tests.browser.actions import in_viewport, keep_screenshot
from tests.demo_data import load_demo
from tests.stored_reports import compute_analysis, compute_judge_report

from .test_login import log_in

pytestmark = pytest.mark.browser

# The demo's admin account (heartbench_site/management/commands/demo_setup.py).
DEMO_ADMIN, DEMO_ADMIN_PASSWORD = "admin", "admin-demo-pass"
MIN_TEXT_PX = 12
#: The pages long enough to need a section index.
INDEXED = {"comparison-outcomes", "arbitration-analytics", "evaluation-analysis", "judge-report"}
VIEWPORTS = ((1920, 1080), (390, 844))

#: For each plot <text>: is its box inside the SVG's box, and is it cut with an ellipsis?
CLIPPED_TEXTS = """() => {
  const out = [];
  for (const svg of document.querySelectorAll('figure[data-plot] svg')) {
    const frame = svg.getBoundingClientRect();
    for (const t of svg.querySelectorAll('text')) {
      const r = t.getBoundingClientRect();
      const inside = r.left >= frame.left - 1 && r.right <= frame.right + 1
        && r.top >= frame.top - 1 && r.bottom <= frame.bottom + 1;
      if (!inside || t.textContent.endsWith('…')) out.push(t.textContent);
    }
  }
  return out;
}"""

#: Each figure as the reader gets it: its rendered text sizes, its visible marks, or the
#: sentence it shows instead.
FIGURES = """() => [...document.querySelectorAll('figure[data-plot]')].map(figure => {
  const svg = figure.querySelector('svg');
  const sentence = figure.querySelector('[data-testid=plot-empty]');
  const out = {name: figure.dataset.plot, empty: figure.hasAttribute('data-empty'),
               svg: !!svg, sentence: sentence ? sentence.textContent.trim() : ''};
  if (!svg) return out;
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  out.scale = scale;
  out.texts = [...svg.querySelectorAll('text')].map(t => ({
    text: t.textContent,
    px: parseFloat(getComputedStyle(t).fontSize) * scale,
  }));
  out.marks = [...svg.querySelectorAll('[data-kind=mark]')].filter(m => {
    const r = m.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(m).fill !== 'none';
  }).length;
  return out;
})"""

SCROLLS_SIDEWAYS = "() => document.scrollingElement.scrollWidth > window.innerWidth"

#: The section ``id`` is at the top of the window, or the window at the page's end.
LANDED = """id => {
  const top = document.getElementById(id).getBoundingClientRect().top;
  const end = window.scrollY + window.innerHeight >= document.scrollingElement.scrollHeight - 1;
  return Math.abs(top) < 2 || (end && top > 0 && top < window.innerHeight);
}"""

#: The section index's links, and whether each one's target exists.
INDEX_LINKS = """() => [...document.querySelectorAll('[data-testid=section-index] a')].map(a => ({
  href: a.getAttribute('href'), text: a.textContent.trim(),
  target: !!document.getElementById(a.getAttribute('href').slice(1)),
}))"""


@pytest.fixture
def demo(transactional_db, release_dir, demo_providers):
    # A transactional test before this one may have flushed the migration-made groups.
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    load_demo(release_dir)
    # The stored reports' figures as of the demo's last step: fresh, so no page is
    # swapped by its own polling while the walk measures it.
    compute_analysis()
    for run_id in JudgeRun.objects.values_list("pk", flat=True):
        compute_judge_report(run_id)


def _first(model):
    return model.objects.order_by("pk").values_list("pk", flat=True).first()


def _pages():
    """Every statistics page of the demo, plots or not (the walk checks them all)."""
    pages = [
        ("comparison-outcomes", "/arbitration/outcomes/"),
        ("arbitration-analytics", "/arbitration/analytics/"),
        ("scenario-coverage", "/review/scenario-coverage/"),
        ("profile-outcomes", "/review/profile-outcomes/"),
        ("evaluation-analysis", "/evaluation/analysis/"),
        ("blinding-report", "/blinding/report/"),
    ]
    optional = (
        ("label-audit-outcomes", LabelAudit, "/audit/labels/{}/outcomes/"),
        ("baseline-report", BaselineStudy, "/baseline/admin/studies/{}/report/"),
        ("judge-report", JudgeRun, "/judging/runs/{}/report/"),
        ("memory-audit-outcomes", AuditRun, "/audit/runs/{}/outcomes/"),
    )
    for name, model, path in optional:
        pk = _first(model)
        if pk is not None:
            pages.append((name, path.format(pk)))
    return pages


def _check_figures(name, figures):
    """Text of 12 px and more; marks on every drawn plot; a sentence on every other."""
    for figure in figures:
        where = f"{name}: {figure['name']}"
        if figure["empty"]:
            assert not figure["svg"], f"{where}: a plot with nothing to draw drew an SVG"
            assert figure["sentence"].endswith("."), f"{where}: no sentence says why"
            continue
        assert figure["svg"], f"{where}: a figure without a plot or a sentence"
        assert figure["marks"] >= 1, f"{where}: an axis without marks"
        small = [t for t in figure["texts"] if t["px"] < MIN_TEXT_PX - 0.05]
        assert not small, f"{where}: text under {MIN_TEXT_PX} px as rendered: {small[:5]}"


def _check_section_index(page, name):
    index = page.get_by_test_id("section-index")
    assert index.count() == 1, f"{name}: no section index"
    links = page.evaluate(INDEX_LINKS)
    assert len(links) >= 4 and all(link["target"] for link in links), (name, links)
    assert len({link["href"] for link in links}) == len(links)
    # Following the last link brings its section to the top of the window (or as near as
    # the page's end allows), once Bootstrap's smooth scrolling has come to rest.
    last = links[-1]
    index.get_by_role("link", name=last["text"], exact=True).click()
    page.wait_for_function("h => location.hash === h", arg=last["href"])
    page.wait_for_function(LANDED, arg=last["href"][1:], polling=100)
    assert in_viewport(page, page.locator(last["href"])), (name, last)


def test_the_admin_reads_every_statistics_page(page, live_server, demo):
    log_in(page, live_server, DEMO_ADMIN, DEMO_ADMIN_PASSWORD)
    pages = _pages()
    assert {name for name, _ in pages} >= INDEXED | {"label-audit-outcomes", "baseline-report"}
    laptop = page.viewport_size
    plotted = empty = 0
    for name, path in pages:
        page.set_viewport_size(laptop)
        page.goto(f"{live_server.url}{path}")
        keep_screenshot(page, f"stats-{name}-{laptop['width']}x{laptop['height']}")
        figures = page.locator("figure[data-plot]")
        for i in range(figures.count()):
            svg = figures.nth(i).locator("svg")
            if svg.count() == 0:
                empty += 1
                continue
            assert svg.get_attribute("role") == "img"
            assert svg.get_attribute("aria-labelledby")
            assert figures.nth(i).get_by_role("link", name="PNG").count() == 1
            plotted += 1
        assert page.evaluate(CLIPPED_TEXTS) == [], name
        _check_figures(name, page.evaluate(FIGURES))
        assert not page.evaluate(SCROLLS_SIDEWAYS), f"{name} scrolls sideways at 1280 px"
        # The same page on a wide screen and on a phone (the layout follows the window).
        for width, height in VIEWPORTS:
            page.set_viewport_size({"width": width, "height": height})
            keep_screenshot(page, f"stats-{name}-{width}x{height}")
            assert not page.evaluate(SCROLLS_SIDEWAYS), f"{name} scrolls sideways at {width} px"
            if width > laptop["width"]:  # wider than the laptop: nothing shrinks
                _check_figures(name, page.evaluate(FIGURES))
        if name in INDEXED:
            page.set_viewport_size(laptop)
            _check_section_index(page, name)
    # Outcomes 4, analytics 1, coverage 2, analysis 5, blinding 2, label audit 1,
    # baseline 2, judge report 4 or more: drawn from the demo's data.
    assert plotted >= 20
    # The demo has no arbitrated pair: two analytics plots say so instead of drawing.
    assert empty >= 2
