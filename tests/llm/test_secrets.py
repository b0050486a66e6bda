"""The API key reaches the provider's auth header and nowhere else."""

import json
import logging
import pickle

import pytest

from llm import ProviderConfig, Secret, make_client
from llm.testing.replies import (
    disconnect,
    hang,
    http_error,
    malformed_body,
    non_json_reply,
    rate_limited,
    server_error,
    truncated_body,
    truncated_reply,
)

from .helpers import HTTP_KINDS, SECRET, VALID_CANDIDATE, call, config_for

AUTH_HEADERS = {
    "anthropic": ("x-api-key", SECRET),
    "openai": ("authorization", f"Bearer {SECRET}"),
    "openai_compatible": ("authorization", f"Bearer {SECRET}"),
    "gemini": ("x-goog-api-key", SECRET),
}


@pytest.mark.parametrize("kind", HTTP_KINDS)
def test_key_never_appears_in_records_logs_or_reprs(server, kind, caplog):
    caplog.set_level(logging.DEBUG)  # httpx and httpcore included
    # An error body that echoes the key, as some providers' 401s do in part.
    server.enqueue(
        rate_limited(retry_after=0),
        server_error(500),
        http_error(503, body=f"upstream rejected key {SECRET}"),
        malformed_body(),
        truncated_body(),
        disconnect(),
        hang(2),
        non_json_reply(),
        truncated_reply(),
        VALID_CANDIDATE,
        http_error(401, body=f"Incorrect API key provided: {SECRET}"),
    )
    config = config_for(server, kind, max_retries=8, timeout=1.0)
    client = make_client(config)
    ok = call(client)
    failed = call(client)
    assert ok.ok, ok.failure_reason
    assert not failed.ok and "401" in failed.error_message

    # The header arrived on every request...
    header, value = AUTH_HEADERS[kind]
    assert all(r.headers.get(header) == value for r in server.requests)
    # ...and the key is nowhere else the application can see.
    visible = [
        json.dumps(ok.as_dict()),
        json.dumps(failed.as_dict()),
        repr(ok),
        repr(failed),
        repr(config),
        str(config),
        json.dumps(config.as_dict()),
        repr(client),
        repr(config.api_key),
        str(config.api_key),
        f"{config.api_key}",
        caplog.text,
        "\n".join(r.getMessage() for r in caplog.records),
    ]
    for text in visible:
        assert SECRET not in text
    # URLs never carry it either (Gemini's ?key= is not used).
    assert all(SECRET not in r.path and not r.query for r in server.requests)
    client.close()


def test_secret_masks_itself_and_refuses_pickling():
    secret = Secret(SECRET)
    assert secret.reveal() == SECRET
    assert SECRET not in repr(secret) and SECRET not in str(secret)
    with pytest.raises(TypeError):
        pickle.dumps(secret)
    assert not Secret(None) and str(Secret("")) == ""


def test_config_errors_do_not_echo_values():
    with pytest.raises(ValueError) as excinfo:
        ProviderConfig.from_env("OPENAI", {"OPENAI_MODEL": "m", "OPENAI_TIMEOUT": SECRET})
    assert SECRET not in str(excinfo.value)
    assert "OPENAI_TIMEOUT" in str(excinfo.value)


def test_key_with_header_breaking_characters_is_refused_without_echo():
    with pytest.raises(ValueError) as excinfo:
        ProviderConfig(kind="openai", model="m", api_key=f"{SECRET}\x00tail")
    assert SECRET not in str(excinfo.value)
    # Surrounding whitespace (a key read from a file) is trimmed, not refused.
    config = ProviderConfig(kind="openai", model="m", api_key=f"  {SECRET}\n")
    assert config.api_key.reveal() == SECRET
