"""Memory prompt versions (seed 000 App. L.3): the next numbered version, never an edit."""

from django.db import transaction
from django.db.models import Max

from annotation.memory_generation import prompts
from annotation.memory_generation.models import MemoryPromptVersion
from annotation.memory_generation.services.runs import MemoryGenerationError
from core.text_rules import NOTE, TEXT, check_text


def _braces(names) -> str:
    return ", ".join(f"{{{n}}}" for n in sorted(names))


@transaction.atomic
def memory_prompt_create(
    *, user, system_template: str, user_template: str, note: str = ""
) -> MemoryPromptVersion:
    """The next version of the memory prompt; new runs use the latest. Refused, naming
    the placeholder, when a template uses one the prompt does not fill or drops one a
    rule of App. L.3 depends on."""
    check_text(system_template, label="System prompt", limit=TEXT, error=MemoryGenerationError)
    check_text(user_template, label="User prompt template", limit=TEXT, error=MemoryGenerationError)
    check_text(note, label="What changed", limit=NOTE, error=MemoryGenerationError)
    templates = {"system": system_template or "", "user": user_template or ""}
    for part, text in templates.items():
        if not text.strip():
            raise MemoryGenerationError(f"The {part} template needs text.")
    for part, text in templates.items():
        unknown = prompts.unknown_placeholders(part, text)
        if unknown:
            raise MemoryGenerationError(
                f"Unknown placeholder {_braces(unknown)} in the {part} template; it can use "
                f"{_braces(prompts.PLACEHOLDERS[part])}."
            )
        missing = prompts.missing_placeholders(part, text)
        if missing:
            raise MemoryGenerationError(
                f"The {part} template must keep {_braces(missing)}: every memory needs it."
            )
    prompts.latest_prompt()  # version 1 first, if the database has none
    # Lock the versions so two admins saving at once get consecutive numbers.
    list(MemoryPromptVersion.objects.select_for_update().values_list("pk"))
    last = MemoryPromptVersion.objects.aggregate(n=Max("number"))["n"] or 0
    return MemoryPromptVersion.objects.create(
        number=last + 1,
        system_template=system_template,
        user_template=user_template,
        note=note,
        created_by=user,
    )
