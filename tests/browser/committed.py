"""A module that commits a whole demo for its live server puts the database back as it
found it: the rows the migrations seeded (role groups, default prompts, quota weights …)
included, which a plain ``flush`` would delete for every later test of the session.

As Django's ``TransactionTestCase(serialized_rollback=True)`` does: the database is
serialized before the module writes, flushed afterwards without the post-migrate signal,
and loaded back from the serialization."""

from django.apps import apps
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connections


def snapshot() -> str:
    connection = connections["default"]
    name = connection.settings_dict["NAME"]
    assert name.startswith("test_"), f"not a test database: {name}"  # it is flushed later
    return connection.creation.serialize_db_to_string()


def restore(serialized: str) -> None:
    connection = connections["default"]
    call_command("flush", interactive=False, verbosity=0, inhibit_post_migrate=True)
    connection.creation.deserialize_db_from_string(serialized)
    # The flush restarted every id sequence and the rows came back with their own ids: the
    # next id of each table must follow them (a migration run later, or any test, creating
    # a default prompt version would otherwise be given id 1 again).
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), apps.get_models()):
            cursor.execute(sql)
