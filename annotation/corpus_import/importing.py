"""Import of the corpus: the public HEART-Bench release, characters files in the dataset
card's layout, and the memory storage serialization (seed 000 App. B.1, B.5, B.7, C.1,
D.1-D.3).

``import_files`` reads every file, validates everything and collects every problem
before it writes anything; with any problem it raises ``ImportRejected`` and the
database is untouched. Otherwise all files are written in one transaction. The rules
for records that already exist are in ``apply``'s docstring.
"""

from pathlib import Path

from annotation.corpus_import.apply import apply_corpus
from annotation.corpus_import.corpus import FileKind, FileReport, ParsedCorpus
from annotation.corpus_import.memory_storage import dump_memory_storage, parse_memory_storage
from annotation.corpus_import.parse_characters import parse_characters
from annotation.corpus_import.parse_release import (
    parse_activations,
    parse_mcq,
    parse_references,
    parse_scenarios,
)
from annotation.corpus_import.problems import ImportProblem, ImportRejected
from annotation.corpus_import.reading import STORAGE_HEADER, decode_text, detect_kind
from annotation.corpus_import.summary import ImportSummary

__all__ = [
    "FileKind",
    "ImportProblem",
    "ImportRejected",
    "ImportSummary",
    "dump_memory_storage",
    "import_files",
    "import_paths",
]

# What a directory contributes: JSON files always (an unrecognised JSON file in a
# corpus folder is an error, not something to skip quietly), text files only when they
# hold the memory storage serialization.
JSON_SUFFIXES = {".json"}
STORAGE_SUFFIXES = {".txt", ".mem"}


def _parse(name: str, kind: FileKind, doc, corpus: ParsedCorpus) -> int:
    if kind == FileKind.SCENARIOS:
        return parse_scenarios(name, doc, corpus)
    if kind == FileKind.REFERENCES:
        return parse_references(name, doc, corpus)
    if kind == FileKind.MCQ:
        return parse_mcq(name, doc, corpus)
    if kind in (FileKind.ACTIVATIONS_STEP1, FileKind.ACTIVATIONS_STEP2):
        return parse_activations(name, doc, corpus, kind)
    if kind == FileKind.CHARACTERS:
        return parse_characters(name, doc, corpus)
    return parse_memory_storage(name, doc, corpus)


def import_files(
    files: list[tuple[str, bytes]], *, source: str = "", as_new_versions: bool = False
) -> ImportSummary:
    """Import ``(name, content)`` pairs; the kind of each file is read from its content.

    ``source`` is recorded with the file name on every row the import creates or
    changes (e.g. ``"import job 12"``). ``as_new_versions`` adds a changed profile that
    review protects as the next version for review instead of refusing it (``apply``).
    """
    corpus = ParsedCorpus()
    for name, data in files:
        report = FileReport(name)
        corpus.files.append(report)
        problems = corpus.problems_for(name)
        text = decode_text(bytes(data), problems)
        if text is None:
            continue
        kind, doc = detect_kind(name, text, problems)
        del text
        if kind is None:
            continue
        report.kind = kind
        report.records = _parse(name, kind, doc, corpus)
    summary = ImportSummary(
        files=[{"name": f.name, "kind": str(f.kind), "records": f.records} for f in corpus.files]
    )
    apply_corpus(corpus, source=source, summary=summary, as_new_versions=as_new_versions)
    return summary


def import_paths(
    paths: list[Path], *, source: str = "", as_new_versions: bool = False
) -> ImportSummary:
    """Import files and directories. A directory contributes its own importable files
    (the release folder imports as a whole) but not its subdirectories, so the
    release's ``history/`` copy of the ground truth is not imported over the current
    one; everything left out is listed in ``summary.skipped``."""
    chosen: list[Path] = []
    skipped: list[dict] = []
    missing: list[ImportProblem] = []
    for path in map(Path, paths):
        if path.is_dir():
            for child in sorted(path.iterdir()):
                reason = _skip_reason(child)
                if reason:
                    skipped.append({"path": str(child), "reason": reason})
                else:
                    chosen.append(child)
        elif path.is_file():
            chosen.append(path)
        else:
            missing.append(ImportProblem(str(path), "", "", "no such file or directory"))
    if missing:
        raise ImportRejected(missing)
    if not chosen:
        raise ImportRejected(
            [ImportProblem(", ".join(map(str, paths)), "", "", "no importable files")]
        )
    summary = import_files(
        [(str(p), p.read_bytes()) for p in chosen], source=source, as_new_versions=as_new_versions
    )
    summary.skipped = skipped
    return summary


def _skip_reason(path: Path) -> str | None:
    if path.is_dir():
        return "a subdirectory; name it explicitly to import it"
    suffix = path.suffix.lower()
    if suffix in JSON_SUFFIXES:
        return None
    if suffix in STORAGE_SUFFIXES:
        with path.open("rb") as fh:
            head = fh.read(64 * 1024).decode("utf-8", errors="replace").lstrip("\ufeff").lstrip()
        if STORAGE_HEADER.match(head.split("\n", 1)[0]):
            return None
        return "a text file without ===MEM_…=== memory blocks"
    return "not an importable file (JSON or memory storage text)"
