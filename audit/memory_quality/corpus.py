"""The audited corpus: the memories every later stage reads (App. B.6's last step).

A character whose memories went through an audit run that was finalized reads the
run's timeline: accepted memories, deduplicated, chronological, sanitized. The latest
finalized run that covered the character wins. A character no finalized run covered
(a corpus imported already audited, or not audited at all) reads its memories as
stored; generation refuses such a character unless an admin overrides the gate, and
the export manifest lists it as a protocol deviation.
"""

import functools
from collections import namedtuple
from collections.abc import Iterable, Sequence

from django.db import connections, router
from django.db.models import QuerySet

from annotation.corpus.models import Character, Memory
from audit.memory_quality.models import AuditRun, TimelineEntry


def finalized_runs_by_character(character_ids: Iterable[int]) -> dict[int, int]:
    """character id → the id of the latest finalized audit run that covered it.

    Two queries, whatever the number of characters."""
    ids = set(character_ids)
    if not ids:
        return {}
    return _latest_finalized_runs(
        dict(Character.objects.filter(pk__in=ids).values_list("key", "pk"))
    )


def _latest_finalized_runs(keys: dict[str, int]) -> dict[int, int]:
    """``finalized_runs_by_character`` for {character key: character id}; one query."""
    runs = AuditRun.objects.filter(finalized_at__isnull=False).order_by("-finalized_at", "-pk")
    found: dict[int, int] = {}
    for run_id, covered in runs.values_list("pk", "character_keys"):
        for key, pk in keys.items():
            if pk not in found and (not covered or key in covered):
                found[pk] = run_id
        if len(found) == len(keys):
            break
    return found


def audit_finalized(character_id: int) -> bool:
    return character_id in finalized_runs_by_character([character_id])


def audited_memories(character_id: int, *, key: str | None = None) -> QuerySet[Memory]:
    """The character's audited memories in timeline order (event age, then sequence).
    A caller that holds the character's ``key`` passes it and saves a query."""
    if key is None:
        run_id = finalized_runs_by_character([character_id]).get(character_id)
    else:
        run_id = _latest_finalized_runs({key: character_id}).get(character_id)
    memories = Memory.objects.filter(character_id=character_id)
    if run_id is not None:
        kept = TimelineEntry.objects.filter(run_id=run_id, character_id=character_id)
        memories = memories.filter(pk__in=kept.values("memory_id"))
    return memories.order_by("event_age", "sequence")


def audited_memory_rows(
    character_id: int,
    *,
    key: str,
    fields: Sequence[str],
    max_event_age: int | None = None,
    memory_ids: Sequence[str] | None = None,
) -> list:
    """The character's audited memories as named rows of ``fields``, in timeline order:
    what ``audited_memories(character_id, key=key).filter(event_age__lte=max_event_age,
    memory_id__in=memory_ids).values_list(*fields, named=True)`` returns, in two plain
    statements. A generation worker reads the corpus several times a unit; these are
    written once per shape instead of being built by the ORM on every read. ``fields``
    are text and number columns (``_PLAIN_TYPES``), which need no conversion."""
    conn = connections[router.db_for_read(Memory)]
    run_id = _latest_finalized_run(conn, key)
    where, params = [], [character_id]
    if max_event_age is not None:
        where.append("age")
        params.append(max_event_age)
    if memory_ids is not None:
        if not memory_ids:
            return []
        where.append(len(memory_ids))
        params.extend(memory_ids)
    if run_id is not None:
        where.append("audit")
        params.extend((run_id, character_id))
    sql = _memory_rows_sql(tuple(fields), tuple(where), conn.vendor)
    row = _row_class(tuple(fields))
    with conn.cursor() as cursor:
        cursor.execute(sql, params)
        return [row._make(values) for values in cursor.fetchall()]


def memory_rows(memory_ids: Sequence[str], *, fields: Sequence[str]) -> list:
    """``Memory.objects.filter(memory_id__in=memory_ids).values_list(*fields,
    named=True)`` as one plain statement, in no particular order (a caller that
    orders them looks them up by id)."""
    if not memory_ids:
        return []
    conn = connections[router.db_for_read(Memory)]
    sql = _memory_rows_sql(tuple(fields), (len(memory_ids),), conn.vendor, by_character=False)
    row = _row_class(tuple(fields))
    with conn.cursor() as cursor:
        cursor.execute(sql, list(memory_ids))
        return [row._make(values) for values in cursor.fetchall()]


def _latest_finalized_run(conn, key: str) -> int | None:
    """``_latest_finalized_runs`` for one character, as a plain statement."""
    keys_field = AuditRun._meta.get_field("character_keys")
    with conn.cursor() as cursor:
        cursor.execute(_finalized_runs_sql(conn.vendor))
        for run_id, covered in cursor.fetchall():
            covered = keys_field.from_db_value(covered, None, conn)
            if not covered or key in covered:
                return run_id
    return None


@functools.cache
def _finalized_runs_sql(vendor: str) -> str:
    qn = connections[router.db_for_read(AuditRun)].ops.quote_name
    meta = AuditRun._meta
    finalized = qn(meta.get_field("finalized_at").column)
    return (
        f"SELECT {qn(meta.pk.column)}, {qn(meta.get_field('character_keys').column)} "
        f"FROM {qn(meta.db_table)} WHERE {finalized} IS NOT NULL "
        f"ORDER BY {finalized} DESC, {qn(meta.pk.column)} DESC"
    )


# Columns the backends return as Python reads them, without a Django converter.
_PLAIN_TYPES = frozenset(
    {"CharField", "TextField", "FloatField", "PositiveIntegerField", "PositiveSmallIntegerField"}
)


@functools.lru_cache(maxsize=256)
def _memory_rows_sql(fields: tuple, where: tuple, vendor: str, by_character=True) -> str:
    qn = connections[router.db_for_read(Memory)].ops.quote_name
    meta, kept = Memory._meta, TimelineEntry._meta
    for name in fields:
        if meta.get_field(name).get_internal_type() not in _PLAIN_TYPES:
            raise ValueError(f"{name} needs a converter; read it through audited_memories")

    def col(name: str) -> str:
        return qn(meta.get_field(name).column)

    sql = f"SELECT {', '.join(col(name) for name in fields)} FROM {qn(meta.db_table)} WHERE "
    sql += f"{col('character')} = %s" if by_character else "1 = 1"
    for condition in where:
        if condition == "age":
            sql += f" AND {col('event_age')} <= %s"
        elif condition == "audit":
            sql += (
                f" AND {qn(meta.pk.column)} IN (SELECT {qn(kept.get_field('memory').column)}"
                f" FROM {qn(kept.db_table)} WHERE {qn(kept.get_field('run').column)} = %s"
                f" AND {qn(kept.get_field('character').column)} = %s)"
            )
        else:  # so many memory ids
            sql += f" AND {col('memory_id')} IN ({', '.join(['%s'] * condition)})"
    if not by_character:
        return sql
    return sql + f" ORDER BY {col('event_age')} ASC, {col('sequence')} ASC"


@functools.cache
def _row_class(fields: tuple) -> type:
    return namedtuple("Row", fields)


def audited_memory_ids(character_ids: Iterable[int]) -> dict[int, set[int] | None]:
    """character id → the primary keys of its audited memories, or None where no
    finalized audit covered it (its stored memories stand). Two queries plus one."""
    ids = set(character_ids)
    runs = finalized_runs_by_character(ids)
    kept: dict[int, set[int] | None] = {pk: None for pk in ids}
    for character_id in runs:
        kept[character_id] = set()
    rows = TimelineEntry.objects.filter(
        run_id__in=set(runs.values()), character_id__in=list(runs)
    ).values_list("run_id", "character_id", "memory_id")
    for run_id, character_id, memory_id in rows:
        if runs[character_id] == run_id:
            kept[character_id].add(memory_id)
    return kept
