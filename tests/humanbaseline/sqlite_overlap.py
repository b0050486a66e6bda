"""Run by test_sqlite_demo.py in a process of its own, under the demo's settings
(``heartbench_site.settings.local``) with ``DATABASE_URL`` naming a scratch SQLite file:
two transactions that each read and then write, overlapping as an answer's autosave and
the page's "Save and go to the next item" do. Prints the database options the settings
applied and what each transaction met, as JSON.

``python sqlite_overlap.py [deferred]``: "deferred" drops the demo's transaction mode first,
the control that shows the overlap failing without it.
"""

import json
import sys
import threading
import time

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection, transaction  # noqa: E402

options = settings.DATABASES["default"].get("OPTIONS", {})
if sys.argv[1:] == ["deferred"]:
    options.pop("transaction_mode", None)

with connection.cursor() as cursor:
    cursor.execute("CREATE TABLE answer (id INTEGER PRIMARY KEY, saves INTEGER)")
    cursor.execute("INSERT INTO answer (id, saves) VALUES (1, 0)")
connection.close()

first_has_read = threading.Event()
errors = []


def save(*, first: bool):
    try:
        if not first:
            first_has_read.wait(5)
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT saves FROM answer WHERE id = 1")
            if first:
                first_has_read.set()
                time.sleep(0.5)  # the other save arrives meanwhile
            cursor.execute("UPDATE answer SET saves = saves + 1 WHERE id = 1")
    except Exception as error:  # noqa: BLE001 (reported, not raised: the test reads it)
        errors.append(f"{type(error).__name__}: {error}")
    finally:
        first_has_read.set()
        connection.close()


threads = [threading.Thread(target=save, kwargs={"first": n == 0}) for n in range(2)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
with connection.cursor() as cursor:
    cursor.execute("SELECT saves FROM answer WHERE id = 1")
    saves = cursor.fetchone()[0]
print(
    json.dumps(
        {
            "engine": settings.DATABASES["default"]["ENGINE"],
            "options": options,
            "errors": errors,
            "saves": saves,
        }
    )
)
