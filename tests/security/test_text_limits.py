"""Every text field a person types has a limit, the same message everywhere, and the one
control-character rule (issue #24 point 2-3): each form field and each API request field,
found in the code (so a new field without a limit fails here), refuses limit + 1
characters with a message naming the field and the limit, takes exactly the limit, and
refuses NUL and other control characters. The README lists every limit."""

import copy
import re
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError

from heartbench_site.base.text_rules import (
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
README = Path(__file__).resolve().parents[2] / "README.md"


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


def test_readme_lists_every_limit():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"<!-- text-limits:start -->\n(.*?)<!-- text-limits:end -->", text, re.S)
    assert block, "README.md has no text-limits block"
    assert block.group(1) == limits_table(), (
        "README's text limits differ from the code: paste `manage.py text_limits` between "
        "the text-limits markers"
    )
