"""Version 3 of each generation prompt (seed 000 App. L.5.2; issue 35): re-ranking asks
for exactly the target; screening and the response keep version 2's text.

The text lives once, in ``annotation.generation.default_prompts``. It is added as the
next number of each stage, after whatever versions the lab already saved, so no stored
version changes and new runs use it.
"""

from django.db import migrations

from annotation.generation.default_prompts import DEFAULTS_V3, NOTE_V3

from ._default_prompt_versions import add_version, remove_unused_version


def create_v3(apps, schema_editor):
    add_version(apps, DEFAULTS_V3, NOTE_V3)


def remove_v3(apps, schema_editor):
    remove_unused_version(apps, NOTE_V3)


class Migration(migrations.Migration):
    dependencies = [("annotation", "0016_history_state_here")]

    operations = [migrations.RunPython(create_v3, remove_v3)]
