"""The memory audit on the LLM-run framework, schema part two: with every stored call
copied into ``AuditCall`` (migration 0007), the JSON ``call`` columns of the classifier
results and repair attempts go, and the ``call_record`` links take their name. Going
back, the JSON columns return empty and 0007's reverse fills them from the links."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("audit", "0007_audit_calls_and_units_copied")]

    operations = [
        migrations.RemoveField(model_name="classifierresult", name="call"),
        migrations.RemoveField(model_name="repairattempt", name="call"),
        migrations.RenameField(
            model_name="classifierresult", old_name="call_record", new_name="call"
        ),
        migrations.RenameField(model_name="repairattempt", old_name="call_record", new_name="call"),
    ]
