"""The conversation, the record and the bookkeeping of one structured-output call: the
request of each round, the attempt records, the backoff before the next try, judging a
reply against the schema and asking again with the problem named, and the final
`CallResult`."""

from __future__ import annotations

import functools
import json
import logging
import random
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from . import wire
from .config import ProviderConfig
from .outcome import TryOutcome
from .records import ATTEMPT_RAW_LIMIT, AttemptRecord, CallResult, ErrorKind, prompt_hash
from .structured import (
    OutputProblem,
    SchemaValidator,
    feedback_message,
    parse_and_validate,
    schema_instruction,
)
from .transport import full_jitter_backoff

logger = logging.getLogger("llm")

EMPTY_REPLY_PLACEHOLDER = "(empty reply)"


@functools.lru_cache(maxsize=256)
def _validator_for(schema_json: str) -> SchemaValidator:
    return SchemaValidator(json.loads(schema_json))


def validator_for_schema(schema: Any) -> SchemaValidator:
    return _validator_for(json.dumps(schema, sort_keys=True))


def _now_iso() -> str:
    return datetime.now(UTC).isoformat()


class CallState:
    """The conversation, the record and the bookkeeping of one complete_json call."""

    def __init__(
        self,
        config: ProviderConfig,
        system: str,
        user: str,
        schema: Any,
        max_attempts: int,
        instruct_schema: bool,
        *,
        rng: random.Random,
        redact: Callable[[str | None], str | None],
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.config = config
        self.rng = rng
        self.redact = redact
        self.schema = schema
        self.validator = validator_for_schema(schema)
        self.max_attempts = max_attempts
        self.system = f"{system}\n\n{schema_instruction(schema)}" if instruct_schema else system
        self.turns: list[dict[str, str]] = [{"role": "user", "text": user}]
        self.started = time.monotonic()
        self.result = CallResult(
            provider=self.config.kind.value,
            model=self.config.model,
            prompt_hash=prompt_hash(system, user, schema),
            started_at=_now_iso(),
        )

    def request(self) -> wire.HttpRequest:
        req = wire.build_request(self.config, self.system, self.turns, self.schema)
        self.result.request = req.body
        self.result.endpoint = req.url
        return req

    def record(self, round_no: int, try_no: int, outcome: TryOutcome) -> AttemptRecord:
        raw = outcome.raw
        if raw is not None and len(raw) > ATTEMPT_RAW_LIMIT:
            raw = raw[:ATTEMPT_RAW_LIMIT] + "...[cut]"
        attempt = AttemptRecord(
            round=round_no,
            try_number=try_no,
            status_code=outcome.status,
            latency_s=round(outcome.latency, 6),
            error_kind=outcome.error_kind.value if outcome.error_kind else None,
            error_message=outcome.error_message,
            retry_after_s=outcome.retry_after,
            raw_response=raw,
        )
        if outcome.reply is not None:
            attempt.tokens_in = outcome.reply.tokens_in
            attempt.tokens_out = outcome.reply.tokens_out
            attempt.finish_reason = outcome.reply.finish_reason
            self.result.tokens_in += outcome.reply.tokens_in
            self.result.tokens_out += outcome.reply.tokens_out
        self.result.attempts.append(attempt)
        self.result.attempt_count = len(self.result.attempts)
        self.result.raw_response = outcome.raw
        return attempt

    def backoff(self, retry_number: int, outcome: TryOutcome) -> float | None:
        """Seconds to sleep before the next try, or None when waiting is pointless."""
        jitter = full_jitter_backoff(
            retry_number,
            base=self.config.backoff_base,
            cap=self.config.backoff_cap,
            rng=self.rng,
        )
        if outcome.retry_after is None:
            return jitter
        if outcome.retry_after > self.config.retry_after_max:
            return None
        # Never earlier than the provider asked; a little jitter on top spreads the herd.
        return outcome.retry_after + min(jitter, self.config.backoff_base)

    def transport_failure(self, outcome: TryOutcome, reason: str | None = None) -> CallResult:
        return self.finish(
            ok=False,
            error_kind=outcome.error_kind or ErrorKind.INTERNAL_ERROR,
            error_message=reason or outcome.error_message,
        )

    def judge(self, reply: wire.ModelReply) -> tuple[Any, OutputProblem | None]:
        try:
            return parse_and_validate(reply.text, self.validator), None
        except OutputProblem as problem:
            if reply.truncated:
                return None, OutputProblem(ErrorKind.OUTPUT_TRUNCATED, problem.message)
            return None, problem

    def ask_again(self, reply: wire.ModelReply, problem: OutputProblem) -> None:
        self.turns.append({"role": "assistant", "text": reply.text or EMPTY_REPLY_PLACEHOLDER})
        self.turns.append(
            {
                "role": "user",
                "text": feedback_message(
                    problem.kind, problem.message, max_tokens=self.config.max_tokens
                ),
            }
        )

    def finish(
        self,
        *,
        ok: bool,
        parsed: Any = None,
        reply: wire.ModelReply | None = None,
        error_kind: ErrorKind | None = None,
        error_message: str | None = None,
    ) -> CallResult:
        r = self.result
        r.ok = ok
        r.parsed = parsed
        if reply is not None:
            r.text = reply.text
            r.finish_reason = reply.finish_reason
        r.error_kind = error_kind.value if error_kind else None
        r.error_message = self.redact(error_message) if error_message else None
        r.latency_s = round(time.monotonic() - self.started, 6)
        log = logger.info if ok else logger.warning
        log(
            "llm call %s %s prompt=%s ok=%s rounds=%d tries=%d tokens=%d/%d%s",
            r.provider,
            r.model,
            r.prompt_hash[:12],
            ok,
            r.rounds,
            r.attempt_count,
            r.tokens_in,
            r.tokens_out,
            f" error={r.error_kind}: {r.error_message}" if not ok else "",
        )
        return r
