"""The observer role's group (issue 37: people who rate characters from their memories),
beside the groups heartbench_site's first migration made for the other roles."""

from django.db import migrations

OBSERVER_GROUP = "observer"


def create_group(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Group.objects.get_or_create(name=OBSERVER_GROUP)


class Migration(migrations.Migration):
    dependencies = [
        ("audit", "0015_hygiene_confirmed_wording"),
        ("auth", "0001_initial"),
    ]
    operations = [migrations.RunPython(create_group, migrations.RunPython.noop)]
