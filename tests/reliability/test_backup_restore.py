"""Backup and restore (issue #12): ``pg_dump -Fc`` of a populated database, restored with
``pg_restore`` into a fresh database, holds the same rows in every table and the same
sequence positions (so the restored site creates new rows without id collisions), and
the site runs on it. The procedure is docs/lab-admin/backups.md."""

import subprocess

import psycopg
import pytest
from django.db import connection

from annotation.corpus.models import Character, Memory
from core.roles import Role
from tests.factories import UserFactory

from .conftest import load_demo

pytestmark = pytest.mark.django_db(transaction=True)

RESTORED = "heartbench_restore_check"


def conninfo(dbname: str) -> dict:
    db = connection.settings_dict
    return {
        "host": db["HOST"],
        "port": str(db["PORT"]),
        "user": db["USER"],
        "dbname": dbname,
    }


def cli_args(info: dict) -> list[str]:
    return ["-h", info["host"], "-p", info["port"], "-U", info["user"]]


def table_contents(info: dict) -> dict[str, tuple[int, str]]:
    """{table: (rows, md5 of every row)} and {sequence: last value} of one database."""
    out = {}
    with psycopg.connect(**info) as conn:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"
            )
        ]
        for table in tables:
            out[table] = conn.execute(
                f"SELECT count(*), md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) "
                f'FROM "{table}" t'
            ).fetchone()
        for (sequence,) in conn.execute(
            "SELECT sequencename FROM pg_sequences WHERE schemaname = 'public' ORDER BY 1"
        ).fetchall():
            out[f"sequence {sequence}"] = conn.execute(
                f'SELECT last_value, is_called FROM "{sequence}"'
            ).fetchone()
    return out


@pytest.fixture
def fresh_database():
    server = conninfo(connection.settings_dict["NAME"])

    def drop():
        with psycopg.connect(**server, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {RESTORED} WITH (FORCE)")

    drop()
    with psycopg.connect(**server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {RESTORED}")
    yield conninfo(RESTORED)
    drop()


def test_a_populated_database_round_trips_through_pg_dump_and_pg_restore(
    release_dir, demo_providers, fresh_database, tmp_path
):
    load_demo(release_dir)
    UserFactory(username="backup-admin", roles=[Role.ADMIN])
    assert Memory.objects.count() > 200 and Character.objects.count() == 14  # 11 + 3 built
    source = conninfo(connection.settings_dict["NAME"])
    dump = tmp_path / "heartbench.dump"

    subprocess.run(
        ["pg_dump", *cli_args(source), "-Fc", "--no-owner", "-f", str(dump), source["dbname"]],
        check=True,
    )
    subprocess.run(
        [
            "pg_restore",
            *cli_args(fresh_database),
            "--no-owner",
            "--exit-on-error",
            "-d",
            fresh_database["dbname"],
            str(dump),
        ],
        check=True,
    )

    original, restored = table_contents(source), table_contents(fresh_database)
    assert len(original) > 40
    assert original["annotation_memory"][0] == Memory.objects.count()
    differing = sorted(
        k for k in original.keys() | restored.keys() if original.get(k) != restored.get(k)
    )
    assert not differing, differing

    # The restored database serves the site: a new row gets a fresh id, a query works.
    with psycopg.connect(**fresh_database) as conn:
        before = conn.execute("SELECT max(id) FROM auth_user").fetchone()[0]
        new_id = conn.execute(
            "INSERT INTO auth_user (password, is_superuser, username, first_name, last_name, "
            "email, is_staff, is_active, date_joined) VALUES ('!', false, 'after-restore', '', "
            "'', '', false, true, now()) RETURNING id"
        ).fetchone()[0]
        assert new_id > before


def test_the_comparison_can_fail_a_restore_that_lost_rows(fresh_database, release_dir, tmp_path):
    """The control: a dump restored without one table's data is caught."""
    UserFactory(username="someone", roles=[Role.ADMIN])
    source = conninfo(connection.settings_dict["NAME"])
    dump = tmp_path / "partial.dump"
    subprocess.run(
        [
            "pg_dump",
            *cli_args(source),
            "-Fc",
            "--no-owner",
            "--exclude-table-data=auth_user_groups",
            "-f",
            str(dump),
            source["dbname"],
        ],
        check=True,
    )
    subprocess.run(
        ["pg_restore", *cli_args(fresh_database), "--no-owner", "-d", RESTORED, str(dump)],
        check=True,
    )
    original, restored = table_contents(source), table_contents(fresh_database)
    assert [k for k in original if original[k] != restored.get(k)] == ["auth_user_groups"]
