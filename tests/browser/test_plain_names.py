"""The pages people work in name things in words, and none scrolls sideways (issue 32).

On the populated demo, built once for this module, each demo account walks every page it
reaches by links from its home (tests/browser/role_pages.py: same origin, GET only, no
logout and no download, a few URLs of each shape), once, at 1280 × 800. The participant,
whose study lies behind forms, also consents, goes past the briefing, answers every
practice item and starts the study, and the walk goes on from each page this opens. The tests
then read what the walk saw:

- the visible text (``document.body.innerText``) of every page of the participant and of
  every expert role holds no record id (``CHAR_08``, ``SCN_…``, ``MEM_…``, ``Q_…``: any
  token with an underscore), no snake_case token and no citation of the paper's
  sections (seed 000, App. D.2, §2.4, Table 2, Figure 2): a citation an expert may want
  sits behind a closed help toggle (``{% protocol_ref %}``), and a participant's page
  has none at all, hidden or not;
- the admin's pages cite no paper section in their visible text either (record ids are
  the admin's work: imports, exports and runs name them);
- no page of any role, the admin's included, is wider than the 1280-pixel window.

Each test gathers every finding first and fails once, listing them all with the page's
URL and the text around each, so one run shows the whole list; the list is also written
to test-output/plain-names/<test>.txt, with the pages each role's walk opened.

Exceptions, on purpose, taken out of the text before the scan of ids and slugs:

- e-mail addresses (``first_last@example.org`` is an address a person reads and types,
  not a slug);
- URL paths, a token starting with ``/`` (the API index lists the endpoints a script
  calls, ``/api/items/{item_id}/``: a path is typed into a client, not read as a name);
- file names with a data file's extension (a record's source, "demo:
  demo_standin_characters.json": the name of the file it was imported from, which a
  person looks for by that name).
"""

import json
import re
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Error as PlaywrightError

from core.roles import Role
from heartbench_site.management.commands.demo_setup import DEMO_ACCOUNTS
from tests.browser import committed
from tests.browser.actions import submit
from tests.browser.role_pages import MAIN_PAGES, Walk, build_demo, sign_in
from tests.conftest import TEST_OUTPUT, offline_demo_providers

pytestmark = pytest.mark.browser

#: Everyone who works in the pages but the admin: the scan of ids and slugs covers them.
WORKING_ROLES = (
    Role.PRIMARY_ANNOTATOR,
    Role.ARBITRATOR,
    Role.SCENARIO_REVIEWER,
    Role.MEMORY_REVIEWER,
    Role.AUDIT_EXPERT,
    Role.AUDIT_ADJUDICATOR,
    Role.BASELINE_PARTICIPANT,
    Role.OBSERVER,
)

#: How far each role's walk goes: enough for every view a role reaches (the admin reaches
#: the most), a few objects of each.
WALK_BOUNDS = {"max_pages": 60, "per_shape": 2}
ADMIN_WALK_BOUNDS = {"max_pages": 120, "per_shape": 1}

#: A token with an underscore: a record id (``CHAR_08``, ``SCN_SCHOOL_AGE_3``,
#: ``MEM_CHAR_01_0001``, ``Q_CHAR_01_SCN_ADOLESCENCE_6``) or a slug (``school_age``,
#: ``content_summary``). Matched whole, so an id inside an id is one finding.
UNDERSCORED = re.compile(r"[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*[A-Za-z0-9]")
CITATION = re.compile(
    r"\bseed\s*0\d\d"
    r"|\bApp(?:endix|\.)\s*[A-L](?:\.\d+)*\b"
    r"|§\s*\d+(?:\.\d+)*"
    r"|\bTables?\s+\d+"
    r"|\bFig(?:ure|\.)?s?\s+\d+"
    r"|\bSections?\s+\d+(?:\.\d+)*",
    re.IGNORECASE,
)
#: Taken out of the text before the id scan, on purpose (see the module's docstring).
EXCEPTIONS = (
    ("<e-mail>", re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")),
    ("<path>", re.compile(r"(?<![\w/.])/[\w{]\S*")),
    ("<file>", re.compile(r"\b[\w.-]+\.(?:json|jsonl|csv|tsv|txt|ya?ml|zip)\b")),
)


def kind_of_id(token):
    if re.fullmatch(r"[a-z][a-z0-9_]*", token):
        return "snake_case"
    for prefix, kind in (("Q_", "question id"), ("MEM_", "memory id"), ("SCN_", "scenario id")):
        if token.startswith(prefix):
            return kind
    return "character id" if re.match(r"CHAR_\d", token) else "id"


def report(name, lines):
    """Write ``lines`` to test-output/plain-names/NAME.txt (empty when all is well)."""
    folder = TEST_OUTPUT / "plain-names"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.txt").write_text("".join(f"{line}\n" for line in lines))


def snippet(text, match, around=40):
    start, end = max(0, match.start() - around), min(len(text), match.end() + around)
    return " ".join(text[start:end].split())


def id_findings(text):
    for placeholder, pattern in EXCEPTIONS:
        text = pattern.sub(placeholder, text)
    return [
        f"{kind_of_id(m.group(0))} {m.group(0)!r}: …{snippet(text, m)}…"
        for m in re.finditer(rf"(?<![A-Za-z0-9_]){UNDERSCORED.pattern}(?![A-Za-z0-9_])", text)
    ]


def citation_findings(text):
    return [f"citation {m.group(0)!r}: …{snippet(text, m)}…" for m in CITATION.finditer(text)]


def take_part(walk):
    """The participant's study pages behind its forms: consent, briefing, a practice
    item answered (its feedback shown), the study started; the walk goes on from each.
    Returns what stopped it, if anything (the walk's other findings still count)."""
    page, base = walk.page, walk.base
    consent = next((p.url for p in walk.seen if p.url.endswith("/consent/")), None)
    if consent is None:
        return ["no consent page reached from the participant's home"]
    step = "consent"
    try:
        page.goto(f"{base}{consent}")
        submit(page, page.locator('main button[name="decision"][value="agree"]'))
        walk.run(urlsplit(page.url).path)  # the briefing
        step = "briefing"
        submit(page, page.locator("main form button[type=submit]").first)
        step = "practice"
        practice = urlsplit(page.url).path
        # "Check my answer" shows the feedback in place (htmx, no navigation); "Start the
        # study" appears only once every practice item has an answer, so answer each one,
        # following "Next practice item" until there is none.
        start = page.locator('main form[action$="/start/"] button')
        while True:
            page.locator("#practice-form label").first.click()
            page.get_by_role("button", name="Check my answer").click()
            page.get_by_test_id("practice-feedback").wait_for()
            following = page.get_by_role("link", name="Next practice item")
            if start.count() or not following.count():
                break
            with page.expect_navigation():
                following.click()
        walk.run(practice)  # each practice item with its feedback, and the other ones
        step = "start"
        page.goto(f"{base}{practice}")
        submit(page, start)
        walk.run(urlsplit(page.url).path)  # the first item, and every item linked from it
    except PlaywrightError as error:
        return [f"baseline_participant stuck at the {step} step on {page.url}: {error}"]
    return []


def open_a_citation(page, base):
    """The pipeline's visible text before and after the admin clicks its first "?"."""
    page.goto(f"{base}/pipeline/")
    before = page.locator("main").inner_text()
    page.locator("main [data-protocol-ref]").first.click()
    return before, page.locator("main").inner_text()


@pytest.fixture(scope="module")
def walked(browser, live_server, django_db_setup, django_db_blocker, release_dir):
    """Each role's pages as the walk saw them: the demo is built and committed (the live
    server's thread reads it), walked once by every account, then the database is put back
    as it was (``committed``)."""
    with django_db_blocker.unblock(), offline_demo_providers():
        seeded = committed.snapshot()
        try:
            users = build_demo(release_dir)
            pages, stuck, citation = {}, [], None
            for _username, role, _password in DEMO_ACCOUNTS:
                bounds = ADMIN_WALK_BOUNDS if role == Role.ADMIN else WALK_BOUNDS
                context, page = sign_in(browser, live_server, users[role])
                try:
                    walk = Walk(page, live_server.url, **bounds)
                    walk.run("/")
                    if role == Role.BASELINE_PARTICIPANT:
                        stuck += take_part(walk)
                    if role == Role.ADMIN:
                        citation = open_a_citation(page, live_server.url)
                    pages[role] = walk.seen
                finally:
                    context.close()
        finally:
            committed.restore(seeded)
    report(
        "walked",
        [f"{role.value} {p.status} {p.url}" for role, seen in pages.items() for p in seen],
    )
    folder = TEST_OUTPUT / "plain-names"
    (folder / "pages.json").write_text(
        json.dumps(
            {
                role.value: [{"url": p.url, "text": p.text} for p in seen]
                for role, seen in pages.items()
            },
            indent=1,
        )
    )
    return {"pages": pages, "stuck": stuck, "citation": citation}


def test_the_walk_reaches_each_roles_main_pages(walked):
    missing = list(walked["stuck"])
    for role, seen in walked["pages"].items():
        urls = {page.url for page in seen}
        for name, start, _links in MAIN_PAGES[role]:
            if start not in urls and name != "not-found":
                missing.append(f"{role.value} {name}: {start} not reached from the home page")
        missing += [f"{role.value} {page.url}: {page.wide}" for page in seen if not page.status]
    report("missing", missing)
    assert not missing, "\n".join(missing)


def test_a_citation_shows_when_its_help_toggle_is_clicked(walked):
    before, after = walked["citation"]
    assert "HEART-Bench paper" not in before
    assert "HEART-Bench paper, Figure 2" in after


def test_working_pages_show_no_id_slug_or_paper_citation(walked):
    hits = []
    for role in WORKING_ROLES:
        for page in walked["pages"][role]:
            found = id_findings(page.text) + citation_findings(page.text)
            if role == Role.BASELINE_PARTICIPANT:
                # Not even behind a help toggle: a participant is never sent to the paper.
                found += [f"help toggle: {text!r}" for text in page.help_text]
            hits += [f"{role.value} {page.url}: {line}" for line in found]
    report("working-pages", hits)
    assert not hits, f"{len(hits)} ids, slugs or citations in view:\n" + "\n".join(hits)


def test_admin_pages_cite_the_paper_only_behind_help_toggles(walked):
    hits = [
        f"admin {page.url}: {line}"
        for page in walked["pages"][Role.ADMIN]
        for line in citation_findings(page.text)
    ]
    report("admin-pages", hits)
    assert not hits, f"{len(hits)} citations in view:\n" + "\n".join(hits)


def test_no_page_of_any_role_scrolls_sideways_at_1280(walked):
    wide = [
        f"{role.value} {page.url}: {page.scroll_width}px wide in a {page.inner_width}px "
        f"window; sticking out: {', '.join(page.wide) or '?'}"
        for role, seen in walked["pages"].items()
        for page in seen
        if page.scrolls_sideways
    ]
    report("sideways", wide)
    assert not wide, f"{len(wide)} pages scroll sideways:\n" + "\n".join(wide)
