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
