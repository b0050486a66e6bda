"""The test databases: migrated once per run, copied for each pytest-xdist process.

Migrating an empty database takes about a minute of CPU (a hundred migrations whose model
states Django renders one after another). Under pytest-xdist every process needs its own
database; instead of each migrating its own, each takes a copy of one migrated template
with PostgreSQL's ``CREATE DATABASE … TEMPLATE``, which copies files and takes a second
or two. The copy holds exactly what the migrations wrote (the seeded rows, content types
and permissions), so a test sees the same database as after ``migrate``.

``make test`` (scripts/test.sh) migrates the template while the linters run and names it
in ``HB_TEST_TEMPLATE_DATABASE``. Without it, the first process to get here migrates
one named after the run (``PYTEST_XDIST_TESTRUNUID``, so a run never reuses another
run's), and each process drops its copy when it ends, and that template with it, under
the same lock as the copies (so never during one); a process that comes later and finds
the template gone migrates it again.

One process, or ``--reuse-db``: pytest-django's own set-up, unchanged.
"""

import fcntl
import os
import warnings

import pytest


def _exists(cursor, name: str) -> bool:
    cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
    return cursor.fetchone() is not None


def _migrate(connection, name: str, verbosity: int) -> None:
    """A database called ``name`` holding every migration (and what post_migrate adds)."""
    test = connection.settings_dict["TEST"]
    own = test.get("NAME")
    test["NAME"] = name
    try:
        connection.creation.create_test_db(verbosity=verbosity, autoclobber=True, serialize=False)
    finally:
        test["NAME"] = own
        # A template takes no copy while anyone is connected to it.
        connection.close()


def _use(connection, name: str) -> None:
    from django.conf import settings

    connection.close()
    settings.DATABASES[connection.alias]["NAME"] = name
    connection.settings_dict["NAME"] = name


@pytest.fixture(scope="session")
def django_db_setup(
    request,
    django_test_environment,
    django_db_blocker,
    django_db_keepdb,
    django_db_modify_db_settings,
    tmp_path_factory,
):
    from django.db import connection
    from django.test.utils import setup_databases, teardown_databases

    verbosity = request.config.option.verbose
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run or django_db_keepdb:
        with django_db_blocker.unblock():
            config = setup_databases(
                verbosity=verbosity, interactive=False, keepdb=django_db_keepdb
            )
        yield
        if not django_db_keepdb:
            with django_db_blocker.unblock():
                teardown_databases(config, verbosity=verbosity)
        return

    original = connection.settings_dict["NAME"]
    own = connection.creation._get_test_db_name()  # test_heartbench_gw0 …
    prepared = os.environ.get("HB_TEST_TEMPLATE_DATABASE")
    template = prepared or f"{own.rsplit('_', 1)[0]}_template_{run[:12]}"
    # The base temporary folder's parent is shared by the run's processes.
    lock_path = tmp_path_factory.getbasetemp().parent / f"{template}.lock"
    with django_db_blocker.unblock(), open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            with connection._nodb_cursor() as cursor:
                ready = _exists(cursor, template)
            if not ready:
                _migrate(connection, template, verbosity)
                _use(connection, original)
            with connection._nodb_cursor() as cursor:
                if _exists(cursor, own):
                    cursor.execute(f'DROP DATABASE "{own}"')
                cursor.execute(f'CREATE DATABASE "{own}" TEMPLATE "{template}"')
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
        _use(connection, own)
    yield
    with django_db_blocker.unblock(), open(lock_path, "w") as lock:
        _use(connection, original)
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            with connection._nodb_cursor() as cursor:
                cursor.execute(f'DROP DATABASE IF EXISTS "{own}"')
                if not prepared:
                    cursor.execute(f'DROP DATABASE IF EXISTS "{template}"')
        except Exception as error:  # noqa: BLE001 - as pytest-django: a warning, not a failure
            warnings.warn(f"the test databases were not dropped: {error}", stacklevel=1)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
