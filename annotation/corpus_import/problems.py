"""What the importer reports when a file is wrong, in words a curator can act on."""

from dataclasses import asdict, dataclass

# A badly broken 11,000-memory file could yield hundreds of thousands of problems;
# past this many per file the rest are counted, not listed.
MAX_PROBLEMS_PER_FILE = 1000


@dataclass(frozen=True)
class ImportProblem:
    """One defect: which file, which record in it, which field, and what is wrong.

    ``record`` names the record the way a person finds it in the file (its id, or its
    position when it has none); ``field`` is a dotted path inside that record
    (``emotion_signature.intensity``, ``options[2].is_correct``). Either may be empty
    when the problem concerns the whole file or the whole record.
    """

    file: str
    record: str
    field: str
    message: str

    def __str__(self) -> str:
        where = []
        if self.record:
            where.append(f"record {self.record}")
        if self.field:
            where.append(f"field {self.field}")
        if where:
            return f"{self.file}: {', '.join(where)}: {self.message}"
        return f"{self.file}: {self.message}"

    def as_dict(self) -> dict:
        return asdict(self)


class ImportRejected(Exception):
    """The import found problems and wrote nothing. ``errors`` lists every problem."""

    def __init__(self, errors: list[ImportProblem]):
        self.errors = list(errors)
        shown = "; ".join(str(e) for e in self.errors[:3])
        more = f" (and {len(self.errors) - 3} more)" if len(self.errors) > 3 else ""
        super().__init__(f"import rejected, nothing was written: {shown}{more}")


class Problems:
    """Collects the problems of one file (capped at MAX_PROBLEMS_PER_FILE)."""

    def __init__(self, file: str, sink: list[ImportProblem]):
        self.file = file
        self._sink = sink
        self.count = 0

    def add(self, record: str, field: str, message: str) -> None:
        self.count += 1
        if self.count <= MAX_PROBLEMS_PER_FILE:
            self._sink.append(ImportProblem(self.file, record, field, message))

    def close(self) -> None:
        """Report how many problems were past the cap, if any."""
        hidden = self.count - MAX_PROBLEMS_PER_FILE
        if hidden > 0:
            self._sink.append(
                ImportProblem(
                    self.file, "", "", f"{hidden} further problems in this file not listed"
                )
            )

    @property
    def any(self) -> bool:
        return self.count > 0


def describe(value) -> str:
    """A JSON value as a person reads it in a message: type plus a short excerpt."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:37] + "..."
        return '"' + text.replace("\n", "\\n") + '"'
    if isinstance(value, list):
        return f"an array of {len(value)}"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
