"""Provider configuration: which API, where, with which key, and how hard to push it.

Keys come from the environment (or settings that read it), never from the database and
never into a log line, a repr, an exception message or a call record: the key is held in
a `Secret`, whose repr and str are a mask, and only the transport calls `reveal()`.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class ProviderKind(StrEnum):
    ANTHROPIC = "anthropic"
    OPENAI = "openai"
    GEMINI = "gemini"
    OPENAI_COMPATIBLE = "openai_compatible"
    OFFLINE_DEMO = "offline_demo"


class ResponseFormatMode(StrEnum):
    """How the request asks the provider for JSON.

    `auto`: OpenAI gets `json_schema` (non-strict) when the schema's root is an object,
    an OpenAI-compatible endpoint gets `json_object`, Gemini gets
    `responseMimeType: application/json`, Anthropic relies on the instruction in the
    system prompt. `json_schema` sends the schema itself: OpenAI and compatible endpoints
    `response_format: json_schema`, Gemini `responseJsonSchema`, Anthropic a forced tool
    whose input is the answer (an object-rooted schema only). In every mode the client
    validates the reply against the schema itself.
    """

    AUTO = "auto"
    JSON_SCHEMA = "json_schema"
    JSON_OBJECT = "json_object"
    NONE = "none"


DEFAULT_BASE_URLS = {
    ProviderKind.ANTHROPIC: "https://api.anthropic.com",
    ProviderKind.OPENAI: "https://api.openai.com/v1",
    ProviderKind.GEMINI: "https://generativelanguage.googleapis.com",
    ProviderKind.OPENAI_COMPATIBLE: "http://127.0.0.1:8000/v1",
    ProviderKind.OFFLINE_DEMO: "",
}

# A prefix names its provider unless PREFIX_KIND says otherwise.
PREFIX_KINDS = {
    "ANTHROPIC": ProviderKind.ANTHROPIC,
    "CLAUDE": ProviderKind.ANTHROPIC,
    "OPENAI": ProviderKind.OPENAI,
    "GPT": ProviderKind.OPENAI,
    "GEMINI": ProviderKind.GEMINI,
    "GOOGLE": ProviderKind.GEMINI,
    "OFFLINE_DEMO": ProviderKind.OFFLINE_DEMO,
}

# Rounds of a structured call (a reply that fails its schema is sent back with its problems).
DEFAULT_MAX_ATTEMPTS = 3
MASK = "***"

#: Reasoning (thinking) effort a request can ask for; "none" switches reasoning off.
#: Each wire format sends it in its own field (llm/wire.py); None sends nothing.
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high")


class Secret:
    """A string that does not print itself. `reveal()` is the only way to read it."""

    __slots__ = ("_value",)

    def __init__(self, value: str | None) -> None:
        # A key pasted from a file often carries a newline; it can never be part of one.
        self._value = (value or "").strip()

    def reveal(self) -> str:
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)

    def __repr__(self) -> str:
        return f"Secret({MASK!r})" if self._value else "Secret('')"

    def __str__(self) -> str:
        return MASK if self._value else ""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(("Secret", self._value))

    def __reduce__(self):
        # Pickling would carry the key into a broker message or a cache; refuse.
        raise TypeError("Secret values are not picklable; rebuild the config from settings")


def _reasoning_effort(raw: str) -> str:
    value = raw.strip().lower()
    if value not in REASONING_EFFORTS:
        raise ValueError("not a reasoning effort")
    return value


@dataclass(frozen=True)
class ProviderConfig:
    kind: ProviderKind
    model: str
    base_url: str = ""
    api_key: Secret = field(default_factory=lambda: Secret(None))
    timeout: float = 60.0
    # Transport retries per structured-output round (429, 5xx, timeouts, broken bodies).
    max_retries: int = 4
    backoff_base: float = 0.5
    backoff_cap: float = 30.0
    # A Retry-After longer than this is not waited out; the call fails as rate_limited.
    retry_after_max: float = 120.0
    concurrency: int = 8
    # Clients whose configs share a group share one concurrency budget in the process.
    # Empty means "kind + base URL", i.e. one budget per provider endpoint.
    concurrency_group: str = ""
    max_tokens: int = 4096
    # None leaves the endpoint default (App. L.5: temperature 0 "where supported").
    temperature: float | None = None
    response_format: ResponseFormatMode = ResponseFormatMode.AUTO
    # None leaves the model's default (no reasoning field is sent); see REASONING_EFFORTS.
    reasoning_effort: str | None = None
    anthropic_version: str = "2023-06-01"
    gemini_api_version: str = "v1beta"
    extra_headers: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", ProviderKind(self.kind))
        object.__setattr__(self, "response_format", ResponseFormatMode(self.response_format))
        if not isinstance(self.api_key, Secret):
            object.__setattr__(self, "api_key", Secret(self.api_key))
        key = self.api_key.reveal()
        if key and not all(" " < ch <= "~" for ch in key):
            # Said here, without the value: an HTTP library would quote it in its error.
            raise ValueError("api_key contains characters that cannot go in an HTTP header")
        if not self.base_url:
            object.__setattr__(self, "base_url", DEFAULT_BASE_URLS[self.kind])
        object.__setattr__(self, "base_url", self.base_url.rstrip("/"))
        if isinstance(self.extra_headers, Mapping):
            object.__setattr__(self, "extra_headers", tuple(self.extra_headers.items()))
        if self.concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if self.max_retries < 0:
            raise ValueError("max_retries cannot be negative")
        if self.timeout <= 0:
            raise ValueError("timeout must be positive")
        if not self.model:
            raise ValueError(f"a model name is required for provider {self.kind.value}")
        if self.reasoning_effort is not None and self.reasoning_effort not in REASONING_EFFORTS:
            raise ValueError(f"reasoning_effort must be one of {', '.join(REASONING_EFFORTS)}")

    @property
    def limiter_key(self) -> str:
        return self.concurrency_group or f"{self.kind.value}:{self.base_url}"

    @property
    def is_demo(self) -> bool:
        return self.kind is ProviderKind.OFFLINE_DEMO

    def with_options(self, **changes: Any) -> ProviderConfig:
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> dict[str, Any]:
        """JSON-able description for records and admin pages; the key is masked."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "api_key":
                value = MASK if value else ""
            elif isinstance(value, StrEnum):
                value = value.value
            elif f.name == "extra_headers":
                value = {k: MASK for k, _ in value}
            out[f.name] = value
        return out

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.as_dict().items())
        return f"ProviderConfig({inner})"

    __str__ = __repr__

    @classmethod
    def from_env(
        cls,
        prefix: str,
        environ: Mapping[str, str] | None = None,
        *,
        kind: ProviderKind | str | None = None,
        **defaults: Any,
    ) -> ProviderConfig:
        """Read `PREFIX_*` variables: KIND, API_KEY, BASE_URL, MODEL, TIMEOUT,
        MAX_RETRIES, BACKOFF_BASE, BACKOFF_CAP, RETRY_AFTER_MAX, CONCURRENCY,
        CONCURRENCY_GROUP, MAX_TOKENS, TEMPERATURE, RESPONSE_FORMAT, REASONING_EFFORT.

        `ProviderConfig.from_env("ANTHROPIC")` reads ANTHROPIC_API_KEY and friends;
        `from_env("HEARTBENCH_SCREEN", kind="gemini")` reads HEARTBENCH_SCREEN_*.
        Keyword defaults apply where the variable is unset.
        """
        env = os.environ if environ is None else environ
        prefix = prefix.rstrip("_").upper()

        def get(name: str) -> str | None:
            value = env.get(f"{prefix}_{name}")
            return value if value not in (None, "") else None

        resolved_kind = get("KIND") or kind or defaults.pop("kind", None)
        if resolved_kind is None:
            resolved_kind = PREFIX_KINDS.get(prefix.split("_")[-1]) or PREFIX_KINDS.get(prefix)
        if resolved_kind is None:
            raise ValueError(f"{prefix}_KIND is not set and the prefix names no provider")
        values: dict[str, Any] = dict(defaults)
        values["kind"] = ProviderKind(resolved_kind)
        converters: dict[str, Any] = {
            "api_key": Secret,
            "base_url": str,
            "model": str,
            "timeout": float,
            "max_retries": int,
            "backoff_base": float,
            "backoff_cap": float,
            "retry_after_max": float,
            "concurrency": int,
            "concurrency_group": str,
            "max_tokens": int,
            "temperature": float,
            "response_format": ResponseFormatMode,
            "reasoning_effort": _reasoning_effort,
        }
        for name, convert in converters.items():
            raw = get(name.upper())
            if raw is None:
                continue
            try:
                values[name] = convert(raw)
            except ValueError:
                # Never echo the raw value: it might be the key pasted in the wrong variable.
                raise ValueError(f"{prefix}_{name.upper()} has an invalid value") from None
        if values["kind"] is ProviderKind.OFFLINE_DEMO:
            values.setdefault("model", "offline-demo")
        if "model" not in values:
            raise ValueError(f"{prefix}_MODEL is not set")
        return cls(**values)
