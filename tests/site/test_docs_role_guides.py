"""The guides answer their reader's questions (issue #36): each role's guide has a linkable
section for its queue, the steps of one item, the keyboard, what is blinded, what happens
after a submit and how to fix a mistake; the keys the guides list are the keys the pages'
scripts handle; the lab admin's upgrade steps come in a safe order, and the worker-host
page names exactly what a worker needs."""

import re
from pathlib import Path

import pytest

from tests.site.test_docs import DOCS, parse, site  # noqa: F401  (the built site fixture)

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "static"

#: guide page → the sections its reader needs, by anchor.
ROLE_SECTIONS = {
    "participant/index.html": [
        "joining",
        "consent",
        "practice",
        "items",
        "coming-back",
        "finishing",
        "withdrawing",
        "recorded",
    ],
    "annotator/index.html": [
        "queue",
        "comparison",
        "shortcuts",
        "blinding",
        "after-submit",
        "fixing",
        "family-question",
    ],
    "arbitrator/index.html": [
        "queue",
        "arbitration",
        "keyboard",
        "blinding",
        "after-decision",
        "fixing",
    ],
    "reviewers/index.html": ["queue", "steps", "shortcuts", "blinding", "after-submit", "fixing"],
    "audit-experts/index.html": [
        "queue",
        "steps",
        "shortcuts",
        "blinding",
        "after-submit",
        "fixing",
        "memory-reviewers",
    ],
    "observer/index.html": ["queue", "steps", "keyboard", "blinding", "after-submit", "fixing"],
    "lab-admin/upgrades/index.html": ["before", "steps", "docker-compose", "after", "rollback"],
    "lab-admin/worker-hosts/index.html": ["same-machine", "another-machine", "checking"],
}


@pytest.mark.parametrize("page, anchors", ROLE_SECTIONS.items(), ids=list(ROLE_SECTIONS))
def test_each_role_guide_has_the_sections_its_reader_needs(site, page, anchors):  # noqa: F811
    html = site / page
    assert html.is_file(), f"no page {page}"
    missing = [anchor for anchor in anchors if anchor not in parse(html).ids]
    assert not missing, f"{page} lacks the sections {missing}"


def js_letter_keys(path: Path) -> set[str]:
    """The letter and digit keys a script handles: its ``["A", "B", ...].includes(key)``
    lists and its ``key === "1"`` comparisons."""
    text = path.read_text(encoding="utf-8")
    keys = set()
    for listed in re.findall(r"\[([^\]]*)\]\.includes\(key\)", text):
        keys |= set(re.findall(r'"(\w)"', listed))
    keys |= set(re.findall(r'key === "(\w)"', text))
    return keys


def documented_keys(markdown: str, section: str) -> set[str]:
    """The single letters and digits in the first column of the key table under
    ``{#section}`` ("A, B, C" → A, B, C)."""
    body = markdown.split(f"{{#{section}}}", 1)[1].split("\n## ", 1)[0]
    keys = set()
    for row in re.findall(r"^\| ([^|]+) \|", body, re.M):
        keys |= {part.strip() for part in row.split(",") if re.fullmatch(r"\w", part.strip())}
    return keys


@pytest.mark.parametrize(
    "guide, section, script",
    [
        ("annotator/index.md", "shortcuts", "comparison/comparison.js"),
        ("audit-experts/index.md", "shortcuts", "js/labels.js"),
    ],
)
def test_the_keys_a_guide_lists_are_the_keys_its_page_handles(guide, section, script):
    handled = js_letter_keys(STATIC / script)
    assert handled, f"no keys found in {script}: the parser no longer reads it"
    listed = documented_keys((DOCS / guide).read_text(encoding="utf-8"), section)
    assert listed == handled, f"{guide} lists {sorted(listed)}, {script} handles {sorted(handled)}"


def test_the_key_parsers_see_a_key_that_is_missing_or_extra():
    """The control for the test above."""
    table = "## Keys {#k}\n\n| Key | What |\n| --- | --- |\n| A, B | pick |\n| 1 | rate |\n"
    assert documented_keys(table, "k") == {"A", "B", "1"}
    assert js_letter_keys(STATIC / "js" / "baseline.js") == {"A", "B", "C", "D"}


def test_the_upgrade_steps_come_in_a_safe_order():
    """Backup before anything; the old workers stop before the database is migrated; the
    processes start again only after it."""
    steps = (DOCS / "lab-admin" / "upgrades.md").read_text(encoding="utf-8")
    steps = steps.split("{#steps}", 1)[1].split("\n## ", 1)[0]
    order = [
        "**Take a backup**",
        "**Stop the workers, then the web server**",
        "pip install -r requirements.txt",
        "manage.py migrate --noinput",
        "manage.py collectstatic --noinput",
        "**Start the web server, then the workers**",
    ]
    positions = [steps.find(step) for step in order]
    assert -1 not in positions, dict(zip(order, positions, strict=True))
    assert positions == sorted(positions), "the upgrade steps are out of order"
    compose = (DOCS / "lab-admin" / "upgrades.md").read_text(encoding="utf-8")
    compose = compose.split("{#docker-compose}", 1)[1]
    assert compose.index("stop web worker") < compose.index("up -d")


def test_the_worker_host_page_names_what_a_worker_reads_and_nothing_of_the_web():
    page = (DOCS / "lab-admin" / "worker-hosts.md").read_text(encoding="utf-8")
    table = page.split("{#another-machine}", 1)[1].split("Then start the worker", 1)[0]
    needed = set(re.findall(r"^\| `([A-Z_]+)`", table, re.M))
    assert {"DJANGO_SETTINGS_MODULE", "SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL"} <= needed
    assert "EXPORT_ROOT" in needed
    # The web machine's own settings are named only as not needed.
    assert not needed & {"ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS", "STATIC_ROOT"}
    # docker-compose.yml gives the worker service the same variables the page names.
    compose = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    for variable in ("DATABASE_URL", "CELERY_BROKER_URL", "SECRET_KEY"):
        assert f"{variable}:" in compose
