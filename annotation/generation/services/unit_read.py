"""The claim's read of a unit with the rows its stages read: its run, character,
scenario and profile version (with the profile's character), as
``GenerationUnit.objects.select_related(...).get(pk=...)`` returns them.

Every unit a worker takes up starts with this read, so on PostgreSQL it is one plain
statement written once (five joins, every concrete column of each model), and the
instances are built with ``Model.from_db`` and each field's ``from_db_value`` (the only
conversion Django applies to these columns on PostgreSQL). Other databases (the demo's
SQLite, whose dates, decimals and booleans need the backend's own converters) read
through the ORM.
"""

import functools

from django.db import connections, router

from annotation.corpus.models import Character, ProfileVersion, Scenario
from annotation.generation.models import GenerationRun, GenerationUnit

# What a unit's stages read besides the unit: its run, character, scenario and profile.
CLAIM_RELATED = ("run", "character", "scenario", "profile_version__character")

# (alias, model, the alias it hangs from and the foreign key there, outer join?)
_JOINS = (
    ("u", GenerationUnit, None, None, False),
    ("r", GenerationRun, "u", "run", False),
    ("c", Character, "u", "character", False),
    ("s", Scenario, "u", "scenario", False),
    ("pv", ProfileVersion, "u", "profile_version", True),
    ("pc", Character, "pv", "character", True),
)


def unit_with_related(unit_id: int) -> GenerationUnit:
    """The unit with its run, character, scenario and profile version (and that
    version's character) loaded; ``GenerationUnit.DoesNotExist`` when there is none."""
    conn = connections[router.db_for_read(GenerationUnit)]
    if conn.vendor != "postgresql":
        return GenerationUnit.objects.select_related(*CLAIM_RELATED).get(pk=unit_id)
    sql, layout = _unit_read_sql(conn.vendor)
    with conn.cursor() as cursor:
        cursor.execute(sql, (unit_id,))
        row = cursor.fetchone()
    if row is None:
        raise GenerationUnit.DoesNotExist("GenerationUnit matching query does not exist.")
    built, start = {}, 0
    for (alias, model, *_), converters in zip(_JOINS, layout, strict=True):
        values = row[start : start + len(converters)]
        start += len(converters)
        if values[0] is None:  # an outer join that found nothing (no profile version)
            built[alias] = None
            continue
        values = [
            v if f is None else f(v, None, conn) for v, f in zip(values, converters, strict=True)
        ]
        built[alias] = model.from_db(conn.alias, None, values)
    unit = built["u"]
    # Assigning through the relations caches each row, as select_related does.
    unit.run, unit.character, unit.scenario = built["r"], built["c"], built["s"]
    unit.profile_version = built["pv"]
    if built["pv"] is not None:
        built["pv"].character = built["pc"]
    return unit


@functools.cache
def _unit_read_sql(vendor: str) -> tuple[str, list]:
    """The statement, and per model the converter of each column in ``concrete_fields``
    order (None where the value is used as read)."""
    qn = connections[router.db_for_read(GenerationUnit)].ops.quote_name
    columns, joins, layout = [], [], []
    for alias, model, parent, fk, outer in _JOINS:
        meta = model._meta
        # The primary key first: a missing outer-joined row shows as its NULL id.
        fields = [meta.pk, *(f for f in meta.concrete_fields if f is not meta.pk)]
        if [f.attname for f in fields] != [f.attname for f in meta.concrete_fields]:
            raise AssertionError(f"{meta.label}: the primary key is not the first column")
        columns.extend(f"{alias}.{qn(f.column)}" for f in fields)
        layout.append([getattr(f, "from_db_value", None) for f in fields])
        if parent is not None:
            parent_model = next(m for a, m, *_ in _JOINS if a == parent)
            column = parent_model._meta.get_field(fk).column
            kind = "LEFT OUTER JOIN" if outer else "INNER JOIN"
            joins.append(
                f"{kind} {qn(meta.db_table)} {alias} "
                f"ON ({parent}.{qn(column)} = {alias}.{qn(meta.pk.column)})"
            )
    sql = (
        f"SELECT {', '.join(columns)} FROM {qn(GenerationUnit._meta.db_table)} u "
        + " ".join(joins)
        + f" WHERE u.{qn(GenerationUnit._meta.pk.column)} = %s"
    )
    return sql, layout
