"""Version 2 of each generation prompt (seed 000 App. D.1, B.2, L.5; issue 20): re-ranking
keeps at most the target, and the character block of App. B.2.

The text lives once, in ``annotation.generation.default_prompts``. It is added as the
next number of each stage, after whatever versions the lab already saved, so no stored
version changes and new runs use it.
"""

from django.db import migrations
from django.db.models import Max

from annotation.generation.default_prompts import DEFAULTS_V2, NOTE_V2


def create_v2(apps, schema_editor):
    PromptVersion = apps.get_model("annotation", "PromptVersion")
    for stage, (system, user) in DEFAULTS_V2.items():
        if PromptVersion.objects.filter(stage=stage, note=NOTE_V2).exists():
            continue
        latest = PromptVersion.objects.filter(stage=stage).aggregate(n=Max("number"))["n"] or 0
        PromptVersion.objects.create(
            stage=stage,
            number=latest + 1,
            system_template=system,
            user_template=user,
            note=NOTE_V2,
        )


def remove_v2(apps, schema_editor):
    PromptVersion = apps.get_model("annotation", "PromptVersion")
    GenerationRun = apps.get_model("annotation", "GenerationRun")
    used = set(GenerationRun.objects.values_list("screening_prompt", flat=True))
    used |= set(GenerationRun.objects.values_list("reranking_prompt", flat=True))
    used |= set(GenerationRun.objects.values_list("response_prompt", flat=True))
    PromptVersion.objects.filter(note=NOTE_V2).exclude(pk__in=used).delete()


class Migration(migrations.Migration):
    dependencies = [("annotation", "0010_scenario_reassessment_proposals")]

    operations = [migrations.RunPython(create_v2, remove_v2)]
