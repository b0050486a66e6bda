"""What a call record stores holds no NUL (PostgreSQL refuses it), wherever the provider
put one, and a value without NUL is stored as it came."""

import datetime

from core.providers import storable


def test_every_nul_is_replaced_in_strings_keys_and_nested_values():
    value = {
        "a\x00": ["x\x00y", {"deep": "\x00"}, 3, None],
        "ok": "fine",
        "n": 1.5,
    }
    assert storable(value) == {
        "a\ufffd": ["x\ufffdy", {"deep": "\ufffd"}, 3, None],
        "ok": "fine",
        "n": 1.5,
    }
    assert storable("a\x00b") == "a\ufffdb"


def test_a_value_without_nul_is_kept_as_it_is():
    request = {"messages": [{"role": "user", "content": "x" * 20_000}], "max_tokens": 512}
    assert storable(request) is request
    # The six characters of an escaped NUL written out in text are not a NUL.
    assert storable({"t": "\\u0000"}) == {"t": "\\u0000"}
    assert storable("plain") == "plain"


def test_values_json_cannot_write_are_walked():
    when = datetime.datetime(2026, 12, 7, tzinfo=datetime.UTC)
    assert storable({"at": when, "note": "a\x00"}) == {"at": when, "note": "a\ufffd"}
    assert storable([("t\x00",), "b\x00"]) == [("t\x00",), "b\ufffd"]  # tuples as before
