"""Typed reads of JSON records that report, rather than raise, what is wrong.

Every getter returns ``None`` when the value is unusable, after recording one problem
that names the record and the dotted field path. A missing required key is reported
once, by ``expect_keys``; the getters stay silent about absent keys so a record with a
missing field gets one message, not two.
"""

import math

from annotation.corpus_import.problems import Problems, describe


def max_length(model, field_name: str) -> int | None:
    return model._meta.get_field(field_name).max_length


class Fields:
    def __init__(self, problems: Problems, record: str, obj, prefix: str = ""):
        self.problems = problems
        self.record = record
        self.obj = obj
        self.prefix = prefix

    def path(self, key: str | int) -> str:
        if isinstance(key, int):
            return f"{self.prefix}[{key}]"
        return f"{self.prefix}.{key}" if self.prefix else key

    def report(self, key: str | int | None, message: str) -> None:
        field = self.prefix if key is None else self.path(key)
        self.problems.add(self.record, field, message)

    # --- shape -------------------------------------------------------------------------
    def expect_keys(self, required, optional=(), ignored=()) -> bool:
        """Check the object's keys; False when it is not an object at all."""
        if not isinstance(self.obj, dict):
            self.report(None, f"must be an object, got {describe(self.obj)}")
            return False
        known = set(required) | set(optional) | set(ignored)
        for key in required:
            if key not in self.obj:
                self.report(key, "missing required field")
        for key in self.obj:
            if key not in known:
                self.report(str(key), f"unknown field (expected {', '.join(sorted(known))})")
        return True

    def has(self, key: str) -> bool:
        return isinstance(self.obj, dict) and key in self.obj

    def child(self, key: str) -> "Fields | None":
        if not self.has(key):
            return None
        return Fields(self.problems, self.record, self.obj[key], self.path(key))

    # --- scalars -----------------------------------------------------------------------
    def text(self, key: str, *, allow_empty: bool = False, limit: int | None = None) -> str | None:
        if not self.has(key):
            return None
        value = self.obj[key]
        if not isinstance(value, str):
            self.report(key, f"must be a string, got {describe(value)}")
            return None
        if not allow_empty and not value.strip():
            self.report(key, "must not be empty")
            return None
        if limit is not None and len(value) > limit:
            self.report(key, f"must be at most {limit} characters, got {len(value)}")
            return None
        return value

    def integer(self, key: str, *, low: int | None = None, high: int | None = None) -> int | None:
        if not self.has(key):
            return None
        value = self.obj[key]
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            self.report(key, f"must be a whole number, got {describe(value)}")
            return None
        if (low is not None and value < low) or (high is not None and value > high):
            self.report(key, f"must be between {low} and {high}, got {value}")
            return None
        return value

    def number(self, key: str, *, low: float, high: float) -> float | None:
        if not self.has(key):
            return None
        value = self.obj[key]
        ok = (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and math.isfinite(value)
            and low <= value <= high
        )
        if not ok:
            self.report(
                key, f"must be a number between {low:g} and {high:g}, got {describe(value)}"
            )
            return None
        return float(value)

    def boolean(self, key: str) -> bool | None:
        if not self.has(key):
            return None
        value = self.obj[key]
        if not isinstance(value, bool):
            self.report(key, f"must be true or false, got {describe(value)}")
            return None
        return value

    # --- containers --------------------------------------------------------------------
    def array(self, key: str) -> list | None:
        if not self.has(key):
            return None
        value = self.obj[key]
        if not isinstance(value, list):
            self.report(key, f"must be an array, got {describe(value)}")
            return None
        return value

    def string_list(self, key: str) -> list[str] | None:
        items = self.array(key)
        if items is None:
            return None
        ok = True
        for i, item in enumerate(items):
            if not isinstance(item, str) or not item.strip():
                self.problems.add(
                    self.record,
                    f"{self.path(key)}[{i}]",
                    f"must be a non-empty string, got {describe(item)}",
                )
                ok = False
        return list(items) if ok else None
