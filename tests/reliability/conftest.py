"""Fixtures of the reliability tests: a database populated the way `make demo` leaves it
(the release import, stand-in characters, every workflow's demo stage), and a
row-for-row fingerprint of every table to prove a request or a rejected import changed
nothing."""

import pytest
from django.db import connection

from tests import demo_data
from tests.reliability.faults import Redis
from tests.web.conftest import client_for, make_user, role_groups  # noqa: F401

# Rows that legitimately change on any request: the session, the login throttle.
VOLATILE_TABLES = {
    "django_session",
    "axes_accessattempt",
    "axes_accesslog",
    "axes_accessfailurelog",
}


def table_fingerprints(exclude=VOLATILE_TABLES) -> dict[str, tuple[int, str]]:
    """{table: (row count, md5 of every row's text)} of every table Django manages."""
    tables = sorted(set(connection.introspection.table_names()) - set(exclude))
    prints = {}
    with connection.cursor() as cursor:
        for table in tables:
            quoted = connection.ops.quote_name(table)
            cursor.execute(
                f"SELECT count(*), md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) "
                f"FROM {quoted} t"
            )
            prints[table] = cursor.fetchone()
    return prints


def written_tables(exclude=VOLATILE_TABLES) -> dict[str, int]:
    """{table: rows inserted + updated + deleted so far by this transaction}: cheap enough
    to ask after every request (PostgreSQL's per-transaction statistics)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, n_tup_ins + n_tup_upd + n_tup_del FROM pg_stat_xact_user_tables"
        )
        return {t: n for t, n in cursor.fetchall() if n and t not in exclude}


def changed_tables(before: dict, after: dict) -> list[str]:
    return sorted(t for t in set(before) | set(after) if before.get(t) != after.get(t))


def load_demo(release_dir):
    demo_data.load_demo(release_dir)


# --- faults through real workers (tests/reliability/test_faults*.py) ---


@pytest.fixture
def through_workers():
    """Tasks go to the broker and a worker, never run in this process (an earlier test
    or a demo loader may have left Celery eager)."""
    from heartbench_site.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = False
    yield
    app.conf.task_always_eager = previous


@pytest.fixture
def own_redis(tmp_path):
    """The test process and its workers use this Redis; the suite's own stays untouched."""
    from heartbench_site.celery import app

    redis = Redis(tmp_path).start()
    previous = app.conf.broker_url

    def point_at(url):
        # Celery resolves the read and write URLs from broker_url once; set all three.
        app.conf.update(broker_url=url, broker_write_url=url, broker_read_url=url)
        # Drop (do not close: kombu's shared registry may hold them) the cached pools.
        app._pool = None
        app.amqp._producer_pool = None

    point_at(redis.url)
    yield redis
    point_at(previous)
    redis.stop()
