"""The export as data tools load it (issue #23): Parquet files beside the JSON, JSONL and
CSV, and a dataset card (``README.md``) whose YAML header names the configurations and
their split, so ``datasets.load_dataset(path_to_export, name)`` and
``pandas.read_parquet`` read the files directly.

Configurations (split ``test``: a benchmark is evaluated, not trained on):

``model_facing`` (default)
    The MCQ items as evaluated models see them: the columns of ``model_facing/items.csv``.
``answers``
    The keys, apart: ``question_id``, ``correct_answer``.
``memories``
    The memories models may see: anonymized id, character, timeline label, age, text.
``construction``
    Every item's construction record; nested fields (options, reference, versions,
    chain ...) as JSON strings with sorted keys.

The tables are read back from the JSON files of the same export, so the Parquet rows
are the JSON rows. Determinism: columns in a fixed order, types from the values (never
from the time or the machine), one row group, the same writer options every time.
"""

import io
import json

from adjudication.export.model_facing import model_facing_table

SPLIT = "test"

# config name -> (Parquet path, what it holds); the first is the default.
CONFIGS = (
    ("model_facing", "model_facing/items.parquet", "the MCQ items as evaluated models see them"),
    ("answers", "model_facing/answers.parquet", "each item's key (never shown to a model)"),
    ("memories", "model_facing/memories.parquet", "the memories a model may read"),
    (
        "construction",
        "construction/items.parquet",
        "every item's construction record (nested fields as JSON strings): team only",
    ),
)


def _cell(value):
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return value


def _arrow_type(values):
    import pyarrow as pa

    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return pa.bool_()
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return pa.int64()
    if present and all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return pa.float64()
    return pa.string()


def parquet_bytes(header: list[str], rows: list[list]) -> bytes:
    """One table as Parquet bytes, the same bytes for the same rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = {}
    fields = []
    for i, name in enumerate(header):
        values = [_cell(row[i]) for row in rows]
        kind = _arrow_type(values)
        if kind == pa.string():
            values = [v if v is None or isinstance(v, str) else str(v) for v in values]
        columns[name] = pa.array(values, type=kind)
        fields.append(pa.field(name, kind))
    table = pa.Table.from_arrays(list(columns.values()), schema=pa.schema(fields))
    out = io.BytesIO()
    pq.write_table(
        table,
        out,
        compression="zstd",
        row_group_size=max(len(rows), 1),
        use_dictionary=True,
        write_statistics=True,
        store_schema=False,
    )
    return out.getvalue()


def record_table(records: list[dict], columns: list[str] | None = None):
    """(header, rows) of records with the same keys: top-level keys as columns."""
    if columns is None:
        columns = sorted({key for record in records for key in record})
    return columns, [[record.get(c) for c in columns] for record in records]


def dataset_tables(files: dict[str, bytes]) -> dict[str, tuple[list[str], list[list]]]:
    """config name -> (header, rows), read from the JSON files of the export."""
    items = json.loads(files["model_facing/items.json"])["questions"]
    answers = json.loads(files["model_facing/answers.json"])["answers"]
    memories = json.loads(files["model_facing/memories.json"])["memories"]
    construction = json.loads(files["construction/items.json"])["questions"]
    return {
        "model_facing": model_facing_table(items),
        "answers": record_table(answers, ["question_id", "correct_answer"]),
        "memories": record_table(
            memories, ["memory_id", "character_id", "timeline", "event_age", "content_full"]
        ),
        "construction": record_table(construction),
    }


def dataset_card(tables: dict, release: dict | None = None) -> bytes:
    """README.md with the Hugging Face datasets YAML header. ``release`` (issue #37,
    ``audit.hygiene.card.card_fields``) adds the licence, intended use, out-of-scope uses
    and the hygiene screening summary, in the header (``license``, ``heartbench_release``)
    and in the text."""
    lines = ["---", "pretty_name: HEART-Bench-style final MCQ set"]
    if release is not None:
        lines += release_header(release)
    lines.append("configs:")
    for n, (name, path, _) in enumerate(CONFIGS):
        lines.append(f"- config_name: {name}")
        if n == 0:
            lines.append("  default: true")
        lines += ["  data_files:", f"  - split: {SPLIT}", f"    path: {path}"]
    lines += ["---", "", "# HEART-Bench-style final MCQ set", ""]
    lines.append(
        "Exported by heartbench. The same rows are in JSON, JSONL and CSV beside each "
        "Parquet file; `manifest.json` holds every file's SHA-256."
    )
    lines += ["", "| Configuration | File | Rows | Holds |", "|---|---|---|---|"]
    for name, path, text in CONFIGS:
        lines.append(f"| `{name}` | `{path}` | {len(tables[name][1])} | {text} |")
    lines += [
        "",
        "```python",
        "import datasets",
        'items = datasets.load_dataset("path/to/heartbench-final-set", "model_facing", '
        f'split="{SPLIT}")',
        "```",
        "",
        "Keys are in the `answers` configuration only: give a model `model_facing` and "
        "`memories`, never `answers` or `construction`.",
        "",
    ]
    if release is not None:
        lines += release_sections(release)
    return "\n".join(lines).encode()


def release_header(release: dict) -> list[str]:
    """The card's YAML lines of the release statement; JSON is YAML, so the nested
    values are written as JSON (ASCII, sorted keys: the same bytes every time)."""
    details = {
        "intended_use": release["intended_use"],
        "out_of_scope_uses": release["out_of_scope_uses"],
        "screening": release["screening"],
    }
    return [
        f"license: {json.dumps(release['license'])}",
        f"heartbench_release: {json.dumps(details, sort_keys=True)}",
    ]


def release_sections(release: dict) -> list[str]:
    lines = [
        "## Licence and intended use",
        "",
        f"Licence: `{release['license']}`.",
        "",
        f"Intended use: {release['intended_use']}",
        "",
        "Out of scope:",
        "",
        *(f"- {use}" for use in release["out_of_scope_uses"]),
        "",
        "## Release hygiene screening",
        "",
    ]
    screening = release["screening"]
    if screening is None:
        return [*lines, "No release hygiene screen had completed when this set was exported.", ""]
    lines += [
        "The published texts (memories, reference responses, answer options) were screened "
        "for personal data by pattern and for offensive words by a lexicon; the memory "
        "reviewers decided on each flag.",
        "",
        "| Screening | Value |",
        "|---|---|",
        f"| Run date | {screening['run_date']} |",
        f"| Texts screened | {screening['texts_screened']} |",
        f"| Lexicon | {screening['lexicon']} (SHA-256 {screening['lexicon_sha256']}) |",
        f"| Flags | {screening['flags']} |",
        f"| Personal data flags | {screening['flags_by_kind']['personal_data']} |",
        f"| Offensive-content flags | {screening['flags_by_kind']['offensive']} |",
        *(f"| Flags, rule `{rule}` | {n} |" for rule, n in screening["flags_by_rule"].items()),
        f"| Dismissed as fine | {screening['dismissed']} |",
        f"| Confirmed, sent for repair | {screening['confirmed']} |",
        f"| Unresolved (open or awaiting repair) | {screening['unresolved']} |",
        "",
    ]
    return lines


def dataset_files(files: dict[str, bytes], release: dict | None = None) -> dict[str, bytes]:
    """The Parquet files and the dataset card of an export's JSON files."""
    tables = dataset_tables(files)
    out = {path: parquet_bytes(*tables[name]) for name, path, _ in CONFIGS}
    out["README.md"] = dataset_card(tables, release)
    return out
