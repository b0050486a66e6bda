"""The quick schema check (fastjsonschema) never accepts what jsonschema refuses, and
accepts the valid answers the stages get, so the fast path is the one taken."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema.validators import validator_for

from llm import SchemaValidator
from llm.schema_check import quick_check

from .helpers import CANDIDATE_SCHEMA, SCREENING_SCHEMA, VALID_CANDIDATE

# Every keyword the quick check knows, in one schema.
RICH_SCHEMA = {
    "type": "object",
    "title": "everything",
    "properties": {
        "ids": {
            "type": "array",
            "minItems": 1,
            "maxItems": 3,
            "items": {"type": "string", "pattern": r"^M_\d{2}$"},
        },
        "kind": {"type": "string", "enum": ["BS", "AM"]},
        "note": {"type": "string", "minLength": 1, "maxLength": 4},
        "score": {"type": "number", "minimum": 0, "maximum": 1},
        "count": {"type": ["integer", "null"], "minimum": 1},
        "flag": {"type": "boolean"},
        "extra": {"type": "object", "additionalProperties": {"type": "integer"}},
    },
    "required": ["ids", "kind"],
    "additionalProperties": False,
}

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(-2, 2, allow_nan=False),
    st.sampled_from([0.0, 1.0, 2.0]),
    st.sampled_from(["", "BS", "AM", "bs", "M_01", "M_1", "M_012", "M_01\n", "abcde", "é"]),
)
_json = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.sampled_from(["ids", "kind", "note", "score", "count", "flag", "extra", "x"]),
            inner,
            max_size=5,
        ),
    ),
    max_leaves=12,
)
# Near-valid objects: the schema's own keys with values of every sort.
_ids = st.sampled_from(["M_01", "M_99", "M_1", "M_012", "M_01\n", "", "x"])
_near = st.fixed_dictionaries(
    {
        "ids": st.one_of(st.lists(_ids, max_size=4), st.lists(_scalars, max_size=4), _json),
        "kind": st.one_of(st.sampled_from(["BS", "AM", "XX"]), _scalars),
    },
    optional={
        "note": _scalars,
        "score": _scalars,
        "count": _scalars,
        "flag": _scalars,
        "extra": st.dictionaries(st.sampled_from(["a", "b"]), _scalars, max_size=2),
        "x": _scalars,
    },
)


def _jsonschema_accepts(schema, instance) -> bool:
    return validator_for(schema)(schema).is_valid(instance)


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(instance=st.one_of(_near, _json))
@pytest.mark.parametrize("schema", [RICH_SCHEMA, SCREENING_SCHEMA, CANDIDATE_SCHEMA])
def test_the_quick_check_accepts_nothing_jsonschema_refuses(schema, instance):
    quick = quick_check(schema)
    assert quick is not None
    if quick(instance):
        assert _jsonschema_accepts(schema, instance)
    # And the validator the calls use agrees with jsonschema either way.
    assert (SchemaValidator(schema).errors(instance) == []) == _jsonschema_accepts(schema, instance)


def test_a_schema_the_drafts_read_differently_takes_no_quick_path():
    assert quick_check({"type": "object", "$ref": "#/$defs/x", "$defs": {"x": {}}}) is None
    assert quick_check({"type": "array", "items": [{"type": "string"}]}) is None
    assert quick_check({"type": "array", "prefixItems": [{"type": "string"}]}) is None


def test_valid_answers_take_the_quick_path():
    assert quick_check(CANDIDATE_SCHEMA)(VALID_CANDIDATE)
    assert quick_check(SCREENING_SCHEMA)([{"memory_id": "MEM_01_0001", "reason": "r"}])
    good = {"ids": ["M_01", "M_02"], "kind": "AM", "score": 0.5, "count": None, "extra": {"a": 2}}
    assert quick_check(RICH_SCHEMA)(good)


@pytest.mark.parametrize(
    "instance",
    [
        {"ids": [], "kind": "AM"},  # too few items
        {"ids": ["M_01"], "kind": "XX"},  # not in the enum
        {"ids": ["M_01\n"], "kind": "AM", "x": 1},  # an unknown property
        {"ids": ["M_01"], "kind": "AM", "score": True},  # a boolean is not a number
        {"ids": ["M_01"]},  # a required property missing
    ],
)
def test_a_refused_reply_goes_to_jsonschema_for_its_errors(instance):
    assert quick_check(RICH_SCHEMA)(instance) is False
    assert SchemaValidator(RICH_SCHEMA).errors(instance)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(instance=_json)
@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "$ref": "#/$defs/x", "$defs": {"x": {"required": ["ids"]}}},
        {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        {"type": "integer", "enum": [1, 2]},
        {"type": "object", "properties": {"kind": False}},
    ],
)
def test_other_keywords_never_accept_what_jsonschema_refuses(schema, instance):
    """A ``$ref`` beside ``type`` is read differently by draft 7 (fastjsonschema) and
    2020-12 (jsonschema): such a schema takes no quick path."""
    quick = quick_check(schema)
    if quick is not None and quick(instance):
        assert _jsonschema_accepts(schema, instance)
    assert (SchemaValidator(schema).errors(instance) == []) == _jsonschema_accepts(schema, instance)
