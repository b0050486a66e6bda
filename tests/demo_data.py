"""The demo's data for a test, built once per test process and then copied in.

``demo_setup`` takes 15–60 s (the release's 673 references, eleven characters' memories,
every workflow run to a stage); a dozen modules and fixtures need the same demo. The first
call in a process builds it with the caller's settings (the offline demo providers,
Celery eager) and copies every table out with PostgreSQL's binary COPY; each later call
empties the tables (TRUNCATE, which rolls back with the caller's transaction) and copies
the rows back in, then moves each id sequence past the copied ids. The database then holds
what a fresh build would have written, in about a second.
"""

import os

from django.core.management import call_command
from django.db import connections, transaction
from django.test import TestCase

# release folder → [(table, binary COPY of its rows)]
_BUILT: dict[str, list[tuple[str, bytes]]] = {}


def _tables(connection) -> list[str]:
    with connection.cursor() as cursor:
        return sorted(
            t for t in connection.introspection.table_names(cursor) if t != "django_migrations"
        )


def _copy_out(connection) -> list[tuple[str, bytes]]:
    rows = []
    with connection.cursor() as cursor:
        raw = cursor.cursor
        for table in _tables(connection):
            data = bytearray()
            with raw.copy(f'COPY "{table}" TO STDOUT (FORMAT BINARY)') as copy:
                for chunk in copy:
                    data += chunk
            rows.append((table, bytes(data)))
    return rows


def _copy_in(connection, tables: list[tuple[str, bytes]]) -> None:
    # One transaction (a savepoint inside the caller's): the foreign keys, deferred, are
    # checked once every table is in.
    with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
        raw = cursor.cursor
        # Rows the caller wrote in this transaction leave deferred foreign-key checks
        # pending, and PostgreSQL refuses to TRUNCATE a table with pending checks: run them
        # now, then defer again for the copy.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("TRUNCATE " + ", ".join(f'"{t}"' for t in _tables(connection)))
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        for table, data in tables:
            with raw.copy(f'COPY "{table}" FROM STDIN (FORMAT BINARY)') as copy:
                copy.write(data)
        # Ids the application makes next must follow the copied ones.
        cursor.execute(
            """SELECT relname, attname, sequence FROM (
                 SELECT t.relname, a.attname,
                        pg_get_serial_sequence(quote_ident(t.relname), a.attname) AS sequence
                 FROM pg_class t JOIN pg_attribute a ON a.attrelid = t.oid
                 JOIN pg_namespace n ON n.oid = t.relnamespace
                 WHERE n.nspname = current_schema() AND t.relkind = 'r' AND a.attnum > 0
                   AND NOT a.attisdropped
               ) columns WHERE sequence IS NOT NULL"""
        )
        for table, column, sequence in cursor.fetchall():
            cursor.execute(
                f'SELECT setval(%s, COALESCE(MAX("{column}"), 0) + 1, false) FROM "{table}"',
                [sequence],
            )


def load_demo(release_dir) -> None:
    """What ``call_command("demo_setup", release=release_dir)`` writes, in the caller's
    connection and transaction (call it where you would call the command)."""
    connection = connections["default"]
    key = str(release_dir)
    if key not in _BUILT:
        # The work the build queues on commit (Celery eager) runs before the copy, as it
        # would for the caller; outside a transaction it has run already.
        with open(os.devnull, "w") as devnull, TestCase.captureOnCommitCallbacks(execute=True):
            call_command("demo_setup", release=release_dir, stdout=devnull)
        _BUILT[key] = _copy_out(connection)
    else:
        _copy_in(connection, _BUILT[key])
