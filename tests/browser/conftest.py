"""Browser-test fixtures: Playwright driving Debian's Chromium.

They live in this package, not in tests/conftest.py, so the browser (and the asyncio
event loop Playwright's sync API keeps running while started) exists only while this
package's tests run; later asyncio.run() calls in other packages would fail otherwise.
"""

import contextlib
import os
import time

import pytest

from tests.conftest import CHROMIUM, CHROMIUM_ARGS, TEST_OUTPUT

# The ORM calls the tests make between page actions run in Playwright's thread.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="package")
def browser():
    from playwright.sync_api import expect, sync_playwright

    # An assertion on the page waits as long as an action does: a busy shared machine
    # can take more than Playwright's 5 s default to render the page a click asked for.
    expect.set_options(timeout=15_000)

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, request):
    """A fresh browser context per test, at a 1280 × 800 laptop screen; a screenshot is
    kept under test-output/ on failure."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    in_flight = set()
    context.on("request", lambda r: in_flight.add(r))
    context.on("requestfinished", lambda r: in_flight.discard(r))
    context.on("requestfailed", lambda r: in_flight.discard(r))
    pg = context.new_page()
    pg.set_default_timeout(15_000)
    yield pg
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        TEST_OUTPUT.mkdir(exist_ok=True)
        pg.screenshot(path=str(TEST_OUTPUT / f"{request.node.name}.png"), full_page=True)
    _leave_quietly(pg, in_flight)
    context.close()


def _leave_quietly(pg, in_flight, seconds: float = 5.0) -> None:
    """Leave the page and wait for what leaving sends (the baseline's time report and
    the label form's last save go as beacons on pagehide) and any poll in flight, so no
    request is still using the database when the test's teardown empties it (a TRUNCATE
    beside a live request's read deadlocks)."""
    with contextlib.suppress(Exception):
        pg.goto("about:blank")
    deadline = time.monotonic() + seconds
    while in_flight and time.monotonic() < deadline:
        if pg.is_closed():
            break  # a test that closed its page waited for it itself
        pg.wait_for_timeout(50)
