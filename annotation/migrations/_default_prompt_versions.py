"""Adding and removing a later version of the default generation prompts, shared by the
data migrations that write one (0011: version 2, 0017: version 3). Not a migration: the
loader skips modules whose name starts with an underscore.

Each version is added as the next number of each stage, after whatever versions the lab
already saved, so no stored version changes and new runs use it; going back removes it
unless a run used it.
"""

from django.db.models import Max


def add_version(apps, defaults: dict, note: str) -> None:
    PromptVersion = apps.get_model("annotation", "PromptVersion")
    for stage, (system, user) in defaults.items():
        if PromptVersion.objects.filter(stage=stage, note=note).exists():
            continue
        latest = PromptVersion.objects.filter(stage=stage).aggregate(n=Max("number"))["n"] or 0
        PromptVersion.objects.create(
            stage=stage,
            number=latest + 1,
            system_template=system,
            user_template=user,
            note=note,
        )


def remove_unused_version(apps, note: str) -> None:
    PromptVersion = apps.get_model("annotation", "PromptVersion")
    GenerationRun = apps.get_model("annotation", "GenerationRun")
    used = set(GenerationRun.objects.values_list("screening_prompt", flat=True))
    used |= set(GenerationRun.objects.values_list("reranking_prompt", flat=True))
    used |= set(GenerationRun.objects.values_list("response_prompt", flat=True))
    PromptVersion.objects.filter(note=note).exclude(pk__in=used).delete()
