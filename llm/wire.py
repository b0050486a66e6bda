"""The three wire formats: build a request, read a reply. Pure functions, no I/O.

A conversation is a list of `{"role": "user" | "assistant", "text": ...}` turns; each
adapter renders it in its provider's shape and reads back the model text, the token
counts and whether the output hit the token limit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from .config import ProviderConfig, ProviderKind, ResponseFormatMode


class WireError(Exception):
    """The reply envelope is not what the format promises (missing fields, wrong types)."""


class Refusal(Exception):
    """The provider answered but declined or filtered the output."""


@dataclass(frozen=True)
class HttpRequest:
    url: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass(frozen=True)
class ModelReply:
    text: str
    tokens_in: int
    tokens_out: int
    truncated: bool
    finish_reason: str | None


def _is_object_schema(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "object"


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) else 0


# --- Anthropic Messages -------------------------------------------------------------

# RESPONSE_FORMAT=json_schema: the answer comes back as the input of this forced tool.
ANTHROPIC_OUTPUT_TOOL = "structured_output"
#: Thinking budget (tokens) per reasoning effort; the Messages API's minimum is 1,024.
ANTHROPIC_THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}


def anthropic_request(
    config: ProviderConfig, system: str, turns: list[dict[str, str]], schema: Any
) -> HttpRequest:
    body: dict[str, Any] = {
        "model": config.model,
        "max_tokens": config.max_tokens,
        "system": system,
        "messages": [
            {"role": t["role"], "content": [{"type": "text", "text": t["text"]}]} for t in turns
        ],
    }
    thinking = config.reasoning_effort not in (None, "none")
    if config.reasoning_effort == "none":
        body["thinking"] = {"type": "disabled"}
    elif thinking:
        # Extended thinking takes a token budget, counted inside max_tokens: the answer
        # keeps its own max_tokens on top. It also takes no temperature but the default.
        budget = ANTHROPIC_THINKING_BUDGETS[config.reasoning_effort]
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
        body["max_tokens"] = config.max_tokens + budget
    if config.temperature is not None and not thinking:
        body["temperature"] = config.temperature
    if config.response_format is ResponseFormatMode.JSON_SCHEMA and _is_object_schema(schema):
        # The Messages API's structured output: one tool whose input is the answer, and
        # the model made to call it. A tool's input must be an object, hence the check.
        body["tools"] = [
            {
                "name": ANTHROPIC_OUTPUT_TOOL,
                "description": "Return your answer as this tool's input.",
                "input_schema": schema,
            }
        ]
        # With thinking on, the Messages API refuses a forced tool: the model is offered it.
        body["tool_choice"] = (
            {"type": "auto"} if thinking else {"type": "tool", "name": ANTHROPIC_OUTPUT_TOOL}
        )
    headers = {"anthropic-version": config.anthropic_version, "content-type": "application/json"}
    if config.api_key:
        headers["x-api-key"] = config.api_key.reveal()
    return HttpRequest(f"{config.base_url}/v1/messages", headers, body)


def anthropic_reply(data: Any) -> ModelReply:
    if not isinstance(data, dict) or not isinstance(data.get("content"), list):
        raise WireError("Anthropic reply has no content list")
    stop = data.get("stop_reason")
    tool_inputs = [
        block.get("input")
        for block in data["content"]
        if isinstance(block, dict)
        and block.get("type") == "tool_use"
        and block.get("name") == ANTHROPIC_OUTPUT_TOOL
    ]
    if tool_inputs:
        text = json.dumps(tool_inputs[0], ensure_ascii=False)
    else:
        text = "".join(
            block.get("text", "")
            for block in data["content"]
            if isinstance(block, dict) and block.get("type") == "text"
        )
    if stop == "refusal":
        raise Refusal("the model refused (stop_reason refusal)")
    usage = data.get("usage") or {}
    return ModelReply(
        text=text,
        tokens_in=_int(usage.get("input_tokens"))
        + _int(usage.get("cache_creation_input_tokens"))
        + _int(usage.get("cache_read_input_tokens")),
        tokens_out=_int(usage.get("output_tokens")),
        truncated=stop == "max_tokens",
        finish_reason=stop,
    )


# --- OpenAI Chat Completions (and compatible endpoints) -----------------------------


def openai_request(
    config: ProviderConfig, system: str, turns: list[dict[str, str]], schema: Any
) -> HttpRequest:
    compatible = config.kind is ProviderKind.OPENAI_COMPATIBLE
    body: dict[str, Any] = {
        "model": config.model,
        "messages": [{"role": "system", "content": system}]
        + [{"role": t["role"], "content": t["text"]} for t in turns],
    }
    # api.openai.com has replaced max_tokens by max_completion_tokens (and reasoning
    # models reject the old name); local servers mostly only know max_tokens.
    body["max_tokens" if compatible else "max_completion_tokens"] = config.max_tokens
    if config.temperature is not None:
        body["temperature"] = config.temperature
    if config.reasoning_effort is not None:
        body["reasoning_effort"] = config.reasoning_effort
    mode = config.response_format
    if mode is ResponseFormatMode.AUTO:
        if _is_object_schema(schema):
            mode = ResponseFormatMode.JSON_OBJECT if compatible else ResponseFormatMode.JSON_SCHEMA
        else:
            # json_object and json_schema both require an object at the root.
            mode = ResponseFormatMode.NONE
    if mode is ResponseFormatMode.JSON_SCHEMA:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "structured_output", "schema": schema, "strict": False},
        }
    elif mode is ResponseFormatMode.JSON_OBJECT:
        body["response_format"] = {"type": "json_object"}
    headers = {"content-type": "application/json"}
    if config.api_key:
        headers["authorization"] = f"Bearer {config.api_key.reveal()}"
    return HttpRequest(f"{config.base_url}/chat/completions", headers, body)


def openai_reply(data: Any) -> ModelReply:
    if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
        raise WireError("chat completion has no choices list")
    if not data["choices"]:
        raise WireError("chat completion has an empty choices list")
    choice = data["choices"][0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise WireError("chat completion choice has no message")
    finish = choice.get("finish_reason")
    if message.get("refusal"):
        raise Refusal(f"the model refused: {str(message['refusal'])[:200]}")
    if finish == "content_filter":
        raise Refusal("the output was withheld by the content filter")
    content = message.get("content")
    if isinstance(content, list):  # some compatible servers return content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    usage = data.get("usage") or {}
    return ModelReply(
        text=content or "",
        tokens_in=_int(usage.get("prompt_tokens")),
        tokens_out=_int(usage.get("completion_tokens")),
        truncated=finish == "length",
        finish_reason=finish,
    )


# --- Gemini generateContent ---------------------------------------------------------


def gemini_request(
    config: ProviderConfig, system: str, turns: list[dict[str, str]], schema: Any
) -> HttpRequest:
    generation: dict[str, Any] = {
        "responseMimeType": "application/json",
        "maxOutputTokens": config.max_tokens,
    }
    if config.temperature is not None:
        generation["temperature"] = config.temperature
    if config.reasoning_effort == "none":
        generation["thinkingConfig"] = {"thinkingBudget": 0}
    elif config.reasoning_effort is not None:
        generation["thinkingConfig"] = {"thinkingLevel": config.reasoning_effort}
    if config.response_format is ResponseFormatMode.JSON_SCHEMA:
        generation["responseJsonSchema"] = schema
    elif config.response_format is ResponseFormatMode.NONE:
        del generation["responseMimeType"]
    body = {
        "systemInstruction": {"parts": [{"text": system}]},
        "contents": [
            {
                "role": "model" if t["role"] == "assistant" else "user",
                "parts": [{"text": t["text"]}],
            }
            for t in turns
        ],
        "generationConfig": generation,
    }
    model = config.model.removeprefix("models/")
    url = (
        f"{config.base_url}/{config.gemini_api_version}/models/"
        f"{quote(model, safe='-._')}:generateContent"
    )
    # The key travels in a header, never in the URL (?key=), so URLs are safe to log.
    headers = {"content-type": "application/json"}
    if config.api_key:
        headers["x-goog-api-key"] = config.api_key.reveal()
    return HttpRequest(url, headers, body)


GEMINI_REFUSALS = {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII"}


def gemini_reply(data: Any) -> ModelReply:
    if not isinstance(data, dict):
        raise WireError("Gemini reply is not an object")
    candidates = data.get("candidates")
    if not candidates:
        block = (data.get("promptFeedback") or {}).get("blockReason")
        if block:
            raise Refusal(f"the prompt was blocked ({block})")
        raise WireError("Gemini reply has no candidates")
    candidate = candidates[0]
    if not isinstance(candidate, dict):
        raise WireError("Gemini candidate is not an object")
    finish = candidate.get("finishReason")
    if finish in GEMINI_REFUSALS:
        raise Refusal(f"the output was withheld (finishReason {finish})")
    parts = (candidate.get("content") or {}).get("parts") or []
    # Thought summaries are marked thought: true and are not the answer.
    text = "".join(p.get("text", "") for p in parts if isinstance(p, dict) and not p.get("thought"))
    usage = data.get("usageMetadata") or {}
    return ModelReply(
        text=text,
        tokens_in=_int(usage.get("promptTokenCount")),
        # Thinking tokens are billed as output.
        tokens_out=_int(usage.get("candidatesTokenCount")) + _int(usage.get("thoughtsTokenCount")),
        truncated=finish == "MAX_TOKENS",
        finish_reason=finish,
    )


BUILDERS = {
    ProviderKind.ANTHROPIC: anthropic_request,
    ProviderKind.OPENAI: openai_request,
    ProviderKind.OPENAI_COMPATIBLE: openai_request,
    ProviderKind.GEMINI: gemini_request,
}
READERS = {
    ProviderKind.ANTHROPIC: anthropic_reply,
    ProviderKind.OPENAI: openai_reply,
    ProviderKind.OPENAI_COMPATIBLE: openai_reply,
    ProviderKind.GEMINI: gemini_reply,
}


def build_request(
    config: ProviderConfig, system: str, turns: list[dict[str, str]], schema: Any
) -> HttpRequest:
    return BUILDERS[config.kind](config, system, turns, schema)


def read_reply(kind: ProviderKind, data: Any) -> ModelReply:
    return READERS[kind](data)
