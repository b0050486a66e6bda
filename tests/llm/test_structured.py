"""Pure parts: JSON extraction, schema messages, backoff and Retry-After arithmetic."""

import email.utils
import random

import pytest

from llm import ErrorKind, SchemaValidator, full_jitter_backoff, parse_json_text, parse_retry_after
from llm.structured import OutputProblem, feedback_message, strip_code_fence
from llm.transport import retry_after_from_response

from .helpers import CANDIDATE_SCHEMA, SCREENING_SCHEMA, VALID_CANDIDATE


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}',
        '  {"a": 1}\n',
        '```json\n{"a": 1}\n```',
        '```\n{"a": 1}\n```',
        'Here you go:\n```json\n{"a": 1}\n```\nAnything else?',
    ],
)
def test_json_is_found_with_or_without_fences(text):
    assert parse_json_text(text) == {"a": 1}


def test_unclosed_fence_is_stripped_so_the_truncation_shows():
    assert strip_code_fence('```json\n{"a": ') == '{"a":'


@pytest.mark.parametrize("text", ["", "   ", None, "I would stay.", '{"a": 1} and more'])
def test_unusable_text_is_invalid_json(text):
    with pytest.raises(OutputProblem) as excinfo:
        parse_json_text(text)
    assert excinfo.value.kind is ErrorKind.INVALID_JSON


def test_schema_errors_are_listed_with_paths_and_capped():
    validator = SchemaValidator(SCREENING_SCHEMA)
    assert validator.errors([{"memory_id": "MEM_01_0001", "reason": "r"}]) == []
    bad = [{"memory_id": f"X{i}", "reason": 1} for i in range(6)]
    with pytest.raises(OutputProblem) as excinfo:
        validator.validate(bad)
    message = excinfo.value.message
    assert excinfo.value.kind is ErrorKind.SCHEMA_INVALID
    assert message.startswith("at $[0].memory_id: 'X0' does not match")
    assert message.endswith("and 7 more")


def test_valid_candidate_passes_the_stage3_schema():
    SchemaValidator(CANDIDATE_SCHEMA).validate(VALID_CANDIDATE)


def test_feedback_names_the_problem():
    assert "512 tokens" in feedback_message(ErrorKind.OUTPUT_TRUNCATED, "x", max_tokens=512)
    assert "boom" in feedback_message(ErrorKind.SCHEMA_INVALID, "boom", max_tokens=1)
    assert "boom" in feedback_message(ErrorKind.INVALID_JSON, "boom", max_tokens=1)


def test_full_jitter_stays_within_the_exponential_ceiling():
    rng = random.Random(20261012)
    for retry in range(8):
        ceiling = min(2.0, 0.1 * 2**retry)
        samples = [full_jitter_backoff(retry, base=0.1, cap=2.0, rng=rng) for _ in range(200)]
        assert all(0 <= s <= ceiling for s in samples)
        assert max(samples) > ceiling * 0.8  # jitter spreads over the whole range


def test_retry_after_seconds_and_dates():
    now = 1_800_000_000.0
    assert parse_retry_after("7", now=now) == 7.0
    assert parse_retry_after(" 1.5 ", now=now) == 1.5
    assert parse_retry_after("-3", now=now) == 0.0
    assert parse_retry_after(email.utils.formatdate(now + 30, usegmt=True), now=now) == 30.0
    assert parse_retry_after(email.utils.formatdate(now - 30, usegmt=True), now=now) == 0.0
    assert parse_retry_after("soon", now=now) is None
    assert parse_retry_after(None) is None


def test_retry_after_sources_in_order_of_precision():
    assert retry_after_from_response({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after_from_response({"retry-after": "9"}) == 9.0
    body = b'{"error": {"details": [{"@type": "x/google.rpc.RetryInfo", "retryDelay": "3s"}]}}'
    assert retry_after_from_response({}, body) == 3.0
    assert retry_after_from_response({}, b"not json") is None
