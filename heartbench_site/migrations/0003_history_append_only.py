"""On PostgreSQL, the decision history refuses UPDATE and DELETE: rows are only added."""

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION heartbench_history_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the decision history is append-only: %% on %% refused', TG_OP, TG_TABLE_NAME;
END;
$$ LANGUAGE plpgsql;
"""


def history_tables(apps):
    return sorted(
        model._meta.db_table
        for model in apps.get_app_config("heartbench_site").get_models()
        if model._meta.db_table.startswith("history_")
    )


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(FUNCTION)
    for table in history_tables(apps):
        schema_editor.execute(
            f'CREATE TRIGGER append_only BEFORE UPDATE OR DELETE ON "{table}" '
            "FOR EACH ROW EXECUTE FUNCTION heartbench_history_append_only()"
        )


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in history_tables(apps):
        schema_editor.execute(f'DROP TRIGGER IF EXISTS append_only ON "{table}"')
    schema_editor.execute("DROP FUNCTION IF EXISTS heartbench_history_append_only()")


class Migration(migrations.Migration):
    dependencies = [("heartbench_site", "0002_decision_history")]

    operations = [migrations.RunPython(forwards, backwards)]
