"""Text embeddings from an OpenAI-compatible endpoint (``POST {base}/embeddings``).

A lab serves an embedding model locally (Qwen3-Embedding behind vLLM, llama.cpp, Ollama,
TEI or a gateway); nothing is downloaded here. The request is the OpenAI one:
``{"model", "input": [texts], "encoding_format": "float"}`` plus ``"dimensions"`` when
configured (Matryoshka models such as Qwen3-Embedding cut their vectors to that size).

Texts go in batches of ``batch_size``; each batch is retried on 429, 408, 5xx, timeouts,
dropped connections, bodies cut short and bodies that are not the expected JSON, with
the same full-jitter backoff and Retry-After handling as the chat clients (`transport`).
Nothing the endpoint does raises: `embed` returns an `EmbeddingResult` whose
``error_kind`` is an `ErrorKind` value. The key is a `Secret` and never leaves a header.
"""

from __future__ import annotations

import dataclasses
import math
import os
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

from .config import MASK, Secret
from .outcome import TryOutcome, classify_exception, provider_message
from .records import TRANSPORT_RETRYABLE, ErrorKind
from .transport import full_jitter_backoff, limiter_for, retry_after_from_response

DEFAULT_BATCH_SIZE = 32
_LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}


@dataclass(frozen=True)
class EmbeddingConfig:
    base_url: str
    model: str
    api_key: Secret = field(default_factory=lambda: Secret(None))
    # None: the model's own vector size; else sent as "dimensions".
    dimensions: int | None = None
    batch_size: int = DEFAULT_BATCH_SIZE
    timeout: float = 60.0
    max_retries: int = 4
    backoff_base: float = 0.5
    backoff_cap: float = 30.0
    retry_after_max: float = 120.0
    concurrency: int = 4

    def __post_init__(self) -> None:
        if not isinstance(self.api_key, Secret):
            object.__setattr__(self, "api_key", Secret(self.api_key))
        key = self.api_key.reveal()
        if key and not all(" " < ch <= "~" for ch in key):
            raise ValueError("api_key contains characters that cannot go in an HTTP header")
        if not self.base_url:
            raise ValueError("an embedding endpoint needs a base URL")
        object.__setattr__(self, "base_url", self.base_url.rstrip("/"))
        if not self.model:
            raise ValueError("an embedding endpoint needs a model name")
        if self.dimensions is not None and self.dimensions < 1:
            raise ValueError("dimensions must be at least 1 (or unset for the model's own)")
        if self.batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if self.max_retries < 0:
            raise ValueError("max_retries cannot be negative")
        if self.timeout <= 0:
            raise ValueError("timeout must be positive")
        if self.concurrency < 1:
            raise ValueError("concurrency must be at least 1")

    @property
    def endpoint(self) -> str:
        return f"{self.base_url}/embeddings"

    def summary(self) -> dict[str, Any]:
        """What a record or a page may show: never the key."""
        return {
            "base_url": self.base_url,
            "model": self.model,
            "dimensions": self.dimensions,
            "batch_size": self.batch_size,
        }

    def __repr__(self) -> str:
        values = {
            f.name: MASK if f.name == "api_key" and self.api_key else getattr(self, f.name)
            for f in dataclasses.fields(self)
        }
        return "EmbeddingConfig(" + ", ".join(f"{k}={v!r}" for k, v in values.items()) + ")"

    __str__ = __repr__

    @classmethod
    def from_env(
        cls, prefix: str, environ: Mapping[str, str] | None = None
    ) -> EmbeddingConfig | None:
        """Read ``PREFIX_BASE_URL``, ``_MODEL``, ``_API_KEY``, ``_DIMENSIONS``,
        ``_BATCH_SIZE``, ``_TIMEOUT``, ``_MAX_RETRIES``, ``_BACKOFF_BASE``,
        ``_BACKOFF_CAP``, ``_RETRY_AFTER_MAX``, ``_CONCURRENCY``. None when neither a base
        URL nor a model is set (not configured); a ValueError naming the variable when
        only one is, or a value does not parse."""
        env = os.environ if environ is None else environ
        prefix = prefix.rstrip("_").upper()

        def get(name: str) -> str | None:
            value = env.get(f"{prefix}_{name}")
            return value.strip() if value not in (None, "") and value.strip() else None

        base_url, model = get("BASE_URL"), get("MODEL")
        if base_url is None and model is None:
            return None
        if base_url is None:
            raise ValueError(f"{prefix}_MODEL is set but {prefix}_BASE_URL is not")
        if model is None:
            raise ValueError(f"{prefix}_BASE_URL is set but {prefix}_MODEL is not")
        values: dict[str, Any] = {"base_url": base_url, "model": model}
        converters: dict[str, Any] = {
            "api_key": Secret,
            "dimensions": int,
            "batch_size": int,
            "timeout": float,
            "max_retries": int,
            "backoff_base": float,
            "backoff_cap": float,
            "retry_after_max": float,
            "concurrency": int,
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
        return cls(**values)


@dataclass
class EmbeddingResult:
    """The vectors of the texts asked for, in their order, or why there are none."""

    model: str
    ok: bool = False
    vectors: list[list[float]] = field(default_factory=list)
    tokens: int = 0
    requests: int = 0
    latency_s: float = 0.0
    error_kind: str | None = None
    error_message: str | None = None


class EmbeddingError(Exception):
    """An answer that is not the vectors asked for (the kind is malformed_response)."""


def read_vectors(data: Any, *, count: int, dimensions: int | None) -> tuple[list, int]:
    """(vectors in input order, prompt tokens) from an OpenAI embeddings body."""
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise EmbeddingError('the body has no "data" list')
    rows = data["data"]
    if len(rows) != count:
        raise EmbeddingError(f"{len(rows)} vectors for {count} texts")
    by_index: dict[int, list[float]] = {}
    for position, row in enumerate(rows):
        if not isinstance(row, dict) or not isinstance(row.get("embedding"), list):
            raise EmbeddingError(f'data[{position}] has no "embedding" list')
        index = row.get("index", position)
        if not isinstance(index, int) or not 0 <= index < count or index in by_index:
            raise EmbeddingError(f"data[{position}] has index {index!r}")
        vector = row["embedding"]
        if not vector or not all(
            isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)
            for x in vector
        ):
            raise EmbeddingError(f"data[{position}].embedding is not a list of finite numbers")
        by_index[index] = [float(x) for x in vector]
    sizes = {len(v) for v in by_index.values()}
    if len(sizes) > 1:
        raise EmbeddingError(f"vectors of different sizes {sorted(sizes)}")
    if dimensions is not None and sizes != {dimensions}:
        raise EmbeddingError(f"vectors of size {sizes.pop()}, not the {dimensions} asked for")
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    tokens = usage.get("prompt_tokens") or usage.get("total_tokens") or 0
    return [by_index[i] for i in range(count)], int(tokens) if isinstance(tokens, int) else 0


class EmbeddingClient:
    """A client for one embedding endpoint. Thread-safe."""

    def __init__(
        self,
        config: EmbeddingConfig,
        *,
        rng: random.Random | None = None,
        trust_env: bool | None = None,
    ) -> None:
        self.config = config
        self.rng = rng or random.Random()
        self.limiter = limiter_for(f"embeddings:{config.base_url}", config.concurrency)
        host = urlsplit(config.base_url).hostname or ""
        # A loopback endpoint (fake server, a local model server) bypasses any proxy.
        trust = (host not in _LOOPBACK_HOSTS) if trust_env is None else trust_env
        pool = self.limiter.limit + 2
        self._http = httpx.Client(
            timeout=httpx.Timeout(config.timeout),
            limits=httpx.Limits(max_connections=pool, max_keepalive_connections=pool),
            trust_env=trust,
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> EmbeddingClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _redact(self, text: str | None) -> str | None:
        key = self.config.api_key.reveal()
        return text.replace(key, MASK) if text and key else text

    def _body(self, texts: Sequence[str]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.config.model,
            "input": list(texts),
            "encoding_format": "float",
        }
        if self.config.dimensions is not None:
            body["dimensions"] = self.config.dimensions
        return body

    def _try(self, texts: Sequence[str]) -> tuple[TryOutcome, list | None, int]:
        out = TryOutcome()
        headers = {"content-type": "application/json"}
        if self.config.api_key:
            headers["authorization"] = f"Bearer {self.config.api_key.reveal()}"
        with self.limiter.hold():
            started = time.monotonic()
            try:
                response = self._http.post(
                    self.config.endpoint, json=self._body(texts), headers=headers
                )
            except Exception as exc:  # noqa: BLE001 - classified or re-raised
                classify_exception(exc, out, timeout=self.config.timeout, reading_body=False)
                out.latency = time.monotonic() - started
                return out, None, 0
            out.latency = time.monotonic() - started
        out.status = response.status_code
        status = response.status_code
        if status in (401, 403):
            out.error_kind = ErrorKind.CLIENT_ERROR
            out.error_message = f"HTTP {status}: authentication failed (check the API key)"
            return out, None, 0
        text = response.text
        if status == 429 or status == 408 or status >= 500:
            out.error_kind = {429: ErrorKind.RATE_LIMITED, 408: ErrorKind.TIMEOUT}.get(
                status, ErrorKind.SERVER_ERROR
            )
            out.retry_after = retry_after_from_response(response.headers, response.content)
            out.error_message = f"HTTP {status}{provider_message(text)}"
            return out, None, 0
        if status >= 400:
            out.error_kind = ErrorKind.CLIENT_ERROR
            out.error_message = f"HTTP {status}{provider_message(text)}"
            return out, None, 0
        try:
            vectors, tokens = read_vectors(
                response.json(), count=len(texts), dimensions=self.config.dimensions
            )
        except (ValueError, EmbeddingError) as exc:
            out.error_kind = ErrorKind.MALFORMED_RESPONSE
            out.error_message = f"HTTP {status}: unexpected embeddings body ({exc})"
            return out, None, 0
        return out, vectors, tokens

    def _batch(self, texts: Sequence[str], result: EmbeddingResult) -> list | None:
        for try_no in range(1, self.config.max_retries + 2):
            out, vectors, tokens = self._try(texts)
            result.requests += 1
            result.latency_s += out.latency
            if vectors is not None:
                result.tokens += tokens
                return vectors
            message = self._redact(out.error_message) or ""
            result.error_kind = str(out.error_kind)
            result.error_message = f"{self.config.endpoint}: {message}"
            if out.error_kind not in TRANSPORT_RETRYABLE:
                return None
            if try_no > self.config.max_retries:
                result.error_message += f" (gave up after {try_no} tries)"
                return None
            delay = full_jitter_backoff(
                try_no - 1, base=self.config.backoff_base, cap=self.config.backoff_cap, rng=self.rng
            )
            if out.retry_after is not None:
                if out.retry_after > self.config.retry_after_max:
                    result.error_message += (
                        f"; Retry-After {out.retry_after:.0f}s exceeds the "
                        f"{self.config.retry_after_max:.0f}s this client waits"
                    )
                    return None
                delay = max(delay, out.retry_after)
            time.sleep(delay)
        return None

    def embed(self, texts: Sequence[str]) -> EmbeddingResult:
        """The vectors of ``texts`` in order: all of them, or ``ok=False`` and the error."""
        result = EmbeddingResult(model=self.config.model)
        size = self.config.batch_size
        for start in range(0, len(texts), size):
            vectors = self._batch(texts[start : start + size], result)
            if vectors is None:
                result.vectors = []
                return result
            result.vectors.extend(vectors)
        result.ok = True
        result.error_kind = result.error_message = None
        return result
