"""The guides (issue #36): a MkDocs site built from docs/, strict (a broken link, image or
anchor fails the build), nothing fetched from another site when a page is viewed, the
screenshots it shows written by the browser test, a README under 200 lines whose links
exist, and a Help link on every page of the app that opens an existing section of the
built site (heartbench_site/help.py)."""

import base64
import hashlib
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from core.roles import Role
from heartbench_site import help as site_help
from tests.browser.test_docs_screenshots import SCREENSHOTS
from tests.factories import UserFactory
from tests.web.test_access_matrix import named_patterns

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = ROOT / "README.md"

#: URL names that answer no page of the app: API endpoints, files and redirects.
NOT_PAGES = {"logout", "favicon", "healthz", "api-me", "api-token", "api-schema"}
NOT_PAGES |= {"docs", "docs-index"}  # the guides themselves


def build(destination: Path, config: Path = ROOT / "mkdocs.yml") -> subprocess.CompletedProcess:
    return subprocess.run(
        # Not --quiet: it hides the warnings, and --strict then has none to count.
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config)]
        + ["-d", str(destination)],
        capture_output=True,
        text=True,
        cwd=config.parent,
        timeout=300,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    destination = tmp_path_factory.mktemp("docs-site")
    done = build(destination)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stdout + done.stderr, done.stdout + done.stderr
    return destination


class Tags(HTMLParser):
    """Each tag's attributes, and every id a page holds."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if attributes.get("id"):
            self.ids.add(attributes["id"])


def parse(path: Path) -> Tags:
    tags = Tags()
    tags.feed(path.read_text(encoding="utf-8"))
    return tags


def test_the_guides_build_strict_without_a_warning(site):
    assert (site / "index.html").is_file()
    assert (site / "participant" / "index.html").is_file()
    assert (site / "lab-admin" / "security" / "index.html").is_file()


@pytest.mark.parametrize(
    "breakage, named",
    [
        ("[a missing page](no-such-page.md)", "no-such-page.md"),
        ("[a missing section](roles.md#no-such-section)", "no-such-section"),
        ("![a missing screenshot](../img/no-such-screenshot.png)", "no-such-screenshot.png"),
    ],
)
def test_a_broken_link_anchor_or_image_fails_the_build(tmp_path, breakage, named):
    """The control: the same build fails, naming what is broken."""
    shutil.copytree(DOCS, tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    page = tmp_path / "docs" / "lab-admin" / "install.md"
    page.write_text(page.read_text() + f"\nSee {breakage}.\n")
    done = build(tmp_path / "site", tmp_path / "mkdocs.yml")
    assert done.returncode != 0
    assert named in done.stdout + done.stderr


EXTERNAL = re.compile(r"^(https?:)?//", re.I)
CSS_EXTERNAL = re.compile(r"""(url\(\s*['"]?\s*(https?:)?//|@import\s+['"]?(https?:)?//)""", re.I)


def test_no_page_fetches_anything_from_another_site(site):
    """Scripts, stylesheets, icons, images and fonts all come from the built site."""
    fetched = []
    for page in site.rglob("*.html"):
        for tag, attributes in parse(page).tags:
            sources = [attributes.get("src")]
            if tag == "link":
                sources.append(attributes.get("href"))
            if tag in ("img", "source"):
                sources += (attributes.get("srcset") or "").split()
            fetched += [
                f"{page.relative_to(site)}: <{tag}> {source}"
                for source in sources
                if source and EXTERNAL.match(source)
            ]
    for sheet in site.rglob("*.css"):
        if CSS_EXTERNAL.search(sheet.read_text(encoding="utf-8", errors="replace")):
            fetched.append(f"{sheet.relative_to(site)}: a url() or @import of another site")
    assert not fetched, "\n".join(fetched)


IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


def test_every_image_the_guides_show_is_a_screenshot_the_browser_test_takes():
    shown = {}
    for page in DOCS.rglob("*.md"):
        for target in IMAGE.findall(page.read_text(encoding="utf-8")):
            shown[(page.parent / target).resolve()] = page.relative_to(DOCS)
    names = {path.name for path in shown}
    assert names == {f"{name}.png" for name in SCREENSHOTS}, (
        "the guides embed exactly the screenshots tests/browser/test_docs_screenshots.py takes"
    )
    for path, page in shown.items():
        assert path.parent == DOCS / "img", f"{page}: {path} is not under docs/img/"
        assert path.is_file(), f"{page}: {path.name} is missing: run the screenshot test"
        assert path.read_bytes().startswith(b"\x89PNG\r\n\x1a\n"), f"{path.name} is not a PNG"


MARKDOWN_LINK = re.compile(r"\]\(([^)\s#]+)(#[^)\s]*)?\)")


def test_the_readme_is_short_and_every_guide_it_links_exists():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 200
    for command in ("make demo", "make test", "mkdocs build"):
        assert command in text
    links = [target for target, _ in MARKDOWN_LINK.findall(text) if "://" not in target]
    assert len(links) >= 8, "the README points to the guides"
    missing = [target for target in links if not (ROOT / target).is_file()]
    assert not missing, f"README links to pages that do not exist: {missing}"
    nav = (ROOT / "mkdocs.yml").read_text()
    assert all(target.removeprefix("docs/") in nav for target in links if target.endswith(".md"))


def page_names():
    names = []
    for name, _ in named_patterns():
        if name.startswith("admin:") or name in NOT_PAGES:
            continue
        if "-api:" in name or name.startswith("api-") and name not in ("api-index", "api-docs"):
            continue
        names.append(name)
    return names


def section_exists(site: Path, section: str) -> str | None:
    """Why the section "page.md#anchor" is not in the built site, or None."""
    page, _, anchor = section.partition("#")
    stem = page.removesuffix(".md")
    index = stem == "index" or stem.endswith("/index")
    html = site / (f"{stem}.html" if index else f"{stem}/index.html")
    if not html.is_file():
        return f"no page {page} ({html.relative_to(site)})"
    if not anchor or anchor not in parse(html).ids:
        return f"no section #{anchor} on {page}"
    return None


def test_every_page_of_the_app_has_a_help_link_to_an_existing_section(site):
    names = page_names()
    assert len(names) > 200  # the walk sees the whole URLconf
    unmapped = [name for name in names if site_help.help_section(name) is None]
    assert not unmapped, (
        "these URLs have no help section: map each (or its namespace) in "
        f"heartbench_site/help.py HELP: {unmapped}"
    )
    broken = []
    for name in names:
        section = site_help.help_section(name)
        why = section_exists(site, section)
        if why:
            broken.append(f"{name} → {section}: {why}")
    for role in Role:
        section = site_help.help_section("home", frozenset({role}))
        why = section_exists(site, section)
        if why:
            broken.append(f"home as {role} → {section}: {why}")
    assert not broken, "\n".join(broken)


def test_a_section_that_is_missing_is_reported(site):
    """The control for the test above."""
    assert section_exists(site, "participant/index.md#items") is None
    assert "no section" in section_exists(site, "participant/index.md#no-such-section")
    assert "no page" in section_exists(site, "lab-admin/no-such-page.md#invitations")


def help_href(response) -> str:
    found = re.search(r'href="([^"]+)"[^>]*data-testid="help-link"', response.content.decode())
    assert found, "the page has no help link"
    return found.group(1)


@pytest.mark.django_db
def test_the_pages_render_their_roles_help_link(site, settings):
    anonymous = Client()
    assert help_href(anonymous.get(reverse("login"))) == "/docs/#guides"
    participant = Client()
    participant.force_login(UserFactory(roles=[Role.BASELINE_PARTICIPANT]))
    assert help_href(participant.get(reverse("home"))) == "/docs/participant/#joining"
    admin = Client()
    admin.force_login(UserFactory(roles=[Role.ADMIN]))
    assert help_href(admin.get(reverse("pipeline"))) == "/docs/lab-admin/pipeline/#pipeline-page"
    several = Client()  # more than two roles: the link is the first entry of the roles menu
    several.force_login(
        UserFactory(roles=[Role.PRIMARY_ANNOTATOR, Role.MEMORY_REVIEWER, Role.AUDIT_EXPERT])
    )
    assert help_href(several.get(reverse("home"))) == "/docs/annotator/#comparison"
    assert help_href(several.get("/no-such-page/")) == "/docs/#guides"
    reviewer = Client()
    reviewer.force_login(UserFactory(roles=[Role.SCENARIO_REVIEWER]))
    href = help_href(reviewer.get(reverse("review:scenario-list")))
    assert href == "/docs/reviewers/scenario-review/#scenario-review"


@pytest.mark.django_db
def test_the_site_serves_the_built_guides_at_docs(site, monkeypatch):
    monkeypatch.setattr(site_help, "DOCS_ROOT", site)
    client = Client()
    guide = client.get("/docs/participant/")
    assert guide.status_code == 200
    body = guide.content.decode()
    assert 'id="items"' in body and "Guide for participants" in body
    # The theme's inline script runs under the site's policy by its hash, and only it.
    inline = re.findall(r"<script>(.*?)</script>", body, re.S)
    assert len(inline) == 1
    digest = base64.b64encode(hashlib.sha256(inline[0].encode()).digest()).decode()
    policy = guide["Content-Security-Policy"]
    assert (
        f"'sha256-{digest}'" in policy
        and "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
    )
    assert client.get("/docs/").status_code == 200
    assert client.get("/docs/img/comparison.png").status_code == 200
    assert client.get("/docs/no-such-guide/").status_code == 404
    assert client.get("/docs/../manage.py").status_code in (400, 404)
    assert client.get("/docs/" + "x" * 300 + ".html").status_code == 404
    assert client.get("/docs/" + "x" * 300 + "/").status_code == 404
    assert client.get("/docs/%00.html").status_code in (400, 404)
