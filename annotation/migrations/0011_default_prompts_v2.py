"""Version 2 of each generation prompt (seed 000 App. D.1, B.2, L.5; issue 20): re-ranking
keeps at most the target, and the character block of App. B.2.

The text lives once, in ``annotation.generation.default_prompts``. It is added as the
next number of each stage, after whatever versions the lab already saved, so no stored
version changes and new runs use it.
"""

from django.db import migrations

from annotation.generation.default_prompts import DEFAULTS_V2, NOTE_V2

from ._default_prompt_versions import add_version, remove_unused_version


def create_v2(apps, schema_editor):
    add_version(apps, DEFAULTS_V2, NOTE_V2)


def remove_v2(apps, schema_editor):
    remove_unused_version(apps, NOTE_V2)


class Migration(migrations.Migration):
    dependencies = [("annotation", "0010_scenario_reassessment_proposals")]

    operations = [migrations.RunPython(create_v2, remove_v2)]
