"""htmx and Bootstrap come from static/, vendored at the versions package.json pins;
no template loads a script or stylesheet from another host (lab machines may be offline)."""

import json
import re
from pathlib import Path

from django.contrib.staticfiles import finders
from django.urls import reverse

from core.roles import Role

ROOT = Path(__file__).resolve().parents[2]
VENDORED = [
    "vendor/bootstrap/css/bootstrap.min.css",
    "vendor/bootstrap/js/bootstrap.bundle.min.js",
    "vendor/htmx/htmx.min.js",
    "app/heartbench.css",
    "app/heartbench.js",
]
EXTERNAL = re.compile(
    r"""<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""",
    re.IGNORECASE,
)
CSS_IMPORT = re.compile(r"""@import\s+(?:url\()?["']?(?:https?:)?//""", re.IGNORECASE)


def test_vendored_assets_are_found_by_staticfiles():
    for path in VENDORED:
        assert finders.find(path), path


def test_vendored_versions_match_package_json():
    pinned = json.loads((ROOT / "package.json").read_text())["devDependencies"]
    lock = json.loads((ROOT / "package-lock.json").read_text())["packages"]
    versions = dict(
        line.split() for line in (ROOT / "static/vendor/VERSIONS.txt").read_text().splitlines()
    )
    for package, version in pinned.items():
        assert re.fullmatch(r"\d+\.\d+\.\d+", version), f"{package} must be pinned exactly"
        assert lock[f"node_modules/{package}"]["version"] == version
        assert versions[package] == version
    htmx = (ROOT / "static/vendor/htmx/htmx.min.js").read_text()
    assert f'version:"{pinned["htmx.org"]}"' in htmx.replace(" ", "")
    bootstrap = (ROOT / "static/vendor/bootstrap/css/bootstrap.min.css").read_text()
    assert f"Bootstrap  v{pinned['bootstrap']}" in bootstrap


def test_no_template_loads_anything_from_another_host():
    templates = sorted((ROOT / "templates").rglob("*.html"))
    assert templates
    for template in templates:
        text = template.read_text()
        assert not EXTERNAL.search(text), f"{template} loads from another host"
        assert not CSS_IMPORT.search(text), template
    for css in (ROOT / "static/app").glob("*.css"):
        assert not CSS_IMPORT.search(css.read_text()), css


def test_rendered_pages_load_htmx_and_bootstrap_locally(client_for):
    body = client_for(Role.ADMIN).get(reverse("home")).content.decode()
    for path in VENDORED:
        assert f"/static/{path}" in body, path
    assert not EXTERNAL.search(body)
    assert 'hx-headers=\'{"X-CSRFToken": "' in body


def test_vendor_script_reproduces_from_the_lock_file():
    script = (ROOT / "scripts/vendor_static.sh").read_text()
    assert "npm ci" in script and "package-lock.json" in script
    for path in VENDORED[:3]:
        assert Path(path).name in script, path
