"""The memory audit's settings versions (App. B.6, L.3 defaults) and the models it may call:
the repair model and the optional LLM classifier, with their prices (issue #36)."""

from django.conf import settings
from django.db import connection, models, transaction

from audit.memory_quality import criteria, selectors
from audit.memory_quality.models import NOTE_MAX_CHARS, AuditError, AuditSettings
from audit.memory_quality.services.prices import CLASSIFIER_PROVIDER_PREFIX, REPAIR_PROVIDER_PREFIX
from audit.memory_quality.services.records import log_event, require_role
from core.providers import configured_provider
from core.roles import Role
from core.text_rules import check_text
from llm import ProviderConfig

# Structured-output rounds per repair attempt (a reply that fails the schema is sent
# back once with the problem named); the protocol's three attempts count separately.
REPAIR_ROUNDS = 2
# App. B.6: the reviewers judged the false positives unanimously; the paper's team is
# three (the three researchers of §2.2).
DEFAULT_OVERRIDE_TEAM = 3


def audit_settings_defaults() -> dict:
    return {
        "omniscient_patterns": list(criteria.OMNISCIENT_PATTERNS),
        "adult_evaluation_patterns": list(criteria.ADULT_EVALUATION_PATTERNS),
        "adult_evaluation_max_age": criteria.ADULT_EVALUATION_MAX_AGE,
        "psychoanalytic_terms": list(criteria.PSYCHOANALYTIC_TERMS),
        "low_intensity_threshold": criteria.LOW_INTENSITY_THRESHOLD,
        "context_words_min": criteria.CONTEXT_WORDS[0],
        "context_words_max": criteria.CONTEXT_WORDS[1],
        "summary_words_min": criteria.SUMMARY_WORDS[0],
        "summary_words_max": criteria.SUMMARY_WORDS[1],
        "duplicate_threshold": criteria.DUPLICATE_THRESHOLD,
        "age_windows": [
            {"key": w.key, "first_age": w.first_age, "last_age": w.last_age}
            for w in criteria.default_windows()
        ],
        "length_max_chars": criteria.LENGTH_MAX_CHARS,
        "guided_min_chars": criteria.GUIDED_LENGTH[0],
        "guided_max_chars": criteria.GUIDED_LENGTH[1],
        "max_repair_attempts": criteria.MAX_REPAIR_ATTEMPTS,
        "enabled_criteria": sorted(criteria.CRITERIA),
        "narrator_labels": dict(criteria.NARRATOR_LABELS),
        "character_names": {},
    }


def _check_column_ranges(values: dict) -> None:
    """Every whole-number setting fits its column (a script may send any number)."""
    problems = []
    for name, value in values.items():
        field = AuditSettings._meta.get_field(name)
        if isinstance(field, models.IntegerField) and isinstance(value, int):
            low, high = connection.ops.integer_field_range(field.get_internal_type())
            if (low is not None and value < low) or (high is not None and value > high):
                problems.append(
                    f"{field.verbose_name.capitalize()} must be between {low} and {high} "
                    f"(it is {value})."
                )
    if problems:
        raise AuditError(problems)


@transaction.atomic
def audit_settings_create(*, created_by, note: str = "", **fields) -> AuditSettings:
    """A new settings version: the latest one (or the protocol's defaults) with
    ``fields`` changed. Earlier versions stay as they were, for the runs that used them."""
    if created_by is not None:
        require_role(created_by, Role.ADMIN, "change the audit settings")
    check_text(note or "", label="What changed and why", limit=NOTE_MAX_CHARS, error=AuditError)
    unknown = set(fields) - set(audit_settings_defaults())
    if unknown:
        raise AuditError(f"Unknown audit settings: {', '.join(sorted(unknown))}.")
    latest = AuditSettings.objects.select_for_update().order_by("-number").first()
    values = audit_settings_defaults()
    if latest is not None:
        values = {name: getattr(latest, name) for name in values}
    values.update(fields)
    _check_column_ranges(values)
    if values["context_words_min"] > values["context_words_max"]:
        raise AuditError("The context's minimum word count is above its maximum.")
    if values["summary_words_min"] > values["summary_words_max"]:
        raise AuditError("The summary's minimum word count is above its maximum.")
    if not 0 < values["duplicate_threshold"] < 1:
        raise AuditError("The duplication threshold is a cosine strictly between 0 and 1.")
    bad = set(values["enabled_criteria"]) - set(criteria.CRITERIA)
    if bad:
        raise AuditError(f"There is no criterion {sorted(bad)}; the criteria are 1-6.")
    number = (latest.number if latest else 0) + 1
    version = AuditSettings.objects.create(
        number=number, note=note, created_by=created_by, **values
    )
    log_event(actor=created_by, action="settings_created", number=number, note=note)
    return version


def audit_settings_current() -> AuditSettings:
    """The latest version; the protocol's defaults become version 1 on first use."""
    return selectors.audit_settings_latest() or audit_settings_create(
        created_by=None, note="The protocol's defaults (seed 000 App. B.6, L.3)"
    )


def repair_provider() -> ProviderConfig | None:
    """The repair model: ``settings.HEARTBENCH_AUDIT_REPAIR_PROVIDER`` when set, else
    ``HEARTBENCH_AUDIT_REPAIR_*`` from the environment (llm/README.md), else none."""
    return configured_provider(REPAIR_PROVIDER_PREFIX)


def classifier_provider() -> ProviderConfig | None:
    """The optional LLM classifier: ``HEARTBENCH_AUDIT_CLASSIFIER_PROVIDER`` / ``_*``."""
    return configured_provider(CLASSIFIER_PROVIDER_PREFIX)


def run_providers(run) -> set[str]:
    """The providers (``llm`` kinds) an audit run's LLM calls go to, for the lab's monthly
    caps (issue #36): the repair model's and the classifier's, where configured."""
    return {p.kind.value for p in (repair_provider(), classifier_provider()) if p is not None}


def override_team_size() -> int:
    """How many distinct memory reviewers must agree before a false-positive override
    takes effect: ``HEARTBENCH_MEMORY_AUDIT_OVERRIDE_TEAM`` (default 3, at least 1)."""
    value = getattr(settings, "HEARTBENCH_MEMORY_AUDIT_OVERRIDE_TEAM", DEFAULT_OVERRIDE_TEAM)
    try:
        value = int(value)
    except (TypeError, ValueError):
        raise AuditError(
            f"HEARTBENCH_MEMORY_AUDIT_OVERRIDE_TEAM must be a whole number, not {value!r}."
        ) from None
    if value < 1:
        raise AuditError("HEARTBENCH_MEMORY_AUDIT_OVERRIDE_TEAM must be at least 1.")
    return value
