"""The decision history's models live in their own apps (issue 33), moved by state-only
migrations from heartbench_site, where the tables were first created: on a database that
already holds rows, the move touches no table, every row stays readable through the
models, the content types (and so the admin's permissions and log) follow the models, and
every historical table keeps its append-only trigger."""

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from adjudication.models import AdjudicationSettings
from core.deviations import ProtocolDeviation
from core.drafts import FormDraft
from core.history import history_models

MOVE = "history_state_here"
SITE_BEFORE = ("heartbench_site", "0015_historicalbaselinestudy_pay_text")


def _before_and_after(executor):
    """The nodes just before the move (each app's migration before its ``*_history_state_here``)
    and the leaves after it."""
    graph = executor.loader.graph
    before = [SITE_BEFORE]
    for app, name in graph.leaf_nodes():
        moves = [
            node
            for node in graph.forwards_plan((app, name))
            if node[0] == app and node[1].endswith(MOVE)
        ]
        if not moves:
            continue
        (move,) = moves
        parents = [parent for parent in graph.node_map[move].parents if parent.key[0] == app]
        before.append(parents[0].key if parents else (app, None))
    return before, graph.leaf_nodes()


@pytest.mark.django_db(transaction=True)
def test_rows_written_before_the_move_are_read_through_the_models_after_it(django_user_model):
    executor = MigrationExecutor(connection)
    before, after = _before_and_after(executor)
    assert ("core", None) in before
    draft_type = ContentType.objects.get_for_model(FormDraft).pk
    executor.migrate(before)
    old = executor.loader.project_state([node for node in before if node[1]]).apps

    user = old.get_model("auth", "User").objects.create(username="before-the-move")
    old.get_model("heartbench_site", "FormDraft").objects.create(
        user_id=user.pk, key="profile-review:CHAR_01", data={"notes": "kept"}
    )
    old.get_model("heartbench_site", "ProtocolDeviation").objects.create(
        stage="generation", kind="setting", subject="CHAR_01", rule="a rule", reason="a reason"
    )
    old.get_model("heartbench_site", "HistoricalAdjudicationSettings").objects.create(
        id=1, show_family_to_arbitrator=True, history_date=timezone.now(), history_type="+"
    )
    assert ContentType.objects.get(pk=draft_type).app_label == "heartbench_site"

    executor = MigrationExecutor(connection)
    executor.migrate(after)

    assert FormDraft.objects.get(key="profile-review:CHAR_01").data == {"notes": "kept"}
    assert ProtocolDeviation.objects.get(subject="CHAR_01").rule == "a rule"
    (row,) = AdjudicationSettings.history.all()
    assert row.show_family_to_arbitrator and row.history_type == "+"
    assert ContentType.objects.get_for_model(FormDraft).pk == draft_type
    assert ContentType.objects.get(pk=draft_type).app_label == "core"


def test_each_historical_model_belongs_to_its_models_app_and_keeps_its_table():
    for model in history_models():
        historical = model.history.model
        assert historical._meta.app_label == model._meta.app_label
        assert historical._meta.db_table == f"history_{model._meta.db_table}"
    assert FormDraft._meta.app_label == ProtocolDeviation._meta.app_label == "core"
    assert FormDraft._meta.db_table == "heartbench_site_formdraft"
    assert ProtocolDeviation._meta.db_table == "heartbench_site_protocoldeviation"


@pytest.mark.django_db
def test_every_historical_table_refuses_update_and_delete():
    tables = {model.history.model._meta.db_table for model in history_models()}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            "WHERE t.tgname = 'append_only'"
        )
        guarded = {name for (name,) in cursor.fetchall()}
    assert tables <= guarded, sorted(tables - guarded)
