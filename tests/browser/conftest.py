"""Browser-test fixtures: Playwright driving Debian's Chromium.

They live in this package, not in tests/conftest.py, so the browser (and the asyncio
event loop Playwright's sync API keeps running while started) exists only while this
package's tests run; later asyncio.run() calls in other packages would fail otherwise.
"""

import os

import pytest

from tests.conftest import CHROMIUM, CHROMIUM_ARGS, TEST_OUTPUT

# The ORM calls the tests make between page actions run in Playwright's thread.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="package")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, request):
    """A fresh browser context per test, at a 1280 × 800 laptop screen; a screenshot is
    kept under test-output/ on failure."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    pg = context.new_page()
    pg.set_default_timeout(15_000)
    yield pg
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        TEST_OUTPUT.mkdir(exist_ok=True)
        pg.screenshot(path=str(TEST_OUTPUT / f"{request.node.name}.png"), full_page=True)
    context.close()
