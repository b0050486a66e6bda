"""What the drafting services share: the refusal, the admin check, the drafting model's
configuration and a job's final status."""

import os
from decimal import Decimal, InvalidOperation

from django.conf import settings
from django.core.exceptions import ValidationError

import llm
from annotation.character_drafting.models import CharacterDraft, DraftingJob
from core.llm_runs.services import RunFlow
from core.providers import configured_provider
from core.roles import CORPUS_ADMINS, has_any_role

#: settings.HEARTBENCH_DRAFTING_PROVIDER, else HEARTBENCH_DRAFTING_* in the environment.
PROVIDER_PREFIX = "HEARTBENCH_DRAFTING"
#: Model calls per draft (each with its own structured-output rounds) before a draft
#: whose output keeps breaking the rules is reported: settings.HEARTBENCH_DRAFTING_MAX_ATTEMPTS.
DEFAULT_MAX_ATTEMPTS = 3
NOT_CONFIGURED_MESSAGE = (
    "No drafting model is configured: set HEARTBENCH_DRAFTING_KIND (anthropic, openai, "
    "gemini, openai_compatible or offline_demo) with HEARTBENCH_DRAFTING_MODEL and its "
    "API key or base URL in the environment, or settings.HEARTBENCH_DRAFTING_PROVIDER."
)

DraftStatus = CharacterDraft.Status
JobStatus = DraftingJob.Status


class DraftingError(ValidationError):
    """A drafting action that cannot be carried out as asked; the message says why."""


def require_admin(user, doing: str) -> None:
    if user is not None and not has_any_role(user, CORPUS_ADMINS):
        raise DraftingError(f"Only an admin can {doing}.")


def max_attempts_setting() -> int:
    return int(getattr(settings, "HEARTBENCH_DRAFTING_MAX_ATTEMPTS", DEFAULT_MAX_ATTEMPTS))


def drafting_provider() -> llm.ProviderConfig | None:
    """The configured drafting model, or None. A malformed environment is a refusal
    naming the variable (never its value)."""
    try:
        return configured_provider(PROVIDER_PREFIX)
    except ValueError as error:
        raise DraftingError(f"The drafting model's configuration is invalid: {error}.") from None


def drafting_prices(environ=None) -> tuple[Decimal, Decimal]:
    """USD per million tokens in and out of the drafting model:
    ``HEARTBENCH_DRAFTING_PRICE_IN`` / ``_PRICE_OUT`` in the environment of the process
    that makes the call (unset: 0, unknown). Every call records its cost at these."""
    env = os.environ if environ is None else environ
    prices = []
    for name in ("PRICE_IN", "PRICE_OUT"):
        raw = (env.get(f"{PROVIDER_PREFIX}_{name}") or "0").strip()
        try:
            price = Decimal(raw)
        except InvalidOperation:
            raise DraftingError(f"{PROVIDER_PREFIX}_{name} is not a number.") from None
        if not price.is_finite() or price < 0:
            raise DraftingError(f"{PROVIDER_PREFIX}_{name} must be a number ≥ 0.")
        prices.append(price)
    return prices[0], prices[1]


def job_providers(job: DraftingJob) -> set[str]:
    """The provider a job calls (for the lab's monthly caps, issue #36)."""
    return {job.provider} if job.provider else set()


# A job's transitions (core.llm_runs): a draft queued again starts with no findings.
FLOW = RunFlow(
    run_model=DraftingJob,
    unit_model=CharacterDraft,
    error=DraftingError,
    label="Drafting job",
    run_field="job",
    reopen_fields={"problems": [], "warnings": []},
    providers=job_providers,
)


def job_finish_if_done(*, job_id: int) -> None:
    """Give a job whose drafts are all final its final status (under the job's lock)."""
    FLOW.finish_if_done(run_id=job_id)
