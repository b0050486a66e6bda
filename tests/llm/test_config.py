"""Provider configuration from the environment."""

import pytest

from llm import ProviderConfig, ProviderKind, ResponseFormatMode

from .helpers import SECRET


def test_from_env_reads_the_prefixed_variables():
    env = {
        "ANTHROPIC_API_KEY": SECRET,
        "ANTHROPIC_MODEL": "claude-sonnet-4-6",
        "ANTHROPIC_BASE_URL": "https://gateway.example/anthropic/",
        "ANTHROPIC_TIMEOUT": "12.5",
        "ANTHROPIC_MAX_RETRIES": "2",
        "ANTHROPIC_CONCURRENCY": "16",
        "ANTHROPIC_MAX_TOKENS": "2048",
        "ANTHROPIC_TEMPERATURE": "0",
    }
    config = ProviderConfig.from_env("ANTHROPIC", env)
    assert config.kind is ProviderKind.ANTHROPIC
    assert config.api_key.reveal() == SECRET
    assert config.model == "claude-sonnet-4-6"
    assert config.base_url == "https://gateway.example/anthropic"
    assert (config.timeout, config.max_retries, config.concurrency) == (12.5, 2, 16)
    assert (config.max_tokens, config.temperature) == (2048, 0.0)


@pytest.mark.parametrize(
    ("prefix", "kind", "base_url"),
    [
        ("OPENAI", ProviderKind.OPENAI, "https://api.openai.com/v1"),
        ("GEMINI", ProviderKind.GEMINI, "https://generativelanguage.googleapis.com"),
        ("HEARTBENCH_CLAUDE", ProviderKind.ANTHROPIC, "https://api.anthropic.com"),
    ],
)
def test_prefix_names_the_provider_and_its_default_url(prefix, kind, base_url):
    config = ProviderConfig.from_env(prefix, {f"{prefix}_MODEL": "m"})
    assert config.kind is kind
    assert config.base_url == base_url
    assert not config.api_key


def test_kind_variable_selects_an_openai_compatible_endpoint_without_key():
    env = {
        "LOCAL_KIND": "openai_compatible",
        "LOCAL_BASE_URL": "http://127.0.0.1:11434/v1",
        "LOCAL_MODEL": "llama3.1",
        "LOCAL_RESPONSE_FORMAT": "json_schema",
    }
    config = ProviderConfig.from_env("LOCAL", env)
    assert config.kind is ProviderKind.OPENAI_COMPATIBLE
    assert config.response_format is ResponseFormatMode.JSON_SCHEMA
    assert not config.api_key


def test_offline_demo_needs_no_model_or_key():
    config = ProviderConfig.from_env("DEMO", {"DEMO_KIND": "offline_demo"})
    assert config.is_demo
    assert config.model == "offline-demo"


def test_missing_model_and_unknown_prefix_are_explained():
    with pytest.raises(ValueError, match="OPENAI_MODEL"):
        ProviderConfig.from_env("OPENAI", {})
    with pytest.raises(ValueError, match="SOMETHING_KIND"):
        ProviderConfig.from_env("SOMETHING", {"SOMETHING_MODEL": "m"})


def test_keyword_defaults_apply_when_unset():
    config = ProviderConfig.from_env("GEMINI", {"GEMINI_MODEL": "g"}, concurrency=4, timeout=9)
    assert (config.concurrency, config.timeout) == (4, 9)


def test_invalid_settings_are_rejected():
    with pytest.raises(ValueError):
        ProviderConfig(kind="openai", model="m", concurrency=0)
    with pytest.raises(ValueError):
        ProviderConfig(kind="no-such-provider", model="m")


def test_limiter_key_is_per_endpoint_unless_grouped():
    a = ProviderConfig(kind="openai", model="a")
    b = ProviderConfig(kind="openai", model="b")
    c = ProviderConfig(kind="openai", model="c", concurrency_group="batch")
    assert a.limiter_key == b.limiter_key != c.limiter_key
