"""Where a workflow's optional LLM comes from: settings first, then the environment."""

import os

from django.conf import settings

from llm import ProviderConfig


def configured_provider(prefix: str) -> ProviderConfig | None:
    """``settings.<prefix>_PROVIDER`` (a ``ProviderConfig``) when set; else the
    ``<prefix>_*`` environment when it names a KIND or a BASE_URL; else None."""
    configured = getattr(settings, f"{prefix}_PROVIDER", None)
    if configured is not None:
        return configured
    if not any(os.environ.get(f"{prefix}_{n}") for n in ("KIND", "BASE_URL")):
        return None
    return ProviderConfig.from_env(prefix, os.environ)
