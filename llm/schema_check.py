"""A quick yes for the common case: a schema compiled once by fastjsonschema into plain
Python code, asked whether a reply conforms.

jsonschema walks a reply through many small objects per keyword and value; for the
generation stages' answers that is about a millisecond a call. fastjsonschema's compiled
check takes a tenth of that. It answers only "valid": a reply it refuses (or a schema it
cannot compile) goes to jsonschema, which decides and words the errors a model is sent
back. The two agree on the schemas the stages use (``tests/llm/test_schema_check.py``
compares them on generated replies), and jsonschema stays the judge of every refusal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import fastjsonschema

Check = Callable[[Any], bool]

# fastjsonschema reads draft 7 (a schema without ``$schema``); jsonschema reads the latest
# draft, 2020-12. For these keywords the two drafts differ (draft 7 ignores the siblings
# of ``$ref``, reads an ``items`` list as tuple items, knows no ``$defs``), so a schema
# using any of them is left to jsonschema alone.
_DRAFTS_DIFFER = frozenset(
    {
        "$ref",
        "$defs",
        "$dynamicRef",
        "$dynamicAnchor",
        "$schema",
        "prefixItems",
        "unevaluatedItems",
        "unevaluatedProperties",
        "dependentRequired",
        "dependentSchemas",
        "additionalItems",
        "dependencies",
    }
)


def _same_in_both_drafts(schema: Any) -> bool:
    if isinstance(schema, list):
        return all(_same_in_both_drafts(s) for s in schema)
    if not isinstance(schema, dict):
        return True
    if _DRAFTS_DIFFER.intersection(schema) or isinstance(schema.get("items"), list):
        return False
    return all(_same_in_both_drafts(v) for k, v in schema.items() if k not in ("enum", "const"))


def quick_check(schema: Any) -> Check | None:
    """A check returning True for an instance ``schema`` accepts and False otherwise, or
    None when the schema uses a keyword the two drafts read differently or fastjsonschema
    cannot compile it (then ask jsonschema alone)."""
    if not _same_in_both_drafts(schema):
        return None
    try:
        validate = fastjsonschema.compile(schema)
    except (fastjsonschema.JsonSchemaDefinitionException, TypeError, ValueError):
        return None

    def check(instance: Any) -> bool:
        try:
            validate(instance)
        except fastjsonschema.JsonSchemaValueException:
            return False
        return True

    return check
