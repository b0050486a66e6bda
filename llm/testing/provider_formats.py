"""The providers' wire formats as the fake server sees them: which route a path is, the
request as it arrived (`ReceivedRequest`, readable in any format), and the reply and
error envelopes each route sends back."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any

from llm.testing.replies import Reply

ROUTES = ("anthropic", "openai", "openai_compatible", "gemini", "embeddings")
_GEMINI_PATH = re.compile(r"^/v1(?:beta|alpha)?/models/([^/:]+):generateContent$")
_SCHEMA_MARKER = "It must validate against this JSON Schema:\n"


def route_of(path: str) -> tuple[str | None, str | None]:
    """(route, model named in the path) of a request path; (None, None) for no route."""
    if path == "/v1/messages":
        return "anthropic", None
    if path == "/v1/chat/completions":
        return "openai", None
    if path.endswith("/v1/chat/completions"):
        return "openai_compatible", None
    if path.endswith("/v1/embeddings"):
        return "embeddings", None
    match = _GEMINI_PATH.match(path)
    if match:
        return "gemini", match.group(1)
    return None, None


def key_ok(
    route: str, headers: dict[str, str], query: dict[str, list[str]], api_key: str | None
) -> bool:
    """Whether the request carries ``api_key`` where its format puts it (None: any)."""
    if api_key is None:
        return True
    if route == "anthropic":
        return headers.get("x-api-key") == api_key
    if route == "gemini":
        return headers.get("x-goog-api-key") == api_key or query.get("key", [None])[0] == api_key
    return headers.get("authorization") == f"Bearer {api_key}"


@dataclass
class ReceivedRequest:
    index: int
    route: str | None
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    raw_body: str
    body: Any
    model: str | None
    received_at: float
    responded_at: float | None = None
    answered_with: str = ""

    @property
    def system(self) -> str:
        b = self.body if isinstance(self.body, dict) else {}
        if self.route == "anthropic":
            system = b.get("system", "")
            if isinstance(system, list):
                return "".join(x.get("text", "") for x in system if isinstance(x, dict))
            return system or ""
        if self.route == "gemini":
            parts = (b.get("systemInstruction") or {}).get("parts") or []
            return "".join(p.get("text", "") for p in parts)
        return "".join(
            m.get("content") or "" for m in b.get("messages", []) if m.get("role") == "system"
        )

    def turns(self) -> list[tuple[str, str]]:
        """The conversation as (role, text), role in user/assistant, in any format."""
        b = self.body if isinstance(self.body, dict) else {}
        out: list[tuple[str, str]] = []
        if self.route == "gemini":
            for c in b.get("contents", []):
                role = "assistant" if c.get("role") == "model" else "user"
                out.append((role, "".join(p.get("text", "") for p in c.get("parts", []))))
            return out
        for m in b.get("messages", []):
            if m.get("role") == "system":
                continue
            content = m.get("content")
            if isinstance(content, list):
                content = "".join(x.get("text", "") for x in content if isinstance(x, dict))
            out.append((m.get("role", ""), content or ""))
        return out

    @property
    def forced_tool(self) -> dict | None:
        """The tool an Anthropic request makes the model call (structured output), if any.
        While thinking, the API takes no forced tool: the one answer tool is offered with
        ``tool_choice: auto``, and the fake model calls it, as a model told to would."""
        b = self.body if isinstance(self.body, dict) else {}
        choice = b.get("tool_choice") or {}
        tools = b.get("tools") or []
        if self.route == "anthropic" and choice.get("type") == "auto" and len(tools) == 1:
            return tools[0] if isinstance(tools[0], dict) else None
        if self.route != "anthropic" or choice.get("type") != "tool":
            return None
        for tool in tools:
            if isinstance(tool, dict) and tool.get("name") == choice.get("name"):
                return tool
        return None

    def schema(self) -> Any:
        """The JSON Schema the request asked for, wherever the client put it."""
        b = self.body if isinstance(self.body, dict) else {}
        tool = self.forced_tool
        if tool is not None:
            return tool.get("input_schema")
        rf = b.get("response_format") or {}
        if rf.get("type") == "json_schema":
            return (rf.get("json_schema") or {}).get("schema")
        gen = b.get("generationConfig") or {}
        for key in ("responseJsonSchema", "responseSchema"):
            if key in gen:
                return gen[key]
        system = self.system
        if _SCHEMA_MARKER in system:
            try:
                return json.loads(system.split(_SCHEMA_MARKER, 1)[1])
            except ValueError:
                return None
        return None


def envelope(route: str, req: ReceivedRequest, reply: Reply) -> dict[str, Any]:
    text = reply.model_text()
    tokens_in = reply.tokens_in if reply.tokens_in is not None else max(1, len(req.raw_body) // 4)
    tokens_out = reply.tokens_out if reply.tokens_out is not None else max(1, len(text) // 4)
    model = req.model or "fake-model"
    if route == "anthropic":
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        stop = "end_turn"
        tool = req.forced_tool
        if tool is not None and reply.text is None and isinstance(reply.value, dict):
            # A forced tool answers with a tool_use block whose input is the JSON value.
            content = [
                {
                    "type": "tool_use",
                    "id": f"toolu_fake_{req.index:06d}",
                    "name": tool["name"],
                    "input": reply.value,
                }
            ]
            stop = "tool_use"
        return {
            "id": f"msg_fake_{req.index:06d}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": "max_tokens" if reply.truncated else stop,
            "stop_sequence": None,
            "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
        }
    if route == "gemini":
        return {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"text": text}]},
                    "finishReason": "MAX_TOKENS" if reply.truncated else "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": {
                "promptTokenCount": tokens_in,
                "candidatesTokenCount": tokens_out,
                "totalTokenCount": tokens_in + tokens_out,
            },
            "modelVersion": model,
        }
    return {
        "id": f"chatcmpl-fake-{req.index:06d}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "length" if reply.truncated else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": tokens_in,
            "completion_tokens": tokens_out,
            "total_tokens": tokens_in + tokens_out,
        },
    }


_ANTHROPIC_ERRORS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}
_GOOGLE_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    503: "UNAVAILABLE",
}


def error_body(route: str | None, status: int, message: str) -> dict[str, Any]:
    if route == "anthropic":
        kind = _ANTHROPIC_ERRORS.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    if route == "gemini":
        return {
            "error": {
                "code": status,
                "message": message,
                "status": _GOOGLE_STATUS.get(status, "INTERNAL"),
            }
        }
    return {"error": {"message": message, "type": "fake_error", "code": str(status)}}
