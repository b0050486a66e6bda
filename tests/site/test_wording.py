"""Plain English in what people read: no "item(s)" or "memory(ies)" plurals, and no
doubled phrases, in the templates or in the apps' messages (issue 21).

Scanned: every template, and every string literal of the apps' Python (docstrings and
comments are for developers and are skipped). NOTE for whoever merges issue 21: this test
lists every offender as file:line; before every helper's branch is merged it fails on
templates other helpers own (audit, mcq, baseline report, arbitration).
"""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APPS = ["adjudication", "agreement", "annotation", "audit", "evaluation", "heartbench_site"]
APPS += ["humanbaseline", "llm"]
PARENTHESISED_PLURAL = re.compile(r"\w\((?:s|es|ies)\)")
DOUBLED = re.compile(r"\b(by the arbitrator by|(\w{3,}) \2(?![-\w]))", re.IGNORECASE)
# Text sent to a model, not shown to a person; its wording is part of a versioned prompt.
MODEL_FACING = {"audit/memory_quality/repair.py"}


def docstring_nodes(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                yield body[0].value


def python_strings(path: Path):
    """(line, text) of each string literal of ``path`` that is not a docstring."""
    tree = ast.parse(path.read_text(), filename=str(path))
    skip = {id(node) for node in docstring_nodes(tree)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield node.lineno, node.value


def offenders(pattern) -> list[str]:
    found = []
    for template in sorted((ROOT / "templates").rglob("*.html")):
        for number, line in enumerate(template.read_text().splitlines(), 1):
            # Template tags and variables are code, not words: "{% for s in … %}".
            words = re.sub(r"{[%{#].*?[%}#]}", " | ", line)
            words = re.sub(r"<[^>]*>?|^[^<]*>", " ", words)  # markup: class="btn btn-sm"
            if pattern.search(words):
                found.append(f"{template.relative_to(ROOT)}:{number}")
    for app in APPS:
        for source in sorted((ROOT / app).rglob("*.py")):
            relative = str(source.relative_to(ROOT))
            if "/migrations/" in relative or relative in MODEL_FACING:
                continue
            for number, text in python_strings(source):
                if pattern.search(text):
                    found.append(f"{relative}:{number}")
    return found


def test_no_parenthesised_plurals_in_what_people_read():
    found = offenders(PARENTHESISED_PLURAL)
    assert not found, "write '1 item' / '3 items' (pluralize, or counted()):\n" + "\n".join(found)


def test_no_doubled_words_in_what_people_read():
    found = offenders(DOUBLED)
    assert not found, "doubled words:\n" + "\n".join(found)


def test_the_scan_finds_a_plural_it_should():
    """The control: the pattern matches what the issue saw."""
    assert PARENTHESISED_PLURAL.search("1 study(ies) to take")
    assert PARENTHESISED_PLURAL.search("3 pair(s) awaiting")
    assert not PARENTHESISED_PLURAL.search("TIMEOUT (s) per request")
    assert DOUBLED.search("Adopted by the arbitrator by arbitrator")
