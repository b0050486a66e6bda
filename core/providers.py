"""Where a workflow's optional LLM comes from: settings first, then the environment."""

import json
import os
import threading

from django.conf import settings

from llm import ProviderConfig, make_client


def configured_provider(prefix: str) -> ProviderConfig | None:
    """``settings.<prefix>_PROVIDER`` (a ``ProviderConfig``) when set; else the
    ``<prefix>_*`` environment when it names a KIND or a BASE_URL; else None."""
    configured = getattr(settings, f"{prefix}_PROVIDER", None)
    if configured is not None:
        return configured
    if not any(os.environ.get(f"{prefix}_{n}") for n in ("KIND", "BASE_URL")):
        return None
    return ProviderConfig.from_env(prefix, os.environ)


# --- Clients and call records, shared by every stage that calls a model -----------------

_clients: dict = {}
_clients_lock = threading.Lock()


def cached_client(config: ProviderConfig):
    """One client per provider config and process: clients hold connection pools and are
    thread-safe. Created lazily, so a prefork worker builds its own after the fork."""
    with _clients_lock:
        client = _clients.get(config)
        if client is None:
            client = _clients[config] = make_client(config)
        return client


def clear_client_cache() -> None:
    """Forget every cached client (tests that point a config at another server)."""
    with _clients_lock:
        _clients.clear()


def storable(value):
    """``value`` with every NUL replaced, in strings, list items and dict keys and values:
    PostgreSQL text and jsonb cannot hold NUL, and a broken provider body may contain one.
    A value with no NUL anywhere is returned as it is."""
    if isinstance(value, list | dict) and not _may_hold_nul(value):
        # A call's request is tens of KB in a few hundred nodes: one look at its JSON
        # text (C speed) spares walking it in Python on every call.
        return value
    return _without_nul(value)


def _without_nul(value):
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd") if "\x00" in value else value
    if isinstance(value, list):
        return [_without_nul(v) for v in value]
    if isinstance(value, dict):
        return {_without_nul(k): _without_nul(v) for k, v in value.items()}
    return value


def _may_hold_nul(value) -> bool:
    """False only when ``value`` certainly holds no NUL: its JSON text escapes a NUL as
    ``\\u0000`` wherever it is, keys included. A value JSON cannot write is walked."""
    try:
        return "\\u0000" in json.dumps(value)
    except (TypeError, ValueError):
        return True


# --- Temperature 0 where the endpoint supports it (seed 000 App. L.4, L.5.1-2) -----------


def at_temperature(config: ProviderConfig, temperature: float) -> ProviderConfig:
    """``config`` at the protocol's temperature: a temperature the config (its environment)
    sets is not sent, since the paper fixes this one (L.4, L.5.1-2: 0 where supported)."""
    return config.with_options(temperature=temperature)


def temperature_refused(result) -> bool:
    """The endpoint refused the temperature parameter (some reasoning models accept only
    their default): the caller asks again without it, i.e. at the endpoint default."""
    return (
        not result.ok
        and result.error_kind == "client_error"
        and "temperature" in (result.error_message or "").lower()
    )
