"""The judge run's calibration report in Chromium (issue 22): a judge run goes through a
real Celery worker, the judge answering from the fake provider on loopback; the admin
watches the run page until it shows the run finished, follows its link to the report and
reads the κ table and the plots."""

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from adjudication.judging.models import JudgeRun
from adjudication.judging.services.runs import judge_run_create, judge_run_start
from core.providers import clear_client_cache
from core.roles import Role
from llm.testing.fake_server import DemoResponder, FakeProviderServer
from tests.browser.actions import in_viewport, keep_screenshot
from tests.comparison.helpers import assign, judge, make_pair, people
from tests.factories import ScenarioFactory
from tests.generation.helpers import family_settings, worker_env
from tests.judging.test_report import HUMANS

from .test_login import log_in

pytestmark = [pytest.mark.browser, pytest.mark.worker]


@pytest.fixture
def server():
    with FakeProviderServer(responder=DemoResponder(seed=0), latency_s=0.0) as server:
        yield server


@pytest.fixture
def judged(transactional_db, settings, server):
    """Four pairs the three annotators judged differently (so κ has a value), with the
    fake provider configured in this process (the live server) too."""
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    settings.HEARTBENCH_GENERATION_FAMILIES = family_settings(server, timeout=5.0)
    who = people()
    pairs = []
    for i, humans in enumerate(HUMANS):
        pair = make_pair(key=f"CHAR_B{i}", scenario=ScenarioFactory())
        for assignment, (family, rating) in zip(
            assign(pair, who["annotators"], who["admin"]).values(), humans, strict=True
        ):
            guidance = "Be concrete." if rating == "partial" else ""
            judge(assignment, family=family, rating=rating, guidance=guidance)
        pairs.append(pair)
    yield pairs, who
    clear_client_cache()


def test_the_admin_opens_the_finished_runs_report(
    page, live_server, judged, server, celery_worker_factory
):
    pairs, who = judged
    celery_worker_factory(extra_env=worker_env(server, timeout=5.0, max_retries=1))
    run = judge_run_create(
        user=who["admin"],
        name="Report walk",
        provider_family="gpt",
        seed=7,
        orders_per_pair=2,
        pair_ids=[p.pk for p in pairs],
    )
    judge_run_start(run_id=run.pk)

    log_in(page, live_server, who["admin"].username)
    page.goto(f"{live_server.url}/judging/runs/{run.pk}/")
    link = page.get_by_test_id("report-link")
    link.wait_for(timeout=120_000)  # the page polls until the run is over
    assert JudgeRun.objects.get(pk=run.pk).status == JudgeRun.Status.FINISHED
    link.click()
    page.wait_for_url(f"{live_server.url}/judging/runs/{run.pk}/report/")

    assert page.get_by_role("heading", level=1).inner_text().startswith("Calibration report")
    assert page.get_by_test_id("report-pairs").inner_text().startswith("4 pairs")
    kappa = page.get_by_test_id("report-selection")
    assert in_viewport(page, page.get_by_role("heading", name="Agreement on the selection"))
    row = kappa.locator("tr", has=page.get_by_role("rowheader", name="Judge–human κ"))
    assert row.get_by_test_id("estimate").inner_text() not in ("", "—")
    assert "95% CI" in row.get_by_test_id("interval").inner_text()
    assert kappa.locator("caption").inner_text()
    plot = page.get_by_test_id("report-plot-kappa")
    plot.scroll_into_view_if_needed()
    expect(plot).to_be_visible()
    assert plot.get_attribute("role") == "img"
    # Six sections; one whose figures the judge's draws leave undefined (every pick one
    # family, say) says why instead of drawing a plot.
    plots = page.locator("figure[data-plot]").count()
    assert plots + min(page.get_by_text("not computable:").count(), 6 - plots) == 6
    assert plots >= 4
    # The section index names the six sections; each link has its heading.
    index = page.get_by_test_id("section-index")
    assert index.get_by_role("link").count() == 6
    for href in index.get_by_role("link").evaluate_all("links => links.map(a => a.hash)"):
        assert page.locator(href).count() == 1
    # Replace one expert: each slot is named once, each measure once per slot, and every
    # count has a visible bar (a sliver for 0) and its number.
    replace = page.get_by_test_id("report-plot-replace")
    replace.scroll_into_view_if_needed()
    slots = replace.locator("text[data-kind=group]").all_text_contents()
    assert slots == [f"Judge as annotator slot {s}" for s in (1, 2, 3)]
    measures = replace.locator("text[data-kind=category]").all_text_contents()
    assert len(measures) == 9 and len(set(measures)) == 3
    bars = replace.locator("[data-kind=mark]")
    assert bars.count() == 9
    for box in bars.evaluate_all("bars => bars.map(b => b.getBoundingClientRect().width)"):
        assert box >= 2.9  # plots.ZERO_MARK, give or take the rounding
    assert len(replace.locator("text[data-kind=value]").all_text_contents()) == 9
    keep_screenshot(page, "judge-report")
