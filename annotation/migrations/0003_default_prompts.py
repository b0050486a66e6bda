"""Version 1 of each generation prompt (seed 000 App. L.5), written into the database.

The text lives once, in ``annotation.generation.default_prompts`` (plain strings, no
Django), which this migration imports; that module's docstring says why it never changes.
"""

from django.db import migrations

from annotation.generation.default_prompts import DEFAULTS, NOTE


def create_defaults(apps, schema_editor):
    PromptVersion = apps.get_model("annotation", "PromptVersion")
    for stage, (system, user) in DEFAULTS.items():
        PromptVersion.objects.get_or_create(
            stage=stage,
            number=1,
            defaults={"system_template": system, "user_template": user, "note": NOTE},
        )


def remove_defaults(apps, schema_editor):
    PromptVersion = apps.get_model("annotation", "PromptVersion")
    GenerationRun = apps.get_model("annotation", "GenerationRun")
    if not GenerationRun.objects.exists():
        PromptVersion.objects.filter(number=1, note=NOTE).delete()


class Migration(migrations.Migration):
    dependencies = [("annotation", "0002_generation")]

    operations = [migrations.RunPython(create_defaults, remove_defaults)]
