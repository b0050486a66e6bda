"""Every fault the fake server injects, and what the client does about it.

Durations are asserted only as lower bounds the client must respect (Retry-After),
measured on the server's side: the gap between answering 429 and the next request.
"""

import socket

import pytest

from llm import ErrorKind, ProviderConfig, make_client
from llm.testing.replies import (
    disconnect,
    hang,
    http_error,
    malformed_body,
    rate_limited,
    rate_limited_until,
    raw_body,
    server_error,
    truncated_body,
    truncated_reply,
)

from .helpers import HTTP_KINDS, SECRET, VALID_CANDIDATE, call

MODES = ["sync", "async"]


def gap_after(server, index):
    """Seconds between the server answering request `index` and receiving the next one."""
    first, second = server.requests[index], server.requests[index + 1]
    return second.received_at - first.responded_at


# --- transport faults -----------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_429_retry_after_seconds_is_honoured(server, client_for, mode):
    server.enqueue(rate_limited(retry_after=1), VALID_CANDIDATE)
    result = call(client_for("anthropic"), mode)
    assert result.ok, result.failure_reason
    assert gap_after(server, 0) >= 1.0
    first = result.attempts[0]
    assert (first.status_code, first.error_kind, first.retry_after_s) == (429, "rate_limited", 1.0)
    assert first.backoff_s >= 1.0
    assert result.attempt_count == 2 and result.rounds == 1


def test_429_retry_after_http_date_is_honoured(server, client_for):
    # An HTTP date has whole-second precision: 2 s ahead is at least 1 s away.
    server.enqueue(rate_limited_until(2), VALID_CANDIDATE)
    result = call(client_for("openai"))
    assert result.ok, result.failure_reason
    assert gap_after(server, 0) >= 1.0
    assert result.attempts[0].retry_after_s >= 1.0


def test_gemini_retry_info_in_the_body_is_honoured(server, client_for):
    body = {
        "error": {
            "code": 429,
            "status": "RESOURCE_EXHAUSTED",
            "message": "quota",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1s"}],
        }
    }
    server.enqueue(raw_body(body, status=429), VALID_CANDIDATE)
    result = call(client_for("gemini"))
    assert result.ok, result.failure_reason
    assert gap_after(server, 0) >= 1.0


def test_retry_after_beyond_the_limit_fails_at_once(server, client_for):
    server.enqueue(rate_limited(retry_after=3600))
    result = call(client_for("anthropic", retry_after_max=5))
    assert not result.ok
    assert result.error_kind == ErrorKind.RATE_LIMITED
    assert "3600" in result.error_message
    assert len(server.requests) == 1


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("status", [500, 502, 503, 529])
def test_5xx_is_retried_then_succeeds(server, client_for, status, mode):
    server.enqueue(server_error(status), server_error(status), VALID_CANDIDATE)
    result = call(client_for("openai"), mode)
    assert result.ok, result.failure_reason
    assert [a.status_code for a in result.attempts] == [status, status, 200]
    assert all(a.backoff_s > 0 for a in result.attempts[:2])
    assert len(server.requests) == 3


@pytest.mark.parametrize("mode", MODES)
def test_exhausted_retries_give_a_recorded_failure(server, client_for, mode):
    server.enqueue(*[server_error(500)] * 3)
    result = call(client_for("gemini", max_retries=2), mode)
    assert not result.ok
    assert result.error_kind == ErrorKind.SERVER_ERROR
    assert "HTTP 500" in result.error_message and "gave up after 3 tries" in result.error_message
    assert result.attempt_count == 3 == len(server.requests)
    assert result.parsed is None
    assert result.failure_reason.startswith("server_error: ")


def test_exhausted_429s_are_rate_limited(server, client_for):
    server.enqueue(*[rate_limited(retry_after=0)] * 2)
    result = call(client_for("anthropic", max_retries=1))
    assert not result.ok
    assert result.error_kind == ErrorKind.RATE_LIMITED
    assert len(server.requests) == 2


@pytest.mark.parametrize("status", [400, 404, 422])
def test_client_errors_are_not_retried(server, client_for, status):
    server.enqueue(http_error(status, body="model not found"), VALID_CANDIDATE)
    result = call(client_for("openai"))
    assert not result.ok
    assert result.error_kind == ErrorKind.CLIENT_ERROR
    assert f"HTTP {status}" in result.error_message and "model not found" in result.error_message
    assert len(server.requests) == 1


def test_wrong_key_is_a_client_error_without_the_key(client_for):
    from llm.testing.fake_server import FakeProviderServer

    with FakeProviderServer(api_key="the-right-key") as strict:
        client = make_client(
            ProviderConfig(
                kind="anthropic", model="m", base_url=strict.base_url("anthropic"), api_key=SECRET
            )
        )
        result = call(client)
        client.close()
    assert not result.ok
    assert result.error_kind == ErrorKind.CLIENT_ERROR
    assert "401" in result.error_message
    assert len(strict.requests) == 1


@pytest.mark.parametrize("mode", MODES)
def test_hang_times_out_and_is_retried(server, client_for, mode):
    server.enqueue(hang(5), VALID_CANDIDATE)
    result = call(client_for("anthropic", timeout=1.0), mode)
    assert result.ok, result.failure_reason
    assert result.attempts[0].error_kind == ErrorKind.TIMEOUT
    assert result.attempt_count == 2


def test_hangs_past_every_retry_give_a_timeout_failure(server, client_for):
    server.enqueue(hang(5), hang(5))
    result = call(client_for("gemini", timeout=1.0, max_retries=1))
    assert not result.ok
    assert result.error_kind == ErrorKind.TIMEOUT
    assert len(server.requests) == 2


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", HTTP_KINDS)
def test_malformed_body_is_retried(server, client_for, kind, mode):
    server.enqueue(malformed_body(), VALID_CANDIDATE)
    result = call(client_for(kind), mode)
    assert result.ok, result.failure_reason
    first = result.attempts[0]
    assert first.error_kind == ErrorKind.MALFORMED_RESPONSE
    assert "not JSON" in first.error_message
    assert first.raw_response.startswith('{"id": "broken"')


def test_json_body_of_the_wrong_shape_is_malformed(server, client_for):
    server.enqueue(raw_body({"unexpected": True}), VALID_CANDIDATE)
    result = call(client_for("anthropic"))
    assert result.ok
    assert result.attempts[0].error_kind == ErrorKind.MALFORMED_RESPONSE


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", HTTP_KINDS)
def test_truncated_body_is_retried(server, client_for, kind, mode):
    server.enqueue(truncated_body(), VALID_CANDIDATE)
    result = call(client_for(kind), mode)
    assert result.ok, result.failure_reason
    assert result.attempts[0].error_kind == ErrorKind.TRUNCATED_BODY
    assert result.attempt_count == 2


@pytest.mark.parametrize("mode", MODES)
def test_dropped_connection_is_retried(server, client_for, mode):
    server.enqueue(disconnect(), VALID_CANDIDATE)
    result = call(client_for("openai_compatible"), mode)
    assert result.ok, result.failure_reason
    assert result.attempts[0].error_kind == ErrorKind.CONNECTION_ERROR


def test_connection_refused_gives_a_recorded_failure():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = make_client(
        ProviderConfig(
            kind="openai",
            model="m",
            base_url=f"http://127.0.0.1:{port}/v1",
            api_key=SECRET,
            max_retries=2,
            backoff_base=0.01,
        )
    )
    result = call(client)
    client.close()
    assert not result.ok
    assert result.error_kind == ErrorKind.CONNECTION_ERROR
    assert result.attempt_count == 3


# --- model-output faults --------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", HTTP_KINDS)
def test_truncated_output_is_asked_again_with_the_reason(server, client_for, kind, mode):
    partial = '{"character_id": "CHAR_04", "inner_consciousness": {"summary": "I keep'
    server.enqueue(truncated_reply(partial), VALID_CANDIDATE)
    result = call(client_for(kind), mode)
    assert result.ok, result.failure_reason
    assert result.rounds == 2
    first = result.attempts[0]
    assert first.error_kind == ErrorKind.OUTPUT_TRUNCATED
    assert first.finish_reason in {"max_tokens", "length", "MAX_TOKENS"}
    follow_up = server.requests[1].turns()
    assert follow_up[-2] == ("assistant", partial)
    assert follow_up[-1][0] == "user"
    assert "cut off at the output limit of 512 tokens" in follow_up[-1][1]


def test_truncated_output_every_round_is_recorded(server, client_for):
    server.enqueue(*[truncated_reply()] * 2)
    result = call(client_for("anthropic"), max_attempts=2)
    assert not result.ok
    assert result.error_kind == ErrorKind.OUTPUT_TRUNCATED
    assert result.finish_reason == "max_tokens"
    assert len(server.requests) == 2


@pytest.mark.parametrize("mode", MODES)
def test_non_json_text_is_asked_again(server, client_for, mode):
    from llm.testing.replies import non_json_reply

    server.enqueue(non_json_reply("I would stay home."), VALID_CANDIDATE)
    result = call(client_for("gemini"), mode)
    assert result.ok
    assert result.attempts[0].error_kind == ErrorKind.INVALID_JSON
    follow_up = server.requests[1].turns()
    assert follow_up[-2] == ("assistant", "I would stay home.")
    assert "not valid JSON" in follow_up[-1][1]


def test_empty_text_is_asked_again(server, client_for):
    from llm.testing.replies import text_reply

    server.enqueue(text_reply(""), VALID_CANDIDATE)
    result = call(client_for("anthropic"))
    assert result.ok
    # Anthropic rejects an empty assistant turn; the placeholder keeps the history valid.
    assert server.requests[1].turns()[-2] == ("assistant", "(empty reply)")


@pytest.mark.parametrize("mode", MODES)
def test_schema_invalid_is_retried_a_bounded_number_of_times(server, client_for, mode):
    missing_decision = {k: v for k, v in VALID_CANDIDATE.items() if k != "final_decision"}
    server.enqueue(*[missing_decision] * 5)
    result = call(client_for("openai"), mode, max_attempts=3)
    assert not result.ok
    assert result.error_kind == ErrorKind.SCHEMA_INVALID
    assert "'final_decision' is a required property" in result.error_message
    assert result.rounds == 3 and len(server.requests) == 3
    assert server.pending() == 2
    assert result.text is not None and result.parsed is None
    follow_up = server.requests[1].turns()
    assert "does not match the required schema" in follow_up[-1][1]
    assert "'final_decision' is a required property" in follow_up[-1][1]
    # each round carries the whole conversation so far
    assert len(server.requests[2].turns()) == 5


def test_schema_error_names_the_json_path(server, client_for):
    bad = {**VALID_CANDIDATE, "inner_consciousness": {**VALID_CANDIDATE["inner_consciousness"]}}
    bad["inner_consciousness"]["summary"] = 42
    server.enqueue(bad, VALID_CANDIDATE)
    result = call(client_for("anthropic"))
    assert result.ok
    assert "$.inner_consciousness.summary" in result.attempts[0].error_message


def test_transport_and_output_faults_in_one_call(server, client_for):
    server.enqueue(
        server_error(503),
        truncated_reply(),
        rate_limited(retry_after=0),
        {"wrong": "shape"},
        VALID_CANDIDATE,
    )
    result = call(client_for("anthropic"), max_attempts=3)
    assert result.ok, result.failure_reason
    assert [(a.round, a.try_number, a.error_kind) for a in result.attempts] == [
        (1, 1, "server_error"),
        (1, 2, "output_truncated"),
        (2, 1, "rate_limited"),
        (2, 2, "schema_invalid"),
        (3, 1, None),
    ]
    assert result.tokens_in == sum(a.tokens_in for a in result.attempts) > 0


def test_invalid_schema_is_a_caller_bug_and_raises(client_for):
    import jsonschema

    with pytest.raises(jsonschema.SchemaError):
        call(client_for("anthropic"), schema={"type": "no-such-type"})
