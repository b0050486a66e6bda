"""humanbaseline 0008 (issue #36) on a populated database: every participation and report
stored before it is read through the new models, a stored report's participants are
renamed from usernames to their number in the study (and back when migrating back), and
the decision history stays append-only except inside an erasure."""

import pytest
from django.db import DatabaseError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from humanbaseline.models import BaselineReport, Participation

BEFORE = [("humanbaseline", "0007_history_state_here")]
AFTER = [("humanbaseline", "0008_participants_rights")]


def populate(apps):
    User = apps.get_model("auth", "User")
    admin = User.objects.create(username="migration-admin")
    alice = User.objects.create(username="alice-before")
    bob = User.objects.create(username="bob-before")
    selection = apps.get_model("humanbaseline", "SubsetSelection").objects.create(
        seed=1, parameters={}, feasible=True, n_candidates=0, created_by=admin
    )
    study = apps.get_model("humanbaseline", "BaselineStudy").objects.create(
        name="Stored study",
        selection=selection,
        consent_version="v1",
        consent_text="text",
        briefing="b",
        retrieval_method="bm25",
        k=5,
        created_by=admin,
    )
    Participation = apps.get_model("humanbaseline", "Participation")
    for user in (alice, bob):
        Participation.objects.create(
            study=study,
            user=user,
            status="finalized",
            enrolled_via="admin",
            pool="sona",
            pool_id=f"sona-{user.username}",
            order_seed=7,
        )
    apps.get_model("humanbaseline", "BaselineReport").objects.create(
        study=study,
        status="done",
        seed=1,
        n_boot=10,
        n_permutations=10,
        results={"n_annotators": 2, "per_annotator": {"alice-before": 0.5, "bob-before": 0.75}},
        requested_by=admin,
        finished_at=timezone.now(),
    )


@pytest.mark.django_db(transaction=True)
def test_stored_participations_and_reports_come_through_the_migration():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    populate(executor.loader.project_state(BEFORE).apps)

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    rows = list(Participation.objects.order_by("pk").select_related("user"))
    assert [(p.user.username, p.status, p.pool_id, p.withdrawn_at) for p in rows] == [
        ("alice-before", "finalized", "sona-alice-before", None),
        ("bob-before", "finalized", "sona-bob-before", None),
    ]
    assert Participation.objects.counted().count() == 2
    report = BaselineReport.objects.get()
    assert report.results == {"n_annotators": 2, "per_annotator": {"1": 0.5, "2": 0.75}}

    # The history refuses an UPDATE, unless the transaction is an erasure.
    Participation.history.model.objects.create(
        id=rows[0].pk,
        study_id=rows[0].study_id,
        user_id=rows[0].user_id,
        status="finalized",
        enrolled_via="admin",
        pool_id="sona-alice-before",
        order_seed=7,
        created_at=timezone.now(),
        history_date=timezone.now(),
        history_type="+",
    )
    history = Participation.history.model.objects.filter(id=rows[0].pk)
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        history.update(pool_id="")
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL heartbench.erasure = 'on'")
        assert history.update(pool_id="") == 1
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        history.delete()

    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    stored = old.get_model("humanbaseline", "BaselineReport").objects.get()
    assert stored.results["per_annotator"] == {"alice-before": 0.5, "bob-before": 0.75}
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
