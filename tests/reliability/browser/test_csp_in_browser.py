"""The Content-Security-Policy holds in Chromium: the pages people use, with htmx
autosave, Bootstrap's collapse and the Swagger UI, run with no policy violation.

A listener installed before any page script records every ``securitypolicyviolation``
event; the control test shows the listener sees one when a page breaks the policy.
"""

import os

import pytest
from django.contrib.auth.models import Group

from core.roles import Role
from tests.browser.actions import submit
from tests.browser.test_login import log_in
from tests.comparison.helpers import assign, make_pair, people

pytestmark = pytest.mark.browser

RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(e.violatedDirective + " " + (e.blockedURI || "inline"));
});
"""


@pytest.fixture
def world(transactional_db):
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    cast = people()
    pair = make_pair()
    assignments = assign(pair, cast["annotators"], cast["admin"])
    return {"cast": cast, "assignment": assignments[cast["annotators"][0].pk]}


def violations(page) -> list[str]:
    return page.evaluate("window.__cspViolations")


def test_the_annotator_and_admin_pages_run_without_a_policy_violation(page, live_server, world):
    page.add_init_script(RECORD_VIOLATIONS)
    console = []
    page.on("console", lambda m: console.append(m.text) if "Security Policy" in m.text else None)

    log_in(page, live_server, world["cast"]["annotators"][0].username)
    assert violations(page) == []
    page.goto(f"{live_server.url}/compare/{world['assignment'].public_id}/")
    form = page.locator("#judgment-form")
    form.get_by_label("Selection rationale").fill("Best grounded in the memories.")
    # htmx posts the draft: the script ran, under the policy.
    page.get_by_test_id("autosave-status").filter(has_text="Draft saved at ").wait_for()
    assert violations(page) == []

    page.set_viewport_size({"width": 500, "height": 800})  # Bootstrap's collapsed menu
    page.get_by_role("button", name="Toggle navigation").click()
    page.get_by_role("button", name="Log out").wait_for(state="visible")
    assert violations(page) == []
    # Click once the menu has finished opening and no autosave is in flight; the click
    # returns before the browser has sent the form's post, and going to another page
    # at once could cancel it and leave the annotator signed in: wait for the sign-out
    # to land on the login page.
    page.locator("#main-nav.show").wait_for()
    page.wait_for_function("() => !document.querySelector('.htmx-request')")
    submit(page, page.get_by_role("button", name="Log out"))
    assert "/accounts/login/" in page.url
    page.set_viewport_size({"width": 1280, "height": 800})

    admin = world["cast"]["admin"]
    log_in(page, live_server, admin.username)
    for path in ("/", "/corpus/import/", "/corpus/generation/", "/compare/assign/", "/admin/"):
        page.goto(f"{live_server.url}{path}")
        page.wait_for_load_state("networkidle")
        assert violations(page) == [], path
    page.goto(f"{live_server.url}/api/docs/")
    page.locator(".swagger-ui .opblock").first.wait_for()  # the UI built itself
    script_violations = [v for v in violations(page) if v.startswith("script-src")]
    assert script_violations == []
    assert not [c for c in console if "script-src" in c], console


def test_the_listener_sees_a_violation_when_a_page_breaks_the_policy(page, live_server, world):
    """The control: inline script injected into a served page is blocked and recorded."""
    page.add_init_script(RECORD_VIOLATIONS)
    log_in(page, live_server, world["cast"]["annotators"][0].username)
    page.evaluate(
        """() => {
          const s = document.createElement("script");
          s.textContent = "window.__ran = true";
          document.body.appendChild(s);
        }"""
    )
    page.wait_for_function("() => window.__cspViolations.length > 0")
    assert page.evaluate("window.__ran === undefined")
    assert violations(page)[0].startswith("script-src")
