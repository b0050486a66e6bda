"""The admin reads the statistics pages of the demo at 1280 × 800 (issue 21): every plot
is an accessible SVG whose text lies wholly inside the plot (nothing clipped or cut with
an ellipsis), and a screenshot of each page is kept under the test output."""

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command

from audit.reference_labels.models import LabelAudit
from heartbench_site.base.roles import Role
from humanbaseline.models import BaselineStudy
from tests.browser.actions import keep_screenshot

from .test_login import log_in

pytestmark = pytest.mark.browser

# The demo's admin account (heartbench_site/management/commands/demo_setup.py).
DEMO_ADMIN, DEMO_ADMIN_PASSWORD = "admin", "admin-demo-pass"

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


@pytest.fixture
def demo(transactional_db, release_dir, demo_providers):
    # A transactional test before this one may have flushed the migration-made groups.
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    call_command("demo_setup", release=release_dir, stdout=open("/dev/null", "w"))


def _pages():
    pages = [
        ("comparison-outcomes", "/arbitration/outcomes/"),
        ("scenario-coverage", "/review/scenario-coverage/"),
        ("evaluation-analysis", "/evaluation/analysis/"),
    ]
    audit = LabelAudit.objects.order_by("pk").first()
    if audit is not None:
        pages.append(("label-audit-outcomes", f"/audit/labels/{audit.pk}/outcomes/"))
    study = BaselineStudy.objects.order_by("pk").first()
    if study is not None:
        pages.append(("baseline-report", f"/baseline/admin/studies/{study.pk}/report/"))
    return pages


def test_the_admin_reads_every_statistics_page_without_clipped_text(page, live_server, demo):
    log_in(page, live_server, DEMO_ADMIN, DEMO_ADMIN_PASSWORD)
    plotted = 0
    for name, path in _pages():
        page.goto(f"{live_server.url}{path}")
        keep_screenshot(page, f"stats-{name}")
        figures = page.locator("figure[data-plot]")
        for i in range(figures.count()):
            svg = figures.nth(i).locator("svg")
            assert svg.get_attribute("role") == "img"
            assert svg.get_attribute("aria-labelledby")
            assert figures.nth(i).get_by_role("link", name="PNG").count() == 1
            plotted += 1
        assert page.evaluate(CLIPPED_TEXTS) == [], name
    assert plotted >= 4  # the outcome page alone has four
