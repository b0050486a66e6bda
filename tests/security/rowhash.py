"""Row hashes of the whole database: a refused write leaves every row as it was.

``fingerprint()`` hashes every row of every table (PostgreSQL renders each row as text;
the rows' hashes are sorted, so the order rows come back in does not matter), one hash
per table. ``changed(before, after)`` names the tables whose rows differ."""

from django.db import connection

# Rows that change by design on any request, refused or not: the session store (a login
# or a visit refreshes it) and django-axes' record of login attempts (the lockout replay
# reads those rows itself).
NOT_HASHED = ("django_session", "axes_accessattempt", "axes_accesslog", "axes_accessfailurelog")


def fingerprint() -> dict[str, str]:
    tables = sorted(t for t in connection.introspection.table_names() if t not in NOT_HASHED)
    hashes = {}
    with connection.cursor() as cursor:
        for table in tables:
            quoted = connection.ops.quote_name(table)
            cursor.execute(
                f"SELECT count(*), coalesce(md5(string_agg(md5(t::text), '' "
                f"ORDER BY md5(t::text))), '') FROM {quoted} AS t"
            )
            count, digest = cursor.fetchone()
            hashes[table] = f"{count}:{digest}"
    return hashes


def changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(t for t in before.keys() | after.keys() if before.get(t) != after.get(t))
