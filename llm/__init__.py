"""Provider clients and structured-output parsing for heartbench. No Django here.

    from llm import ProviderConfig, make_client
    client = make_client(ProviderConfig.from_env("ANTHROPIC"))
    result = client.complete_json(system=..., user=..., schema=...)
    if result.ok: use(result.parsed)
    else: record(result.error_kind, result.error_message)

See llm/README.md.
"""

from .client import DEFAULT_MAX_ATTEMPTS, JSONCompletionClient, ProviderClient, make_client
from .config import ProviderConfig, ProviderKind, ResponseFormatMode, Secret
from .conversation import validator_for_schema
from .embeddings import EmbeddingClient, EmbeddingConfig, EmbeddingResult
from .offline_demo import DEMO_LABEL, OfflineDemoClient, demo_output
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
    "DEMO_LABEL",
    "AttemptRecord",
    "CallResult",
    "ConcurrencyLimiter",
    "EmbeddingClient",
    "EmbeddingConfig",
    "EmbeddingResult",
    "ErrorKind",
    "JSONCompletionClient",
    "JsonCall",
    "OfflineDemoClient",
    "ProviderClient",
    "ProviderConfig",
    "ProviderKind",
    "ResponseFormatMode",
    "SchemaValidator",
    "Secret",
    "Throughput",
    "arun_many",
    "demo_output",
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
