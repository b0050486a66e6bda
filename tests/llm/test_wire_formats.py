"""Each provider format, end to end over loopback HTTP: request shape, text, tokens, JSON."""

import json

import pytest

from llm import CallResult, ErrorKind
from llm.testing.replies import Reply, raw_body, text_reply

from .helpers import (
    CANDIDATE_SCHEMA,
    HTTP_KINDS,
    SCREENING_SCHEMA,
    SECRET,
    SYSTEM,
    USER,
    VALID_CANDIDATE,
    call,
)


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("kind", HTTP_KINDS)
def test_round_trip_parses_text_tokens_and_validates(server, client_for, kind, mode):
    server.enqueue(Reply(value=VALID_CANDIDATE, tokens_in=1234, tokens_out=321), route=kind)
    client = client_for(kind)

    result = call(client, mode)

    assert result.ok, result.failure_reason
    assert result.parsed == VALID_CANDIDATE
    assert json.loads(result.text) == VALID_CANDIDATE
    assert (result.tokens_in, result.tokens_out) == (1234, 321)
    assert result.provider == kind
    assert result.model == f"fake-{kind}-model"
    assert result.attempt_count == 1 and result.rounds == 1
    assert result.error_kind is None
    assert len(result.prompt_hash) == 64
    assert result.raw_response and "1234" in result.raw_response
    [received] = server.requests
    assert received.route == kind
    assert received.turns() == [("user", USER)]
    assert received.system.startswith(SYSTEM)
    assert result.request == received.body
    stored = json.loads(json.dumps(result.as_dict()))
    assert CallResult.from_dict(stored) == result


def test_anthropic_request_shape(server, client_for):
    server.enqueue(VALID_CANDIDATE)
    call(client_for("anthropic", temperature=0.0))
    [req] = server.requests
    assert req.path == "/v1/messages"
    assert req.headers["x-api-key"] == SECRET
    assert req.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in req.headers
    body = req.body
    assert body["model"] == "fake-anthropic-model"
    assert body["max_tokens"] == 512
    assert body["temperature"] == 0.0
    assert isinstance(body["system"], str) and "JSON Schema" in body["system"]
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": USER}]}]


def test_anthropic_json_schema_forces_a_tool_whose_input_is_the_answer(server, client_for):
    server.enqueue(VALID_CANDIDATE, [])
    client = client_for("anthropic", response_format="json_schema")
    result = call(client)
    assert result.ok, result.failure_reason
    assert result.parsed == VALID_CANDIDATE
    assert result.finish_reason == "tool_use"
    first = server.requests[0]
    [tool] = first.body["tools"]
    assert tool["input_schema"] == CANDIDATE_SCHEMA
    assert first.body["tool_choice"] == {"type": "tool", "name": tool["name"]}
    assert json.loads(first.raw_body)["tools"][0]["name"] == tool["name"]
    # A tool's input must be an object: an array schema goes without one.
    assert call(client, schema=SCREENING_SCHEMA).ok
    assert len(server.requests) == 2
    assert "tools" not in server.requests[1].body and "tool_choice" not in server.requests[1].body


def test_openai_request_shape(server, client_for):
    server.enqueue(VALID_CANDIDATE)
    call(client_for("openai"))
    [req] = server.requests
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == f"Bearer {SECRET}"
    body = req.body
    assert body["messages"][0]["role"] == "system"
    assert body["messages"][1] == {"role": "user", "content": USER}
    assert body["max_completion_tokens"] == 512
    assert "temperature" not in body  # None means the endpoint default (App. L.5)
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == CANDIDATE_SCHEMA


def test_openai_array_schema_sends_no_response_format(server, client_for):
    # json_object and json_schema need an object root; Stage 1 returns a bare array.
    server.enqueue([{"memory_id": "MEM_04_0001", "reason": "same silence at home"}])
    result = call(client_for("openai"), schema=SCREENING_SCHEMA)
    assert result.ok, result.failure_reason
    assert "response_format" not in server.requests[0].body


def test_openai_compatible_without_key_sends_no_authorization(server, client_for):
    server.enqueue(VALID_CANDIDATE)
    result = call(client_for("openai_compatible", api_key=None))
    assert result.ok
    [req] = server.requests
    assert req.path == "/compat/v1/chat/completions"
    assert "authorization" not in req.headers
    assert req.body["response_format"] == {"type": "json_object"}
    assert req.body["max_tokens"] == 512


def test_gemini_request_shape(server, client_for):
    server.enqueue(VALID_CANDIDATE)
    call(client_for("gemini", model="models/gemini-3-flash", temperature=0.0))
    [req] = server.requests
    assert req.path == "/v1beta/models/gemini-3-flash:generateContent"
    assert req.headers["x-goog-api-key"] == SECRET
    assert "key" not in req.query  # never in the URL, where logs would see it
    body = req.body
    assert body["systemInstruction"]["parts"][0]["text"].startswith(SYSTEM)
    assert body["contents"] == [{"role": "user", "parts": [{"text": USER}]}]
    assert body["generationConfig"] == {
        "responseMimeType": "application/json",
        "maxOutputTokens": 512,
        "temperature": 0.0,
    }


def test_gemini_json_schema_mode_sends_the_schema(server, client_for):
    server.enqueue(VALID_CANDIDATE)
    call(client_for("gemini", response_format="json_schema"))
    assert server.requests[0].body["generationConfig"]["responseJsonSchema"] == CANDIDATE_SCHEMA


def test_gemini_thought_parts_are_not_the_answer_and_thinking_tokens_count(server, client_for):
    def responder(req):
        # An envelope the fake server's Reply cannot express.
        return raw_body(
            {
                "candidates": [
                    {
                        "content": {
                            "role": "model",
                            "parts": [
                                {"text": "let me think about her...", "thought": True},
                                {"text": json.dumps(VALID_CANDIDATE)},
                            ],
                        },
                        "finishReason": "STOP",
                    }
                ],
                "usageMetadata": {
                    "promptTokenCount": 10,
                    "candidatesTokenCount": 20,
                    "thoughtsTokenCount": 30,
                },
            }
        )

    server.responder = responder
    result = call(client_for("gemini"))
    assert result.ok, result.failure_reason
    assert result.parsed == VALID_CANDIDATE
    assert (result.tokens_in, result.tokens_out) == (10, 50)


@pytest.mark.parametrize("kind", HTTP_KINDS)
def test_fenced_json_is_accepted(server, client_for, kind):
    server.enqueue(text_reply("```json\n" + json.dumps(VALID_CANDIDATE) + "\n```"))
    result = call(client_for(kind))
    assert result.ok, result.failure_reason
    assert result.parsed == VALID_CANDIDATE
    assert result.rounds == 1


def test_instruct_schema_false_sends_the_system_prompt_untouched(server, client_for):
    server.enqueue(VALID_CANDIDATE)
    call(client_for("anthropic"), instruct_schema=False)
    assert server.requests[0].body["system"] == SYSTEM


def test_prompt_hash_is_stable_and_ignores_the_provider(server, client_for):
    server.enqueue(VALID_CANDIDATE, VALID_CANDIDATE, VALID_CANDIDATE)
    a = call(client_for("anthropic"))
    b = call(client_for("gemini"))
    c = call(client_for("anthropic"), user=USER + " (changed)")
    assert a.prompt_hash == b.prompt_hash
    assert a.prompt_hash != c.prompt_hash


@pytest.mark.parametrize(
    ("kind", "body"),
    [
        (
            "anthropic",
            {"content": [], "stop_reason": "refusal", "usage": {"input_tokens": 1}},
        ),
        (
            "openai",
            {"choices": [{"message": {"content": None, "refusal": "I can't help"}}]},
        ),
        ("gemini", {"promptFeedback": {"blockReason": "SAFETY"}}),
    ],
)
def test_refusal_is_recorded_and_not_retried(server, client_for, kind, body):
    server.enqueue(raw_body(body))
    result = call(client_for(kind))
    assert not result.ok
    assert result.error_kind == ErrorKind.REFUSED
    assert len(server.requests) == 1
