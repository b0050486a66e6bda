"""core's 0002 adds the stored-report table (issue #34): on a database that already
holds rows of core's tables, migrating forward keeps them readable through the models,
and the new table takes one row per (kind, key)."""

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from core.deviations import ProtocolDeviation
from core.drafts import FormDraft
from core.reports.models import StoredReport

BEFORE = ("core", "0001_history_state_here")
AFTER = ("core", "0002_stored_report")


@pytest.mark.django_db(transaction=True)
def test_rows_before_the_stored_report_table_stay_readable_after_it(django_user_model):
    executor = MigrationExecutor(connection)
    executor.migrate([BEFORE])
    old = executor.loader.project_state([BEFORE]).apps
    user = old.get_model("auth", "User").objects.create(username="before-reports")
    old.get_model("core", "FormDraft").objects.create(
        user_id=user.pk, key="profile-review:CHAR_01", data={"notes": "kept"}
    )
    old.get_model("core", "ProtocolDeviation").objects.create(
        stage="generation", kind="setting", subject="CHAR_01", rule="a rule", reason="a reason"
    )
    with pytest.raises(LookupError):
        old.get_model("core", "StoredReport")

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    assert FormDraft.objects.get(user__username="before-reports").data == {"notes": "kept"}
    assert ProtocolDeviation.objects.get(subject="CHAR_01").reason == "a reason"
    StoredReport.objects.create(kind="evaluation.paired_comparisons", key="1,2")
    with pytest.raises(IntegrityError), transaction.atomic():
        StoredReport.objects.create(kind="evaluation.paired_comparisons", key="1,2")
    assert AFTER in MigrationExecutor(connection).loader.applied_migrations
