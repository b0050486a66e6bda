"""The screenshots the guides show (issue #36), taken in Chromium on the demo's data.

Each screenshot is the page a guide describes, as its role opens it: a study item on a
phone (the participant's guide), the blinded comparison (annotators), an escalated pair's
arbitration (arbitrators), the pipeline page and a generation run page (the lab admin's
guide). The test writes them to docs/img/<name>.png, the files the guides embed and the
site build checks (tests/site/test_docs.py: the guides embed exactly these). Run it again
after a change to one of these pages and commit the new PNGs.
"""

import os
import struct
from pathlib import Path

import pytest

from core.roles import Role
from humanbaseline import services
from humanbaseline.demo import DEMO_STUDY_NAME
from humanbaseline.models import BaselineStudy
from tests.browser.role_pages import LAPTOP, PHONE, build_demo, follow, sign_in

pytestmark = pytest.mark.browser

IMAGES = Path(__file__).resolve().parents[2] / "docs" / "img"

#: name → (role, screen, start path, links to follow, the heading the page must show)
SCREENSHOTS = {
    "participant-item-phone": (Role.BASELINE_PARTICIPANT, PHONE, None, [], "Item 1 of"),
    "comparison": (
        Role.PRIMARY_ANNOTATOR,
        LAPTOP,
        "/compare/",
        [r"^/compare/[0-9a-f-]{36}/$"],
        "Compare the candidates for",
    ),
    "arbitration": (
        Role.ARBITRATOR,
        LAPTOP,
        "/arbitration/",
        [r"^/arbitration/pairs/\d+/$"],
        "×",
    ),
    "pipeline": (Role.ADMIN, LAPTOP, "/pipeline/", [], "The pipeline"),
    "run": (Role.ADMIN, LAPTOP, "/corpus/generation/", [r"^/corpus/generation/\d+/$"], "run"),
}


@pytest.fixture
def populated(transactional_db, release_dir, demo_providers):
    """The demo's data, committed so the live server's thread sees it."""
    return build_demo(release_dir)


def study_item_path(populated) -> tuple[object, str]:
    """A participant of the demo study who has consented and answered the practice items,
    and the path of their first study item."""
    study = BaselineStudy.objects.get(name=DEMO_STUDY_NAME)
    p = services.participant_account_create(
        study=study, username="docs-participant", password="a-long-study-password-42"
    )
    p = services.consent_decide(participation=p, agree=True, version=study.consent_version)
    p = services.briefing_complete(participation=p)
    for item in study.items.filter(is_practice=True):
        services.practice_answer(participation=p, position=item.position, choice="A")
    p = services.baseline_session_start(participation=p)
    return p.user, f"/baseline/s/{study.pk}/items/1/"


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n"), f"{path.name} is not a PNG"
    return struct.unpack(">II", data[16:24])


def test_the_guides_screenshots_are_taken_on_the_demo(browser, live_server, populated):
    IMAGES.mkdir(parents=True, exist_ok=True)
    for name, (role, screen, start, links, heading) in SCREENSHOTS.items():
        user = populated[role]
        if start is None:
            user, start = study_item_path(populated)
        context, page = sign_in(browser, live_server, user, viewport=screen)
        page.goto(f"{live_server.url}{start}")
        for pattern in links:
            assert follow(page, live_server.url, pattern), f"{name}: no link {pattern} on {start}"
        page.wait_for_load_state("load")
        title = page.get_by_role("heading", level=1).first.inner_text()
        assert heading in title, f"{name}: {page.url} shows {title!r}"
        assert page.get_by_test_id("help-link").count() == 1, f"{name}: no help link"
        target = IMAGES / f"{name}.png"
        # Written beside it, then moved over it in one step: the strict build of the guides
        # (tests/site/test_docs.py) may run at the same moment in another process, and
        # must never find the image missing or half written.
        fresh = target.with_name(f".{name}.{os.getpid()}.png")
        page.screenshot(path=str(fresh))
        os.replace(fresh, target)
        context.close()
        assert png_size(target) == (screen["width"], screen["height"]), name
