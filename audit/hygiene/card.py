"""What the export's dataset card says about the release (MRBench App. D.4, D.5; issue
#37): its licence, intended use and out-of-scope uses (settings with the defaults below)
and the latest completed hygiene screen's summary."""

from django.conf import settings

from audit.hygiene.selectors import latest_completed_screen, screening_summary

#: The licence of the public HEART-Bench release the platform builds on (a Hugging Face
#: licence identifier, as the card's YAML header expects).
DEFAULT_LICENSE = "cc-by-nc-4.0"
DEFAULT_INTENDED_USE = (
    "Non-commercial research: evaluating how consistently a language model portrays a "
    "fictional character's personality and autobiographical memories when it decides in "
    "a scenario, with the multiple-choice items as the test set."
)
DEFAULT_OUT_OF_SCOPE = (
    "Training or fine-tuning models on the items, keys or references (it contaminates the "
    "benchmark).",
    "Assessing, diagnosing or profiling real people: the characters, their Big Five "
    "profiles and memories are fictional and designed.",
    "Deployment in user-facing products or any commercial use.",
)


def release_statement() -> dict:
    """The licence, intended use and out-of-scope uses the lab set (or the defaults)."""
    out_of_scope = getattr(settings, "HEARTBENCH_RELEASE_OUT_OF_SCOPE", None)
    return {
        "license": getattr(settings, "HEARTBENCH_RELEASE_LICENSE", None) or DEFAULT_LICENSE,
        "intended_use": getattr(settings, "HEARTBENCH_RELEASE_INTENDED_USE", None)
        or DEFAULT_INTENDED_USE,
        "out_of_scope_uses": list(out_of_scope or DEFAULT_OUT_OF_SCOPE),
    }


def card_fields() -> dict:
    """The statement and the screening summary (None when no screen has completed)."""
    return release_statement() | {"screening": screening_summary(latest_completed_screen())}
