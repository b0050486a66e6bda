"""Set-based inserts and updates: PostgreSQL COPY when available, Django bulk operations
otherwise (the SQLite demo).

Rows are dicts keyed by attribute name (``character_id``, not ``character``). The
callers have validated every value, so these helpers add no checks of their own; the
database constraints remain the last line of defence.
"""

import json
from itertools import islice

from django.db import connection, models
from django.utils import timezone

BATCH_SIZE = 500


def _columns(model, names):
    by_attname = {f.attname: f for f in model._meta.concrete_fields}
    return [by_attname[name] for name in names]


def _with_timestamps(model, rows: list[dict]) -> list[dict]:
    stamped = [
        f.attname
        for f in model._meta.concrete_fields
        if getattr(f, "auto_now_add", False) or getattr(f, "auto_now", False)
    ]
    if not stamped:
        return rows
    now = timezone.now()
    return [{**{name: now for name in stamped}, **row} for row in rows]


def _copy(cursor, table: str, fields, rows) -> None:
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    json_columns = [i for i, f in enumerate(fields) if isinstance(f, models.JSONField)]
    with cursor.copy(f"COPY {connection.ops.quote_name(table)} ({columns}) FROM STDIN") as copy:
        for row in rows:
            for i in json_columns:
                if row[i] is not None:
                    row[i] = json.dumps(row[i], ensure_ascii=False)
            copy.write_row(row)


def insert_rows(model, rows: list[dict]) -> None:
    if not rows:
        return
    if connection.vendor != "postgresql":
        for batch in _batches(rows):
            model.objects.bulk_create([model(**row) for row in batch])
        return
    rows = _with_timestamps(model, rows)
    names = list(rows[0])
    fields = _columns(model, names)
    with connection.cursor() as cursor:
        _copy(cursor, model._meta.db_table, fields, ([row[n] for n in names] for row in rows))


def update_rows(model, rows: list[dict], names: list[str]) -> None:
    """Set ``names`` on the rows whose primary key is ``row["id"]``."""
    if not rows:
        return
    if connection.vendor != "postgresql":
        for batch in _batches(rows):
            objs = [model(**{"id": row["id"], **{n: row[n] for n in names}}) for row in batch]
            model.objects.bulk_update(objs, [_field_name(model, n) for n in names])
        return
    # One COPY into a scratch table and one UPDATE ... FROM, instead of a CASE per row.
    qn = connection.ops.quote_name
    table = model._meta.db_table
    fields = _columns(model, ["id", *names])
    scratch = f"_import_{table}"
    select = ", ".join(qn(f.column) for f in fields)
    assignments = ", ".join(f"{qn(f.column)} = s.{qn(f.column)}" for f in fields[1:])
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {qn(scratch)}")
        cursor.execute(
            f"CREATE TEMP TABLE {qn(scratch)} AS SELECT {select} FROM {qn(table)} WITH NO DATA"
        )
        _copy(cursor, scratch, fields, ([row["id"], *(row[n] for n in names)] for row in rows))
        cursor.execute(
            f"UPDATE {qn(table)} AS t SET {assignments} FROM {qn(scratch)} AS s WHERE t.id = s.id"
        )
        cursor.execute(f"DROP TABLE {qn(scratch)}")


def _field_name(model, attname: str) -> str:
    for f in model._meta.concrete_fields:
        if f.attname == attname:
            return f.name
    raise LookupError(attname)


def _batches(rows):
    it = iter(rows)
    while batch := list(islice(it, BATCH_SIZE)):
        yield batch
