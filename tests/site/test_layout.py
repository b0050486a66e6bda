"""The tree shows the pipeline (issue 17): no source file holds two things (over 600
lines), and no module carries a workflow prefix where a package belongs."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE_ROOTS = (
    "heartbench_site",
    "core",
    "annotation",
    "adjudication",
    "audit",
    "humanbaseline",
    "evaluation",
    "agreement",
    "llm",
)
MAX_LINES = 600
WORKFLOW_PREFIXES = ("review_", "comparison_", "generation_", "mcq_", "label_", "export_")


def _sources():
    for root in SOURCE_ROOTS:
        for path in sorted((ROOT / root).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def test_no_source_file_is_longer_than_600_lines():
    too_long = {
        str(p.relative_to(ROOT)): n
        for p in _sources()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert too_long == {}


def test_no_module_name_carries_a_workflow_prefix():
    prefixed = [
        str(path.relative_to(ROOT))
        for path in _sources()
        if path.name.startswith(WORKFLOW_PREFIXES)
    ]
    assert prefixed == []


def test_every_workflow_package_says_what_lives_where():
    packages = [
        "annotation/corpus",
        "annotation/corpus_import",
        "annotation/character_drafting",
        "annotation/profile_review",
        "annotation/memory_generation",
        "annotation/scenario_review",
        "annotation/generation",
        "annotation/comparison",
        "adjudication/consensus",
        "adjudication/arbitration",
        "adjudication/mcq",
        "adjudication/export",
        "audit/memory_quality",
        "audit/reference_labels",
        "core",
    ]
    silent = [p for p in packages if not (ROOT / p / "__init__.py").read_text().strip()]
    assert silent == []


def test_an_api_is_split_by_resource_and_not_by_read_and_write():
    """Issue 33: a workflow's API is ``api.py`` or an ``api/`` package with one module per
    resource, never ``api_writes.py``/``api_senior.py``-style halves beside it."""
    halves = [
        str(path.relative_to(ROOT))
        for path in _sources()
        if path.name.startswith("api_") and path.name != "api_urls.py"
    ]
    assert halves == []


def test_api_packages_keep_their_schema_examples_apart():
    """In an ``api/`` package the OpenAPI examples live in ``examples.py``, so the endpoint
    modules read as code."""
    inline = [
        str(path.relative_to(ROOT))
        for path in _sources()
        if path.parent.name == "api"
        and path.name != "examples.py"
        and "OpenApiExample(" in path.read_text(encoding="utf-8")
    ]
    assert inline == []
