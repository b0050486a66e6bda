"""Every role's pages on the populated demo: the demo build, signing a role in, its main
pages, a same-origin walk from its home, and axe-core. Shared by the tests that look at
every role's pages (accessibility, plain names, page width) and by single-page tests that
run axe-core."""

import re
from dataclasses import dataclass, field
from urllib.parse import urldefrag, urlsplit

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client

from core.roles import Role
from heartbench_site.management.commands.demo_setup import DEMO_ACCOUNTS
from tests.demo_data import load_demo

AXE = "/static/vendor/axe-core/axe.min.js"
BLOCKING = {"serious", "critical"}

#: The screen sizes the pages are looked at: a laptop (the size every check runs at), a
#: desktop monitor, and a phone held upright.
LAPTOP = {"width": 1280, "height": 800}
DESKTOP = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}
SCREEN_SIZES = {"1280x800": LAPTOP, "1920x1080": DESKTOP, "390x844": PHONE}

# Per role: (page name, start path, links to follow in turn from it). A link is the first
# <a> inside <main> whose href matches; following them reaches a real item of the queue.
MAIN_PAGES = {
    Role.PRIMARY_ANNOTATOR: [
        ("home", "/", []),
        ("comparison-queue", "/compare/", []),
        ("comparison-pair", "/compare/", [r"^/compare/[0-9a-f-]{36}/$"]),
        ("profile-review", "/review/profiles/", [r"^/review/profiles/\w+/$"]),
    ],
    Role.ARBITRATOR: [
        ("home", "/", []),
        ("arbitration-queue", "/arbitration/", []),
        ("arbitration-pair", "/arbitration/", [r"^/arbitration/pairs/\d+/$"]),
        ("profile-adjudication", "/review/profiles/", [r"^/review/profiles/\w+/adjudicate/$"]),
        ("item-review", "/items/", [r"^/items/\d+/$"]),
        ("memory-edit", "/audit/", [r"^/audit/cases/\d+/$"]),
    ],
    Role.SCENARIO_REVIEWER: [
        ("home", "/", []),
        ("scenario-list", "/review/scenarios/", []),
        ("scenario-review", "/review/scenarios/", [r"^/review/scenarios/SCN_\w+/$"]),
    ],
    Role.MEMORY_REVIEWER: [
        ("home", "/", []),
        ("memory-audit-queue", "/audit/", []),
        ("memory-audit-case", "/audit/", [r"^/audit/cases/\d+/$"]),
    ],
    Role.AUDIT_EXPERT: [
        ("home", "/", []),
        ("label-audit", "/audit/labels/", []),
        (
            "label-audit-item",
            "/audit/labels/",
            [r"^/audit/labels/\d+/mine/$", r"^/audit/labels/items/\d+/$"],
        ),
    ],
    Role.AUDIT_ADJUDICATOR: [
        ("home", "/", []),
        ("label-audit", "/audit/labels/", []),
        (
            "label-audit-adjudication",
            "/audit/labels/",
            [r"^/audit/labels/\d+/$", r"^/audit/labels/items/\d+/adjudicate/$"],
        ),
    ],
    Role.BASELINE_PARTICIPANT: [
        ("home", "/", []),
        ("baseline", "/baseline/", []),
        ("baseline-study", "/baseline/", [r"^/baseline/s/\d+/"]),
    ],
    Role.OBSERVER: [
        ("home", "/", []),
        ("observer-tasks", "/audit/observers/tasks/", []),
        ("observer-task", "/audit/observers/tasks/", [r"^/audit/observers/tasks/\d+/$"]),
    ],
    Role.ADMIN: [
        ("home", "/", []),
        ("pipeline", "/pipeline/", []),
        ("characters", "/corpus/characters/", []),
        ("generation-runs", "/corpus/generation/", []),
        ("memory-generation", "/memory-generation/", []),
        ("drafting", "/drafting/", []),
        ("item-review", "/items/", []),
        ("label-audits", "/audit/labels/", []),
        ("baseline-admin", "/baseline/admin/", []),
        ("evaluation-runs", "/evaluation/", []),
        ("export", "/export/", []),
        ("decision-history", "/history/", []),
        ("api-index", "/api/", []),
        ("not-found", "/no-such-page/", []),
    ],
}


def build_demo(release_dir):
    """The demo's data (every workflow at a stage where its pages hold real objects), its
    accounts by role. Call with the database unblocked and committing, so the live
    server's thread sees it, and with the offline demo providers on."""
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    load_demo(release_dir)
    users = get_user_model().objects
    return {role: users.get(username=name) for name, role, _ in DEMO_ACCOUNTS}


def sign_in(browser, live_server, user, viewport=LAPTOP):
    """A browser context holding ``user``'s session, at a 1280 × 800 laptop screen unless
    told (no login form: the login is tested elsewhere, and repeated logins would trip
    the lockout)."""
    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport=viewport)
    cookie = client.cookies["sessionid"]
    context.add_cookies([{"name": "sessionid", "value": cookie.value, "url": live_server.url}])
    page = context.new_page()
    page.set_default_timeout(15_000)
    return context, page


def follow(page, base, pattern):
    for link in page.locator("main a[href]").all():
        href = link.get_attribute("href") or ""
        if re.match(pattern, href):
            page.goto(f"{base}{href}")
            return True
    return False


def axe_violations(page, base):
    # From our own origin: the CSP refuses an inline script, so no add_script_tag(path=).
    # Once per page load: the same page is checked again at another screen size.
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.add_script_tag(url=f"{base}{AXE}")
    return page.evaluate(
        """async () => {
            const result = await axe.run(document);
            return result.violations.map(v => ({
                id: v.id, impact: v.impact, help: v.help,
                targets: v.nodes.slice(0, 5).map(n => n.target.join(' ')),
            }));
        }"""
    )


# --- The walk: every page a role reaches by links from its home ----------------------

#: Paths the walk never opens: logging out; Django's own admin site (its pages are
#: Django's, not this project's); the API beyond its index page (JSON, the schema, and
#: the Swagger page); static files; the guides at /docs/ (MkDocs pages, not the app's:
#: tests/site/test_docs.py checks them and every page's help link into them).
NOT_WALKED = re.compile(r"^/(accounts/logout/|admin/|api/.+|static/|media/|docs/|favicon\.ico)")
#: A link to a file rather than a page (downloads open no page to look at).
DOWNLOAD = re.compile(
    r"(\.(csv|json|jsonl|zip|gz|txt|pdf|png|svg|xlsx|tsv|md)$|/download|/files?/)", re.I
)
DOWNLOAD_QUERY = re.compile(r"(^|&)(format|download)=", re.I)

# A URL's shape: the same view with another object (or another page of a list). The walk
# opens a few URLs of each shape, not every memory of every character.
_SHAPES = (
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<uuid>"),
    (re.compile(r"CHAR_\d+"), "<character>"),
    (re.compile(r"SCN_[A-Z0-9_]+"), "<scenario>"),
    (re.compile(r"MEM_[A-Za-z0-9_]+"), "<memory>"),
    (re.compile(r"\d+"), "<n>"),
)


def url_shape(path, query):
    for pattern, placeholder in _SHAPES:
        path = pattern.sub(placeholder, path)
    keys = sorted({part.split("=", 1)[0] for part in query.split("&") if part})
    return path + ("?" + "&".join(keys) if keys else "")


#: Gathers, in one round trip, what the page tests look at: the visible text (innerText:
#: what a person reads, without what CSS hides), the text behind closed help toggles, the
#: page's width against the window's, the innermost elements that stick out on the right,
#: and the links.
PAGE_FACTS = """() => {
    const scroller = document.scrollingElement;
    const width = window.innerWidth;
    const describe = el => el.tagName.toLowerCase()
        + (el.id ? '#' + el.id : '')
        + (el.classList.length ? '.' + [...el.classList].slice(0, 3).join('.') : '');
    const wide = [];
    if (scroller.scrollWidth > width) {
        for (const el of document.body.querySelectorAll('*')) {
            const box = el.getBoundingClientRect();
            if (box.width === 0 || box.right <= width + 1) continue;
            const child = [...el.children].some(c => c.getBoundingClientRect().right > width + 1);
            if (!child) wide.push(describe(el) + ' (right edge ' + Math.round(box.right) + 'px)');
            if (wide.length >= 5) break;
        }
    }
    return {
        title: document.title,
        text: document.body.innerText,
        helpText: [...document.querySelectorAll('.protocol-ref')]
            .map(ref => ref.textContent.trim()),
        scrollWidth: scroller.scrollWidth,
        innerWidth: width,
        wide: wide,
        links: [...document.querySelectorAll('a[href]')]
            .filter(a => !a.hasAttribute('download'))
            .map(a => a.href),
    };
}"""


@dataclass
class SeenPage:
    url: str  # path and query
    status: int
    title: str
    text: str
    help_text: list[str]
    scroll_width: int
    inner_width: int
    wide: list[str] = field(default_factory=list)

    @property
    def scrolls_sideways(self):
        return self.scroll_width > self.inner_width


class Walk:
    """Opens pages the way a person clicking links would: from the given paths, every
    same-origin page linked from a page already opened (breadth first), up to
    ``max_pages`` pages and ``per_shape`` URLs of one shape; no logout, no download,
    nothing but GET. ``seen`` holds the pages opened, in order; calling :meth:`run` again
    (after, say, a form has moved the person on) goes on from new paths without opening a
    page twice."""

    def __init__(self, page, base, *, max_pages=60, per_shape=2):
        self.page, self.base = page, base
        self.max_pages, self.per_shape = max_pages, per_shape
        self.origin = urlsplit(base)
        self.queued, self.shapes, self.seen = set(), {}, []

    def run(self, *paths):
        queue = [path for path in paths if path not in self.queued]
        self.queued.update(queue)
        while queue and len(self.seen) < self.max_pages:
            self._open(queue.pop(0), queue)
        return self.seen

    def _open(self, url, queue):
        try:
            response = self.page.goto(f"{self.base}{url}")
        except Exception as error:  # a download or an aborted navigation: no page
            self.seen.append(SeenPage(url, 0, "", "", [], 0, 0, [f"not opened: {error}"]))
            return
        content_type = (response.headers.get("content-type", "") if response else "").lower()
        if "text/html" not in content_type:
            return
        try:
            self.page.wait_for_load_state("networkidle", timeout=5_000)
        except Exception:  # a page that polls: what it shows after loading is enough
            pass
        facts = self.page.evaluate(PAGE_FACTS)
        self.seen.append(
            SeenPage(
                url,
                response.status,
                facts["title"],
                facts["text"],
                facts["helpText"],
                facts["scrollWidth"],
                facts["innerWidth"],
                facts["wide"],
            )
        )
        for href in facts["links"]:
            target = self._target(href)
            if target is None:
                continue
            path, query = target
            shape = url_shape(path, query)
            if self.shapes.get(shape, 0) >= self.per_shape:
                continue
            self.shapes[shape] = self.shapes.get(shape, 0) + 1
            full = path + (f"?{query}" if query else "")
            self.queued.add(full)
            queue.append(full)

    def _target(self, href):
        parts = urlsplit(urldefrag(href)[0])
        if (parts.scheme, parts.netloc) != (self.origin.scheme, self.origin.netloc):
            return None
        full = parts.path + (f"?{parts.query}" if parts.query else "")
        if (
            full in self.queued
            or NOT_WALKED.match(parts.path)
            or DOWNLOAD.search(parts.path)
            or DOWNLOAD_QUERY.search(parts.query)
        ):
            return None
        return parts.path, parts.query
