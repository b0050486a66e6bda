"""Every text field a person types has a limit, the same message everywhere, and the one
control-character rule (issue #24 point 2-3): each form field and each API request field,
found in the code (so a new field without a limit fails here), refuses limit + 1
characters with a message naming the field and the limit, takes exactly the limit, and
refuses NUL and other control characters. The lab admin's guide lists every limit
(docs/lab-admin/security.md)."""

import copy
import re
from pathlib import Path

import pytest
import yaml
from django.core.exceptions import ValidationError
from django.core.management import call_command

from core.text_rules import (
    CONTROL_CHARACTERS,
    TextRules,
    apply_text_rules,
    check_text,
)
from heartbench_site.management.text_inventory import (
    form_text_fields,
    limits_table,
    serializer_text_fields,
)

FORM_FIELDS = form_text_fields()
API_FIELDS = serializer_text_fields()
LIMITS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "lab-admin" / "security.md"


def _id(row) -> str:
    return f"{row.owner.__module__}.{row.owner.__name__}.{row.name}"


def _filled(n: int) -> str:
    return "x" * n


def test_the_inventory_finds_the_forms_and_the_api():
    owners = {row.owner.__name__ for row in FORM_FIELDS + API_FIELDS}
    assert {"ComparisonJudgmentForm", "JudgmentSerializer", "DraftSerializer"} <= owners
    assert len(FORM_FIELDS) > 80 and len(API_FIELDS) > 60


@pytest.mark.parametrize("row", FORM_FIELDS, ids=_id)
def test_form_field_refuses_limit_plus_one(row):
    assert row.limit, f"{row.where}.{row.name} ({row.label}) has no max_length"
    assert issubclass(row.owner, TextRules), f"{row.where} does not apply the text rules"
    declared = row.owner.base_fields.get(row.name) or row.owner.dynamic_text_fields()[row.name]
    field = copy.deepcopy(declared)
    apply_text_rules({row.name: field})  # what TextRules does at each validation
    with pytest.raises(ValidationError) as refused:
        field.clean(_filled(row.limit + 1))
    message = " ".join(refused.value.messages)
    assert row.label in message and f"{row.limit:,}" in message, message
    field.clean(_filled(row.limit))  # exactly the limit is fine
    with pytest.raises(ValidationError) as nul:
        field.clean("draft\x00note")
    assert "control character" in " ".join(nul.value.messages)


@pytest.mark.parametrize("row", API_FIELDS, ids=_id)
def test_api_field_refuses_limit_plus_one(row):
    assert row.limit, f"{row.where}.{row.name} ({row.label}) has no max_length"
    serializer = row.owner(data={row.name: _filled(row.limit + 1)}, partial=True)
    assert not serializer.is_valid()
    message = " ".join(str(m) for m in serializer.errors.get(row.name, []))
    assert row.label in message and f"{row.limit:,}" in message, serializer.errors
    serializer = row.owner(data={row.name: "draft\x00note"}, partial=True)
    assert not serializer.is_valid()
    assert "control character" in " ".join(str(m) for m in serializer.errors.get(row.name, []))


@pytest.mark.parametrize("char", ["\x00", "\x01", "\x08", "\x0b", "\x1b", "\x7f"])
def test_one_control_character_rule(char):
    with pytest.raises(ValidationError) as refused:
        check_text(f"a{char}b", label="Note", limit=10)
    assert "Note contains a control character" in refused.value.messages[0]
    assert "at character 2" in refused.value.messages[0]
    assert check_text("tab\there\r\nline", label="Note", limit=100) == "tab\there\r\nline"
    assert CONTROL_CHARACTERS.search(char)


def test_the_guide_lists_every_limit():
    text = LIMITS_PAGE.read_text(encoding="utf-8")
    block = re.search(r"<!-- text-limits:start -->\n(.*?)<!-- text-limits:end -->", text, re.S)
    assert block, "docs/lab-admin/security.md has no text-limits block"
    assert block.group(1) == limits_table(), (
        "docs/lab-admin/security.md's text limits differ from the code: paste "
        "`manage.py text_limits` between the text-limits markers"
    )


# Credentials are checked against the stored account, never stored as typed text.
UNSTORED = {("/api/auth/token/", "username"), ("/api/auth/token/", "password")}


@pytest.fixture(scope="module")
def schema(django_db_setup, django_db_blocker, tmp_path_factory):
    out = tmp_path_factory.mktemp("schema") / "schema.yaml"
    with django_db_blocker.unblock():
        call_command("spectacular", "--file", str(out))
    return yaml.safe_load(out.read_text())


def _request_text_fields(schema):
    """(method, path, field, property) of each free-text property of each JSON request
    body in the OpenAPI schema (choices, dates and ids have their own checks)."""
    components = schema["components"]["schemas"]

    def resolve(node):
        while "$ref" in node:
            node = components[node["$ref"].rsplit("/", 1)[-1]]
        return node

    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if method not in ("post", "put", "patch") or not body:
                continue
            for name, prop in (resolve(body["schema"]).get("properties") or {}).items():
                prop = resolve(prop)
                free = not {"enum", "format", "readOnly"} & prop.keys()
                if prop.get("type") == "string" and free:
                    yield method, path, name, prop


def test_every_api_request_documents_its_text_limits(schema):
    """A script reads the limits where it reads the rest of the contract: ``maxLength``
    on every free-text field of every request body (once missing: the text rules replaced
    the validator the schema generator reads)."""
    fields = list(_request_text_fields(schema))
    assert len(fields) > 100
    missing = [
        f"{method.upper()} {path} {name}"
        for method, path, name, prop in fields
        if "maxLength" not in prop and (path, name) not in UNSTORED
    ]
    assert missing == []
    by_field = {
        (path, name): prop["maxLength"] for _, path, name, prop in fields if "maxLength" in prop
    }
    assert by_field[("/api/compare/{assignment}/judgment/", "selection_rationale")] == 4_000
    assert max(by_field.values()) <= 20_000, "a limit larger than the longest text kind"
