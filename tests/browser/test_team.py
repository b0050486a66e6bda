"""The team, clicked through in Chromium on the demo (issue #36):

- an invited person sets a password from the mailed link and lands on their home page;
- a used or an expired link is refused with a clear message;
- a deactivated person cannot log in, and their past judgments still show their name;
- the team page's per-person counts equal a count from the records.

Mail: the tasks run eagerly in the live server's thread (Celery's eager mode), so the mail
lands in Django's in-memory outbox, which the test reads; tests/team/test_mail.py sends one
through a real worker process.
"""

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.utils import timezone
from playwright.sync_api import expect

from annotation.comparison.models import ComparisonPair, PairAssignment
from core.roles import Role
from core.team import services
from core.team.models import Invitation
from heartbench_site.management.commands.demo_setup import DEMO_ACCOUNTS
from tests.browser.actions import submit
from tests.browser.role_pages import BLOCKING, axe_violations, build_demo, sign_in
from tests.team.test_team_page import expected_work

pytestmark = pytest.mark.browser
LINK = re.compile(r"https?://\S+/team/join/\S+/")
PASSWORD = "hazel-window-ledger-52"


@pytest.fixture
def db_open(transactional_db, release_dir, demo_providers):
    """The demo's data, committed so the live server's thread sees it (built once per
    process, copied back in for each test: tests/demo_data.py)."""
    return build_demo(release_dir)


@pytest.fixture
def eager(settings):
    from heartbench_site.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = True
    app.conf.task_always_eager = True
    mail.outbox = []
    yield
    app.conf.task_always_eager = False


def log_in(page, base, username, password):
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    submit(page, page.get_by_role("button", name="Log in"))


def test_an_invited_person_sets_a_password_from_the_mailed_link_and_lands_home(
    browser, live_server, db_open, eager
):
    context, page = sign_in(browser, live_server, db_open[Role.ADMIN])
    page.goto(f"{live_server.url}/")
    page.get_by_test_id("team-link").click()
    page.get_by_test_id("invite-link").click()
    page.get_by_label("Email address").fill("noor@lab.example")
    page.get_by_label("Audit expert").check()
    submit(page, page.get_by_role("button", name="Send the invitation"))
    assert "Invitation queued for noor@lab.example" in page.inner_text("main")
    assert "noor@lab.example" in page.get_by_test_id("invitations").inner_text()
    context.close()

    (message,) = [m for m in mail.outbox if m.to == ["noor@lab.example"]]
    link = LINK.search(message.body).group(0)
    assert link.startswith(live_server.url)  # the address the admin's browser used

    newcomer = browser.new_context(viewport={"width": 1280, "height": 800})
    page = newcomer.new_page()
    page.goto(link)
    assert "Audit expert" in page.inner_text("main")
    page.get_by_label("Username").fill("noor")
    page.locator("#id_password1").fill("walnut-meadow-compass-81")
    page.locator("#id_password2").fill("walnut-meadow-compass-81")
    submit(page, page.get_by_role("button", name="Create my account"))
    assert page.url == f"{live_server.url}/"
    page.locator('[data-role="audit_expert"]').wait_for()
    assert "noor" in page.get_by_test_id("nav-roles").inner_text()
    newcomer.close()
    assert Invitation.objects.get(email="noor@lab.example").state == "accepted"


def test_a_used_or_expired_link_is_refused_with_a_clear_message(
    browser, live_server, db_open, eager
):
    admin = db_open[Role.ADMIN]
    used = services.invitation_create(
        email="used@lab.example", roles=["arbitrator"], invited_by=admin, site_url=live_server.url
    )
    services.invitation_accept(
        invitation_id=used.pk, nonce=used.nonce, username="used", password="birch-lamp-67x"
    )
    late = services.invitation_create(
        email="late@lab.example", roles=["arbitrator"], invited_by=admin, site_url=live_server.url
    )
    Invitation.objects.filter(pk=late.pk).update(expires_at=timezone.now() - timedelta(hours=1))
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(services.invitation_link(used))
    refused = page.get_by_test_id("invitation-refused")
    assert "already been used" in refused.inner_text()
    assert page.get_by_role("button", name="Create my account").count() == 0
    page.goto(services.invitation_link(late))
    assert "expired on" in page.get_by_test_id("invitation-refused").inner_text()
    assert "Ask the admin to send it again" in page.inner_text("main")
    context.close()


def test_a_deactivated_person_cannot_log_in_and_their_judgments_keep_their_name(
    browser, live_server, db_open
):
    judged = (
        PairAssignment.objects.filter(
            judgment__isnull=False, pair__status=ComparisonPair.Status.ESCALATED
        )
        .select_related("annotator", "pair")
        .order_by("pk")
        .first()
    )
    assert judged is not None, "the demo has an escalated pair with a judgment"
    person = judged.annotator
    context, page = sign_in(browser, live_server, db_open[Role.ADMIN])
    page.goto(f"{live_server.url}/team/")
    page.locator(f'[data-username="{person.username}"] a').click()
    submit(page, page.get_by_role("button", name=f"Deactivate {person.username}"))
    assert "can no longer log in" in page.inner_text("main")
    expect(page.get_by_test_id("deactivated")).to_be_visible()
    context.close()

    # Their right password (the demo's extra annotators have their own), refused all the same.
    person.set_password(PASSWORD)
    person.save(update_fields=["password"])
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    log_in(page, live_server.url, person.username, PASSWORD)
    assert "/accounts/login/" in page.url
    expect(page.get_by_test_id("login-error")).to_be_visible()
    context.close()

    context, page = sign_in(browser, live_server, db_open[Role.ARBITRATOR])
    page.goto(f"{live_server.url}/arbitration/pairs/{judged.pair_id}/")
    assert person.username in page.get_by_test_id("judgments").inner_text()
    context.close()


def test_the_team_pages_counts_equal_a_count_from_the_records(browser, live_server, db_open):
    context, page = sign_in(browser, live_server, db_open[Role.ADMIN])
    page.goto(f"{live_server.url}/team/")
    rows = page.get_by_test_id("person-row")
    seen, busy = 0, 0
    for i in range(rows.count()):
        row = rows.nth(i)
        username = row.get_attribute("data-username")
        user = get_user_model().objects.get(username=username)
        shown = {}
        for item in row.locator("[data-queue]").all():
            opened = item.get_attribute("data-open")
            shown[item.get_attribute("data-queue")] = (
                int(opened) if opened else None,
                int(item.get_attribute("data-done")),
            )
            # What a person reads says the same as the attributes.
            assert item.inner_text().endswith(item.get_attribute("data-done"))
        assert shown == expected_work(user), username
        seen += 1
        busy += bool(shown)
    assert seen >= len(DEMO_ACCOUNTS) - 1 and busy >= 5
    context.close()


def serious(page, base) -> list[str]:
    page.wait_for_load_state("load")
    return [
        f"{page.url}: {v['id']} {v['help']} {v['targets']}"
        for v in axe_violations(page, base)
        if v["impact"] in BLOCKING
    ]


def test_the_team_pages_have_no_serious_accessibility_problem(browser, live_server, db_open):
    admin = db_open[Role.ADMIN]
    invitation = services.invitation_create(
        email="axe@lab.example", roles=["arbitrator"], invited_by=admin, site_url=live_server.url
    )
    problems = []
    context, page = sign_in(browser, live_server, admin)
    for path in ("/team/", "/team/invite/", f"/team/people/{db_open[Role.ARBITRATOR].pk}/"):
        page.goto(f"{live_server.url}{path}")
        problems += serious(page, live_server.url)
    context.close()
    anonymous = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    for url in (
        services.invitation_link(invitation),
        f"{live_server.url}/accounts/password-reset/",
    ):
        anonymous.goto(url)
        problems += serious(anonymous, live_server.url)
    anonymous.context.close()
    assert not problems, "\n".join(problems)
