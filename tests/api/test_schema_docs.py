"""The OpenAPI schema documents every endpoint (issue #23): each operation has a summary,
each JSON body (request and success answer) an example, and every example — hand-written
or derived — is valid under the schema it illustrates, so a script built from the docs
sends what the API accepts."""

import copy

import jsonschema
import pytest
from django.urls import reverse

from core.roles import Role

BODY_METHODS = ("get", "post", "put", "patch", "delete")


def as_json_schema(schema: dict, components: dict, depth: int = 0) -> dict:
    """OpenAPI 3.0 schema → JSON Schema: references inlined, ``nullable`` as a null type,
    readOnly/writeOnly dropped (the example's direction already chose its fields)."""
    if depth > 20:
        return {}
    if "$ref" in schema:
        return as_json_schema(components[schema["$ref"].rsplit("/", 1)[1]], components, depth + 1)
    out = {}
    for k, v in schema.items():
        if k in ("properties",):
            out[k] = {p: as_json_schema(s, components, depth + 1) for p, s in v.items()}
        elif k in ("items", "additionalProperties") and isinstance(v, dict):
            out[k] = as_json_schema(v, components, depth + 1)
        elif k in ("allOf", "oneOf", "anyOf"):
            out[k] = [as_json_schema(s, components, depth + 1) for s in v]
        elif k in ("nullable", "readOnly", "writeOnly", "example", "discriminator", "format"):
            continue
        else:
            out[k] = copy.deepcopy(v)
    if schema.get("nullable"):
        out = {"anyOf": [out, {"type": "null"}]}
    return out


def direction_schema(schema: dict, components: dict, request: bool) -> dict:
    """The schema as one direction sees it: a request omits readOnly fields, an answer
    omits writeOnly ones (both stay optional, never required, in that direction)."""
    hidden = "readOnly" if request else "writeOnly"

    def walk(node, depth=0):
        if depth > 20 or not isinstance(node, dict):
            return node
        if "$ref" in node:
            return walk(components[node["$ref"].rsplit("/", 1)[1]], depth + 1)
        node = dict(node)
        if "properties" in node:
            props = {}
            for name, sub in node["properties"].items():
                resolved = walk(sub, depth + 1)
                if isinstance(resolved, dict) and resolved.get(hidden):
                    continue
                props[name] = resolved
            node["properties"] = props
            node["required"] = [r for r in node.get("required", []) if r in props]
        for key in ("items", "additionalProperties"):
            if isinstance(node.get(key), dict):
                node[key] = walk(node[key], depth + 1)
        for key in ("allOf", "oneOf", "anyOf"):
            if key in node:
                node[key] = [walk(s, depth + 1) for s in node[key]]
        return node

    return as_json_schema(walk(schema), components)


def operations(schema: dict):
    for path, ops in schema["paths"].items():
        for method, op in ops.items():
            if method in BODY_METHODS:
                yield path, method, op


def bodies(op: dict):
    for media, body in op.get("requestBody", {}).get("content", {}).items():
        if "json" in media:
            yield "request", body
    for code, response in op.get("responses", {}).items():
        if str(code).startswith("2"):
            for media, body in response.get("content", {}).items():
                if "json" in media:
                    yield f"answer {code}", body


@pytest.fixture
def admin_schema(client, django_user_model):
    from tests.factories import UserFactory

    client.force_login(UserFactory(roles=[Role.ADMIN]))
    response = client.get(reverse("api-schema"), HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return response.json()


@pytest.mark.django_db
def test_every_operation_has_a_summary_and_every_body_an_example(admin_schema):
    missing = []
    count = 0
    for path, method, op in operations(admin_schema):
        count += 1
        if not op.get("summary", "").strip():
            missing.append(f"{method.upper()} {path}: no summary")
        for where, body in bodies(op):
            if not body.get("examples") and "example" not in body:
                missing.append(f"{method.upper()} {path}: no example for the {where}")
    assert count > 50
    assert not missing, "\n".join(missing)


@pytest.mark.django_db
def test_every_example_is_valid_under_its_schema(admin_schema):
    components = admin_schema.get("components", {}).get("schemas", {})
    invalid, checked = [], 0
    for path, method, op in operations(admin_schema):
        for where, body in bodies(op):
            schema = direction_schema(body["schema"], components, request=where == "request")
            examples = [e["value"] for e in body.get("examples", {}).values() if "value" in e]
            if "example" in body:
                examples.append(body["example"])
            for value in examples:
                checked += 1
                errors = list(jsonschema.Draft7Validator(schema).iter_errors(value))
                if errors:
                    invalid.append(f"{method.upper()} {path} ({where}): {errors[0].message}")
    assert checked > 50
    assert not invalid, "\n".join(invalid)


@pytest.mark.django_db
def test_the_validation_can_fail_on_a_wrong_example(admin_schema):
    """The control: an example with a field of the wrong type is caught."""
    components = admin_schema["components"]["schemas"]
    body = admin_schema["paths"]["/api/me/"]["get"]["responses"]["200"]["content"][
        "application/json"
    ]
    schema = direction_schema(body["schema"], components, request=False)
    assert not list(
        jsonschema.Draft7Validator(schema).iter_errors(
            {"username": "annotator1", "roles": ["admin"]}
        )
    )
    assert list(
        jsonschema.Draft7Validator(schema).iter_errors({"username": 7, "roles": ["not a role"]})
    )
