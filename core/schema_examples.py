"""Examples for every operation of the OpenAPI schema (issue #23).

The write endpoints carry hand-written examples (``OpenApiExample`` beside the view).
Wherever an operation has a request body or a response body without one, this
drf-spectacular post-processing hook writes an example from the body's own schema: enum
values, formats, and for the platform's identifiers a value in the release data's shape
(``CHAR_01``, ``SCN_SCHOOL_AGE_1``), so a script author sees what a real answer looks like.
``tests/api/test_schema_docs.py`` validates every example against its schema.
"""

from __future__ import annotations

# Sample values by property name: identifiers in the shape the release data uses.
NAMED_SAMPLES = {
    "key": "CHAR_01",
    "character": "CHAR_01",
    "character_key": "CHAR_01",
    "character_id": "CHAR_01",
    "scenario": "SCN_SCHOOL_AGE_1",
    "scenario_id": "SCN_SCHOOL_AGE_1",
    "memory_id": "CHAR_01_M001",
    "question_id": "Q_CHAR_01_SCN_SCHOOL_AGE_1",
    "stage": "school_age",
    "username": "annotator1",
    "annotator": "annotator1",
    "reviewer": "reviewer1",
    "created_by": "admin",
    "letter": "B",
    "selected_letter": "B",
    "correct_answer": "D",
    "label": "A",
    "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "token": "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b",
    "assignment": "3f1c0e9a-2b7d-4c1e-9a61-5d2f8e7b4c10",
}
FORMAT_SAMPLES = {
    "date-time": "2026-11-02T09:30:00Z",
    "date": "2026-11-02",
    "uri": "https://heartbench.example/api/",
    "uuid": "3f1c0e9a-2b7d-4c1e-9a61-5d2f8e7b4c10",
    "email": "annotator1@lab.example",
    "decimal": "0.85",
    "binary": "(file)",
}
MAX_DEPTH = 8


def _resolve(schema: dict, components: dict) -> dict:
    while "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[1]]
    return schema


def sample(schema: dict, components: dict, *, name: str = "", request: bool, depth: int = 0):
    """A value valid under ``schema`` (OpenAPI 3.0), for a request or a response body."""
    schema = _resolve(schema, components)
    if "example" in schema:
        return schema["example"]
    if "default" in schema and schema["default"] is not None:
        return schema["default"]
    for combined in ("allOf", "oneOf", "anyOf"):
        if schema.get(combined):
            parts = [_resolve(s, components) for s in schema[combined]]
            if combined == "allOf" and len(parts) > 1:
                merged: dict = {}
                for part in parts:
                    if not isinstance(
                        value := sample(part, components, name=name, request=request, depth=depth),
                        dict,
                    ):
                        return value
                    merged |= value
                return merged
            return sample(parts[0], components, name=name, request=request, depth=depth)
    if schema.get("enum"):
        values = [v for v in schema["enum"] if v not in (None, "")]
        return values[0] if values else schema["enum"][0]
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        if depth >= MAX_DEPTH:
            return {}
        hidden = "readOnly" if request else "writeOnly"
        return {
            prop: sample(sub, components, name=prop, request=request, depth=depth + 1)
            for prop, sub in schema.get("properties", {}).items()
            if not _resolve(sub, components).get(hidden)
        }
    if kind == "array":
        if depth >= MAX_DEPTH:
            return []
        item = sample(
            schema.get("items", {}), components, name=name, request=request, depth=depth + 1
        )
        return [item] * max(1, schema.get("minItems", 1))
    if kind == "integer":
        return (
            max(1, schema.get("minimum", 1))
            if "maximum" not in schema
            else schema.get("minimum", 0)
        )
    if kind == "number":
        low, high = schema.get("minimum", 0), schema.get("maximum", 1)
        return round((low + high) / 2, 2) if "maximum" in schema else 0.85
    if kind == "boolean":
        return True
    if kind == "string":
        if name in NAMED_SAMPLES:
            return NAMED_SAMPLES[name]
        if schema.get("format") in FORMAT_SAMPLES:
            return FORMAT_SAMPLES[schema["format"]]
        text = name.replace("_", " ") if name else "text"
        return text.ljust(schema.get("minLength", 0), ".")[: schema.get("maxLength", 200)]
    return None


def _json_bodies(content: dict):
    for media, body in content.items():
        if "json" in media and "schema" in body:
            yield body


def add_missing_examples(result, generator, request, public):
    """drf-spectacular post-processing hook: fill in an example wherever a JSON request
    or response body has none."""
    components = result.get("components", {}).get("schemas", {})
    for operations in result.get("paths", {}).values():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or method == "parameters":
                continue
            bodies = [
                (b, True) for b in _json_bodies(operation.get("requestBody", {}).get("content", {}))
            ]
            for code, response in operation.get("responses", {}).items():
                if str(code).startswith("2"):
                    bodies += [(b, False) for b in _json_bodies(response.get("content", {}))]
            for body, is_request in bodies:
                if body.get("examples") or "example" in body:
                    continue
                value = sample(body["schema"], components, request=is_request)
                body["examples"] = {
                    "Example": {
                        "value": value,
                        "summary": "The shape of a real " + ("request" if is_request else "answer"),
                    }
                }
    return result
