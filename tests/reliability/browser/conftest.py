"""The browser fixtures of tests/browser, for this package only (see its conftest)."""

from tests.browser.conftest import browser, page  # noqa: F401
