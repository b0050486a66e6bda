"""Bytes to a document: UTF-8 and JSON decoding with positions, and kind detection.

The kind is read from the content, never from the file name, so an upload named
``data.json`` imports as well as ``scenarios.json``: scenarios carry ``scenarios``,
ground truth ``pairs``, MCQs ``questions``, activations ``annotations``, characters are
a list (or ``characters``), and the memory storage serialization starts with a
``===MEM_…===`` header line (App. B.5).
"""

import json
import re

from annotation.corpus_import.corpus import FileKind
from annotation.corpus_import.problems import Problems

STORAGE_HEADER = re.compile(r"^===(MEM_[A-Za-z0-9_]+)===[ \t]*\r?$", re.MULTILINE)

JSON_KINDS = {
    "scenarios": FileKind.SCENARIOS,
    "pairs": FileKind.REFERENCES,
    "questions": FileKind.MCQ,
    "annotations": None,  # step 1 or step 2, see activation_step()
    "characters": FileKind.CHARACTERS,
}

_STEP1_RECORD_KEYS = {"activated_count", "eligible_memory_count", "stage1_ratio", "age_batches"}
_STEP2_RECORD_KEYS = {"final_activated_count", "stage1_activated_count", "skipped_finalize"}


def decode_text(data: bytes, problems: Problems) -> str | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        problems.add(
            "",
            "",
            f"not valid UTF-8 at line {line}, column {column} (byte {exc.start}): {exc.reason}",
        )
        return None
    nul = text.find("\x00")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        column = nul - (text.rfind("\n", 0, nul) + 1) + 1
        problems.add("", "", f"contains a NUL character at line {line}, column {column}")
        return None
    return text.removeprefix("\ufeff")


_SURROGATE = re.compile("[\ud800-\udfff]")
# Only a file whose text spells such an escape needs the walk below.
_UNSTORABLE_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})")


def _unstorable_strings(doc, problems: Problems, limit: int = 20) -> bool:
    """Report strings PostgreSQL cannot store: JSON escapes may spell a NUL (\\u0000) or
    an unpaired surrogate (\\ud800) that valid UTF-8 bytes never could. True if any."""
    found = 0
    stack = [("", doc)]
    while stack and found < limit:
        path, value = stack.pop()
        if isinstance(value, dict):
            for key, item in reversed(value.items()):
                child = f"{path}.{key}" if path else str(key)
                stack.append((child, item))
                stack.append((f"{child} (the key)", key))
        elif isinstance(value, list):
            for i in range(len(value) - 1, -1, -1):
                stack.append((f"{path}[{i}]", value[i]))
        elif isinstance(value, str):
            if "\x00" in value:
                problems.add("", path, "contains a NUL character (\\u0000), which cannot be stored")
                found += 1
            elif _SURROGATE.search(value):
                problems.add(
                    "", path, "contains an unpaired surrogate escape (\\ud800-\\udfff), not text"
                )
                found += 1
    return found > 0


class _DuplicateKeys:
    """object_pairs_hook: json.loads silently keeps the last of two equal keys, which
    would merge two characters' activation blocks without a word."""

    def __init__(self):
        self.duplicates: list[str] = []

    def __call__(self, pairs):
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen = set()
            for key, _ in pairs:
                if key in seen:
                    self.duplicates.append(key)
                seen.add(key)
        return obj


def load_json(text: str, problems: Problems):
    hook = _DuplicateKeys()
    try:
        doc = json.loads(text, object_pairs_hook=hook)
    except json.JSONDecodeError as exc:
        problems.add("", "", f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}")
        return None
    except RecursionError:
        problems.add("", "", "invalid JSON: nested too deeply")
        return None
    for key in dict.fromkeys(hook.duplicates):
        problems.add("", key, f'the key "{key}" appears twice in one JSON object')
    if _UNSTORABLE_ESCAPE.search(text) and _unstorable_strings(doc, problems):
        return None
    return doc


def detect_kind(name: str, text: str, problems: Problems):
    """Return (kind, document) or (None, None) after reporting why."""
    stripped = text.lstrip()
    if not stripped:
        problems.add("", "", "the file is empty")
        return None, None
    if stripped[0] in "{[":
        doc = load_json(text, problems)
        if doc is None:
            return None, None
        if isinstance(doc, list):
            return FileKind.CHARACTERS, doc
        if isinstance(doc, dict):
            found = [key for key in JSON_KINDS if key in doc]
            if len(found) == 1:
                kind = JSON_KINDS[found[0]]
                if kind is None:
                    kind = activation_step(name, doc, problems)
                return kind, doc
            if len(found) > 1:
                problems.add("", "", f"unknown file kind: holds both {' and '.join(found)}")
                return None, None
        keys = ", ".join(sorted(map(str, doc))) if isinstance(doc, dict) else type(doc).__name__
        problems.add(
            "",
            "",
            f"unknown file kind: a JSON document with {keys or 'no keys'}; expected an object "
            "with scenarios, pairs, questions, annotations or characters, or a list of characters",
        )
        return None, None
    first_line = stripped.split("\n", 1)[0]
    if STORAGE_HEADER.match(first_line):
        return FileKind.MEMORY_STORAGE, text
    problems.add(
        "",
        "",
        "unknown file kind: neither JSON nor the memory storage serialization "
        "(which starts with a ===MEM_…=== header line)",
    )
    return None, None


def activation_step(name: str, doc: dict, problems: Problems):
    """Step 1 (screening) or step 2 (refinement), App. D.1, from what the file says."""
    hints = set()
    meta = doc.get("dataset_meta")
    if isinstance(meta, dict):
        if meta.get("step") in (1, 2):
            hints.add(meta["step"])
        version = str(meta.get("version", "")).lower()
        if "binary" in version or "screen" in version:
            hints.add(1)
        if "final" in version or "refine" in version or "stage1_source" in meta:
            hints.add(2)
    annotations = doc.get("annotations")
    if isinstance(annotations, dict):
        for per_character in annotations.values():
            if isinstance(per_character, dict) and per_character:
                sample = next(iter(per_character.values()))
                if isinstance(sample, dict):
                    if _STEP1_RECORD_KEYS & sample.keys():
                        hints.add(1)
                    if _STEP2_RECORD_KEYS & sample.keys():
                        hints.add(2)
                break
    if not hints:
        lowered = name.lower().replace("-", "_")
        if "step1" in lowered or "step_1" in lowered:
            hints.add(1)
        if "step2" in lowered or "step_2" in lowered:
            hints.add(2)
    if len(hints) == 1:
        return FileKind.ACTIVATIONS_STEP1 if hints == {1} else FileKind.ACTIVATIONS_STEP2
    if not hints:
        problems.add(
            "",
            "dataset_meta.step",
            "cannot tell step-1 (screening) from step-2 (refinement) activations; set "
            "dataset_meta.step to 1 or 2",
        )
    else:
        problems.add(
            "",
            "dataset_meta",
            "contradictory hints: the file looks like both step-1 and step-2 activations",
        )
    return None
