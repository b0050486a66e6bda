"""Provider clients and structured-output parsing for heartbench. No Django here.

    from llm import ProviderConfig, make_client
    client = make_client(ProviderConfig.from_env("ANTHROPIC"))
    result = client.complete_json(system=..., user=..., schema=...)
    if result.ok: use(result.parsed)
    else: record(result.error_kind, result.error_message)

The offline demo provider (``llm.demo``) is imported only when a config selects it
(``make_client``), so ``import llm`` stays light. See llm/README.md.
"""

from .client import JSONCompletionClient, ProviderClient, make_client
from .config import (
    DEFAULT_MAX_ATTEMPTS,
    REASONING_EFFORTS,
    ProviderConfig,
    ProviderKind,
    ResponseFormatMode,
    Secret,
)
from .conversation import validator_for_schema
from .embeddings import EmbeddingClient, EmbeddingConfig, EmbeddingResult
from .records import AttemptRecord, CallResult, ErrorKind, prompt_hash
from .runner import JsonCall, Throughput, arun_many, run_many
from .structured import SchemaValidator, parse_json_text, strip_code_fence
from .transport import (
    ConcurrencyLimiter,
    full_jitter_backoff,
    limiter_for,
    parse_retry_after,
    reset_limiters,
)

__all__ = [
    "DEFAULT_MAX_ATTEMPTS",
    "REASONING_EFFORTS",
    "AttemptRecord",
    "CallResult",
    "ConcurrencyLimiter",
    "EmbeddingClient",
    "EmbeddingConfig",
    "EmbeddingResult",
    "ErrorKind",
    "JSONCompletionClient",
    "JsonCall",
    "ProviderClient",
    "ProviderConfig",
    "ProviderKind",
    "ResponseFormatMode",
    "SchemaValidator",
    "Secret",
    "Throughput",
    "arun_many",
    "full_jitter_backoff",
    "limiter_for",
    "make_client",
    "parse_json_text",
    "parse_retry_after",
    "prompt_hash",
    "reset_limiters",
    "run_many",
    "strip_code_fence",
    "validator_for_schema",
]
