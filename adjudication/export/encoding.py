"""How the final-set export writes bytes (seed 000 App. D.3, issue #8): JSON in the public
release's own formatting or with sorted keys, JSONL, CSV for spreadsheets, SHA-256.

Nothing here reads the time or the database, so the same records give the same bytes.
"""

import csv
import hashlib
import io
import json

EXPORT_FORMAT = "heartbench-final-set/1"
CSV_BOM = "\ufeff"  # spreadsheets read UTF-8 CSV correctly only with it


def release_json(doc) -> bytes:
    """The release's own formatting: indent 2, UTF-8 as is, keys in layout order."""
    return json.dumps(doc, ensure_ascii=False, indent=2).encode()


def sorted_json(doc) -> bytes:
    return (json.dumps(doc, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode()


def jsonl(records, *, sort_keys: bool) -> bytes:
    lines = [json.dumps(r, ensure_ascii=False, sort_keys=sort_keys) for r in records]
    return ("".join(line + "\n" for line in lines)).encode()


def csv_bytes(header: list[str], rows) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows(rows)
    return (CSV_BOM + out.getvalue()).encode()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def iso(value) -> str | None:
    return value.isoformat() if value is not None else None
