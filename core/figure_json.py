"""Computed statistics as JSON and back, for the stored reports (issue #34).

A report's figures are dataclasses (``agreement``'s results, an app's rows) holding
numpy arrays and numbers, tuples, frozensets and dicts keyed by tuples. :func:`to_json`
tags each of these so :func:`from_json` rebuilds the same objects, and a page formats the
stored figures with the code that formatted freshly computed ones. Only dataclasses of
the modules a caller names are rebuilt.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from importlib import import_module

import numpy as np


def to_json(obj, *, shrink: Callable | None = None):
    """A JSON-able form of ``obj``; ``shrink(obj)`` may first replace an object by a
    lighter one (a field only the computation needed, emptied)."""
    if shrink is not None:
        obj = shrink(obj)

    def again(x):
        return to_json(x, shrink=shrink)

    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        fields = {f.name: again(getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.init}
        cls = type(obj)
        return {"__dataclass__": f"{cls.__module__}:{cls.__qualname__}", "fields": fields}
    if isinstance(obj, np.ndarray):
        return {"__array__": again(obj.tolist()), "dtype": str(obj.dtype), "shape": obj.shape}
    if isinstance(obj, np.bool_ | bool):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, float | np.floating):
        value = float(obj)
        return value if math.isfinite(value) else {"__float__": repr(value)}
    if isinstance(obj, tuple):
        return {"__tuple__": [again(x) for x in obj]}
    if isinstance(obj, frozenset | set):
        return {"__set__": [again(x) for x in sorted(obj, key=repr)]}
    if isinstance(obj, list):
        return [again(x) for x in obj]
    if isinstance(obj, dict):
        if all(isinstance(k, str) and not k.startswith("__") for k in obj):
            return {k: again(v) for k, v in obj.items()}
        return {"__items__": [[again(k), again(v)] for k, v in obj.items()]}
    if obj is None or isinstance(obj, str | int):
        return obj
    raise TypeError(f"Cannot store a {type(obj).__name__} in a report's figures.")


def from_json(data, *, trusted_modules: Sequence[str]):
    """The objects :func:`to_json` stored. A module name in ``trusted_modules`` ending
    in "." stands for the package's modules."""

    def again(x):
        return from_json(x, trusted_modules=trusted_modules)

    if isinstance(data, list):
        return [again(x) for x in data]
    if not isinstance(data, dict):
        return data
    if "__dataclass__" in data:
        cls = _dataclass(data["__dataclass__"], trusted_modules)
        return cls(**{k: again(v) for k, v in data["fields"].items()})
    if "__array__" in data:
        return np.array(again(data["__array__"]), dtype=data["dtype"]).reshape(data["shape"])
    if "__float__" in data:
        return float(data["__float__"])
    if "__tuple__" in data:
        return tuple(again(x) for x in data["__tuple__"])
    if "__set__" in data:
        return frozenset(again(x) for x in data["__set__"])
    if "__items__" in data:
        return {_key(again(k)): again(v) for k, v in data["__items__"]}
    return {k: again(v) for k, v in data.items()}


def _key(value):
    return tuple(value) if isinstance(value, list) else value


def _dataclass(path: str, trusted_modules: Sequence[str]):
    module, _, name = path.partition(":")
    trusted = any(
        module == t or (t.endswith(".") and module.startswith(t)) for t in trusted_modules
    )
    if not trusted:
        raise ValueError(f"Stored figures name an unexpected class: {path}")
    cls = getattr(import_module(module), name)
    if not dataclasses.is_dataclass(cls):
        raise ValueError(f"Stored figures name a class that is no dataclass: {path}")
    return cls
