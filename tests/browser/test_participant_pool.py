"""A Prolific participant in Chromium: the admin sets the study's completion code and URL
(an address that is not http(s) is refused, naming the field), a participant opens the
invitation link with PROLIFIC_PID, completes a small study, sees the completion code and
is sent on to the completion URL with it; the admin's time-on-task CSV carries the id."""

import csv
import io
from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth.models import Group

from core.roles import Role
from humanbaseline.models import Participation
from tests.factories import UserFactory
from tests.humanbaseline.conftest import make_study

from .test_login import log_in

pytestmark = pytest.mark.browser
PASSWORD = "a-long-study-password-42"
PID = "60a1b2c3d4e5f60718293a4b"
POOL = "https://pool.example"  # answered by the test (page.route), never the network


@pytest.fixture
def study(transactional_db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    study, _, _ = make_study(n_items=2, n_practice=1, n_characters=4)
    return study


def test_a_prolific_participant_gets_the_code_and_lands_on_the_completion_url(
    page, browser, live_server, study
):
    admin = UserFactory(username="pool-admin", roles=[Role.ADMIN])
    log_in(page, live_server, admin.username)
    page.goto(f"{live_server.url}/baseline/admin/studies/{study.pk}/")
    code = page.get_by_label("Completion code", exact=True)
    code.fill("HBPOOL42")
    url = page.get_by_label("Completion URL", exact=True)
    url.fill("ftp://pool.example/done")
    url.press("Enter")  # the keyboard submits the form
    error = page.locator("#error_1_id_completion_url")
    error.wait_for()
    assert "Enter an http:// or https:// address" in error.inner_text()
    assert url.input_value() == "ftp://pool.example/done"
    url.fill(f"{POOL}/complete?cc={{code}}&pid={{pool_id}}")
    page.get_by_role("button", name="Save the completion settings").click()
    page.get_by_text("Completion code and URL saved.").wait_for()
    study.refresh_from_db()
    assert study.completion_code == "HBPOOL42"

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    pp = context.new_page()
    pp.set_default_timeout(15_000)
    pp.route(
        f"{POOL}/**",
        lambda route: route.fulfill(
            status=200,
            content_type="text/html",
            body=f"<h1 data-testid='pool'>Completed: {route.request.url}</h1>",
        ),
    )
    pp.goto(
        f"{live_server.url}/baseline/join/{study.invitation_token}/"
        f"?PROLIFIC_PID={PID}&STUDY_ID=s-1&SESSION_ID=x-2"
    )
    pp.get_by_label("Username").fill("prolific-1")
    pp.get_by_label("Password").fill(PASSWORD)
    pp.get_by_role("button", name="Create my account").click()
    pp.wait_for_url("**/consent/")
    p = Participation.objects.get(user__username="prolific-1")
    assert (p.pool, p.pool_id, p.pool_study_id, p.pool_session_id) == (
        "prolific",
        PID,
        "s-1",
        "x-2",
    )
    pp.get_by_role("button", name="I have read the text and agree").click()
    pp.wait_for_url("**/briefing/")
    pp.get_by_role("button", name="Continue to the practice items").click()
    pp.wait_for_url("**/practice/1/")
    pp.locator('#practice-form label[for="choice-A"]').click()
    pp.get_by_role("button", name="Check my answer").click()
    pp.get_by_test_id("practice-feedback").wait_for()
    pp.get_by_role("button", name="Start the study").click()
    for position in (1, 2):
        pp.wait_for_url(f"**/items/{position}/")
        pp.locator('#answer-form label[for="choice-B"]').click()
        pp.get_by_test_id("save-status").filter(has_text="Saved B").wait_for()
        if position == 1:
            pp.locator('[data-nav="next"]').click()
    with pp.expect_navigation():  # the page and its scripts loaded before "Finalize"
        pp.get_by_role("link", name="Review and finalize").click()
    pp.get_by_role("button", name="Finalize my answers").click()
    pp.get_by_test_id("confirm-yes").click()
    assert pp.get_by_test_id("completion-code").inner_text() == "HBPOOL42"
    assert "taken back automatically" in pp.get_by_test_id("completion-redirect").inner_text()
    # The page sends the participant on by itself, with the code and their id.
    pp.wait_for_url(f"{POOL}/**", timeout=30_000)
    query = parse_qs(urlsplit(pp.url).query)
    assert query == {"cc": ["HBPOOL42"], "pid": [PID]}
    assert "Completed:" in pp.get_by_test_id("pool").inner_text()
    context.close()

    # The admin's time-on-task CSV names the participant's Prolific id.
    response = page.request.get(f"{live_server.url}/baseline/admin/studies/{study.pk}/time.csv")
    assert response.ok
    rows = list(csv.DictReader(io.StringIO(response.text())))
    mine = [r for r in rows if r["participant"] == "prolific-1"]
    assert mine and {(r["pool"], r["pool_id"]) for r in mine} == {("prolific", PID)}
