"""The offline demo provider: schema-valid JSON made up locally, for `make demo`.

It is not a model. It opens no connection; it answers each platform prompt (known by the
schema it sends) in that prompt's kind (`llm.demo.answers`), and any other schema with a
value derived from the schema, seeded by the demo seed (HEARTBENCH_DEMO_SEED), the model
name and the prompt: the same seed, model and prompt always get the same output, another
model name (family), persona or scenario another. Every free-text string it writes starts
with `[offline demo provider]` and every record says `demo: true`, so demo output can
never be mistaken for a model's. It exists only behind `ProviderConfig(kind="offline_demo")`;
no other config reaches it.

Strings constrained by a `pattern` (memory ids, for example) are filled with tokens from
the user prompt that match it, so a screening call picks ids that really were offered.
"""

from __future__ import annotations

import json
import random
import re
import time
from datetime import UTC, datetime
from typing import Any

from ..config import DEFAULT_MAX_ATTEMPTS, ProviderConfig, ProviderKind
from ..conversation import validator_for_schema
from ..records import AttemptRecord, CallResult, ErrorKind, prompt_hash
from ..structured import OutputProblem
from .answers import (
    DEMO_LABEL,
    DeliberatelyInvalid,
    DemoSettings,
    Prompt,
    kind_answer,
    seed_material,
)

DEMO_MODEL = "offline-demo"
# Arrays without bounds get this many items: enough to look like a list, cheap to read.
DEFAULT_ARRAY_ITEMS = 3
_TOKEN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")
_WORDS = (
    "remember quiet choose careful listen stay open steady trust wait answer "
    "hope worry decide familiar door rain morning voice letter walk home"
).split()


class _Generator:
    def __init__(self, root_schema: Any, user: str, seed: str) -> None:
        self.root = root_schema
        self.rng = random.Random(seed)
        self.tokens = list(dict.fromkeys(_TOKEN.findall(user)))
        self.used: set[str] = set()

    def resolve(self, schema: Any) -> Any:
        seen = 0
        while isinstance(schema, dict) and "$ref" in schema and seen < 32:
            ref = schema["$ref"]
            if not ref.startswith("#"):
                raise OutputProblem(ErrorKind.SCHEMA_INVALID, f"cannot follow remote $ref {ref}")
            node: Any = self.root
            for part in [p for p in ref.lstrip("#").split("/") if p]:
                node = node[part.replace("~1", "/").replace("~0", "~")]
            schema = node
            seen += 1
        return schema

    def value(self, schema: Any, name: str, depth: int = 0) -> Any:
        schema = self.resolve(schema)
        if schema is True or schema == {} or schema is None:
            return self.text(name, {})
        if depth > 12:
            return None
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            return self.rng.choice(schema["enum"])
        for key in ("oneOf", "anyOf"):
            if key in schema:
                return self.value(schema[key][0], name, depth + 1)
        if "allOf" in schema:
            merged: dict[str, Any] = {}
            for part in schema["allOf"]:
                part = self.resolve(part)
                merged = _merge(merged, part)
            return self.value(
                _merge(merged, {k: v for k, v in schema.items() if k != "allOf"}), name, depth + 1
            )
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if kind is None:
            kind = (
                "object" if "properties" in schema else "array" if "items" in schema else "string"
            )
        if kind == "object":
            return self.obj(schema, depth)
        if kind == "array":
            return self.array(schema, name, depth)
        if kind == "integer":
            return self.integer(schema)
        if kind == "number":
            return float(self.integer(schema))
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "null":
            return None
        return self.text(name, schema)

    def obj(self, schema: dict[str, Any], depth: int) -> dict[str, Any]:
        props: dict[str, Any] = schema.get("properties", {})
        required = schema.get("required", list(props))
        # Optional properties are filled too: a demo page should show every field.
        out = {key: self.value(sub, key, depth + 1) for key, sub in props.items()}
        for key in required:
            if key not in out:
                out[key] = self.text(key, {})
        return out

    def array(self, schema: dict[str, Any], name: str, depth: int) -> list[Any]:
        low = int(schema.get("minItems", 0))
        high = schema.get("maxItems")
        count = max(low, DEFAULT_ARRAY_ITEMS if low == 0 else low)
        if high is not None:
            count = min(count, int(high))
        items = schema.get("items", {})
        out: list[Any] = []
        for _ in range(count * 4):
            if len(out) >= count:
                break
            item = self.value(items, name.rstrip("s") or name, depth + 1)
            if schema.get("uniqueItems") and item in out:
                continue
            out.append(item)
        return out

    def integer(self, schema: dict[str, Any]) -> int:
        low = schema.get("minimum", schema.get("exclusiveMinimum", -1) + 1)
        high = schema.get("maximum", schema.get("exclusiveMaximum", low + 101) - 1)
        low, high = int(low), int(max(low, high))
        return self.rng.randint(low, high)

    def text(self, name: str, schema: dict[str, Any]) -> str:
        pattern = schema.get("pattern")
        if pattern:
            matching = [t for t in self.tokens if re.search(pattern, t)]
            fresh = [t for t in matching if t not in self.used] or matching
            if fresh:
                token = self.rng.choice(fresh)
                self.used.add(token)
                return token
        words = " ".join(self.rng.choice(_WORDS) for _ in range(6))
        label = name.replace("_", " ") if name else "value"
        value = f"{DEMO_LABEL} {label}: {words}."
        low = int(schema.get("minLength", 0))
        high = schema.get("maxLength")
        while len(value) < low:
            value += " " + self.rng.choice(_WORDS)
        if high is not None and len(value) > int(high):
            value = value[: int(high)]
        return value


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for key, value in b.items():
        if key == "properties" and key in out:
            out[key] = {**out[key], **value}
        elif key == "required" and key in out:
            out[key] = list(dict.fromkeys([*out[key], *value]))
        else:
            out[key] = value
    return out


def demo_output(
    *,
    system: str,
    user: str,
    schema: Any,
    model: str = DEMO_MODEL,
    settings: DemoSettings | None = None,
) -> Any:
    """The deterministic demo value for a prompt, seeded by the demo seed, the model name
    and the prompt. A platform prompt (known by its schema) gets an answer of its kind
    (`llm.demo.answers`); any other schema, or a kind answer the schema rejects, gets the
    generic schema filler, except an answer broken on purpose (`DeliberatelyInvalid`),
    which is returned as is. Not validated here."""
    settings = settings or DemoSettings.from_env()
    seed = seed_material(settings, model, prompt_hash(system, user, schema))
    prompt = Prompt(system, user, schema, model, settings, random.Random(seed))
    value = kind_answer(prompt)
    if isinstance(value, DeliberatelyInvalid):  # HEARTBENCH_DEMO_MEMORY_FAIL_SHARE
        return value.value
    if value is not None and not validator_for_schema(schema).errors(value):
        return value
    return _Generator(schema, user, seed).value(schema, "")


class OfflineDemoClient:
    """Same interface as `ProviderClient`; refuses any config but offline_demo."""

    def __init__(self, config: ProviderConfig, *, settings: DemoSettings | None = None) -> None:
        if config.kind is not ProviderKind.OFFLINE_DEMO:
            raise ValueError(
                f"OfflineDemoClient serves kind offline_demo only, not {config.kind.value}"
            )
        self.config = config
        # None: HEARTBENCH_DEMO_SEED / HEARTBENCH_DEMO_FLAG_SHARE, read at each call.
        self.settings = settings

    def __repr__(self) -> str:
        return f"OfflineDemoClient({self.config!r})"

    def complete_json(
        self,
        *,
        system: str,
        user: str,
        schema: Any,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        instruct_schema: bool = True,
    ) -> CallResult:
        started = time.monotonic()
        validator = validator_for_schema(schema)
        result = CallResult(
            provider=ProviderKind.OFFLINE_DEMO.value,
            model=self.config.model or DEMO_MODEL,
            prompt_hash=prompt_hash(system, user, schema),
            endpoint="offline-demo:",
            request={"offline_demo": True, "system": system, "user": user, "schema": schema},
            demo=True,
            rounds=1,
            attempt_count=1,
            started_at=_now(),
        )
        attempt = AttemptRecord(round=1, try_number=1, finish_reason="demo")
        try:
            value = demo_output(
                system=system,
                user=user,
                schema=schema,
                model=self.config.model or DEMO_MODEL,
                settings=self.settings,
            )
            text = json.dumps(value, ensure_ascii=False)
            validator.validate(value)
        except OutputProblem as problem:
            attempt.error_kind = problem.kind.value
            attempt.error_message = f"{DEMO_LABEL} could not satisfy the schema: {problem.message}"
            result.error_kind = attempt.error_kind
            result.error_message = attempt.error_message
            result.attempts.append(attempt)
            result.latency_s = round(time.monotonic() - started, 6)
            return result
        attempt.raw_response = text
        result.attempts.append(attempt)
        result.ok = True
        result.parsed = value
        result.text = text
        result.raw_response = text
        result.finish_reason = "demo"
        result.latency_s = round(time.monotonic() - started, 6)
        return result

    async def acomplete_json(self, **kwargs: Any) -> CallResult:
        return self.complete_json(**kwargs)

    def close(self) -> None:
        """Nothing to release: the demo provider holds no connection."""

    async def aclose(self) -> None:
        """Nothing to release: the demo provider holds no connection."""


def _now() -> str:
    return datetime.now(UTC).isoformat()
