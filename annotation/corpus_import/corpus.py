"""The parsed, validated content of one import, before it touches the database.

Records are plain dicts of model field values (fast enough for 11,000 memories of
~3,300 characters) keyed by their natural key, each with the place it came from so a
later conflict can name both files.
"""

from dataclasses import dataclass, field
from enum import StrEnum

from annotation.corpus_import.problems import ImportProblem, Problems


class FileKind(StrEnum):
    SCENARIOS = "scenarios"
    REFERENCES = "references"
    MCQ = "mcq"
    ACTIVATIONS_STEP1 = "activations_step1"
    ACTIVATIONS_STEP2 = "activations_step2"
    CHARACTERS = "characters"
    MEMORY_STORAGE = "memory_storage"


@dataclass(frozen=True)
class Origin:
    file: str
    record: str


@dataclass
class FileReport:
    name: str
    kind: FileKind | None = None
    records: int = 0


@dataclass
class ParsedCorpus:
    problems: list[ImportProblem] = field(default_factory=list)
    files: list[FileReport] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    # natural key -> (fields, origin)
    profiles: dict = field(default_factory=dict)
    memories: dict = field(default_factory=dict)
    scenarios: dict = field(default_factory=dict)
    references: dict = field(default_factory=dict)
    mcq_items: dict = field(default_factory=dict)
    activations: dict = field(default_factory=dict)
    # (character, scenario, family) -> an imported candidate's fields
    candidates: dict = field(default_factory=dict)
    # Storage-format memories whose header omits the trait label; resolved against the
    # character's other memories or its profile before they join ``memories``.
    unlabelled_memories: list = field(default_factory=list)
    # Every scenario id a file defined, valid or not, so that a reference to a scenario
    # whose own record is broken is not reported a second time as "unknown".
    mentioned_scenarios: set = field(default_factory=set)
    _file_problems: dict = field(default_factory=dict)

    def problems_for(self, file: str) -> Problems:
        if file not in self._file_problems:
            self._file_problems[file] = Problems(file, self.problems)
        return self._file_problems[file]

    def close(self) -> None:
        for problems in self._file_problems.values():
            problems.close()

    def add(self, kind: str, key, fields: dict, origin: Origin, id_field: str) -> bool:
        """Register a record; a second record with the same key is a problem."""
        table = getattr(self, kind)
        previous = table.get(key)
        if previous is not None:
            first = previous[1]
            where = "earlier in this file" if first.file == origin.file else f"in {first.file}"
            self.problems_for(origin.file).add(
                origin.record,
                id_field,
                f"duplicate: {_show(key)} is already defined {where} (record {first.record})",
            )
            return False
        table[key] = (fields, origin)
        return True


def _show(key) -> str:
    return " / ".join(str(k) for k in key) if isinstance(key, tuple) else str(key)
