"""Every text field a person types, found in the code: each form's and each writable API
serializer's text fields with their limits (``core.text_rules``). The
``text_limits`` command prints them for docs/lab-admin/security.md; tests walk them."""

import importlib
import pkgutil
from dataclasses import dataclass

from django import forms

PROJECT_PACKAGES = (
    "annotation",
    "adjudication",
    "audit",
    "humanbaseline",
    "evaluation",
    "heartbench_site",
)
SKIPPED_MODULES = ("migrations", "management.commands", "settings", "wsgi", "tests")
# Forms that are not a person's typing: Django's own and the admin's.
SKIPPED_FORMS = {"admin"}


@dataclass(frozen=True)
class TextField:
    workflow: str  # e.g. "comparison"
    kind: str  # "form" or "API"
    owner: type  # the form or serializer class
    name: str
    label: str
    limit: int | None

    @property
    def where(self) -> str:
        return f"{self.kind} {self.owner.__name__}"


def import_project_modules() -> None:
    for package in PROJECT_PACKAGES:
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, prefix=f"{package}."):
            if any(f".{part}" in info.name for part in SKIPPED_MODULES):
                continue
            importlib.import_module(info.name)


def _subclasses(cls) -> list[type]:
    found, stack = [], [cls]
    while stack:
        for sub in stack.pop().__subclasses__():
            found.append(sub)
            stack.append(sub)
    return found


def _ours(cls) -> bool:
    module = cls.__module__
    return module.split(".")[0] in PROJECT_PACKAGES and not any(
        part in SKIPPED_FORMS for part in module.split(".")
    )


def _workflow(cls) -> str:
    parts = cls.__module__.split(".")
    return parts[1] if len(parts) > 2 and parts[0] != "humanbaseline" else parts[0]


def form_classes() -> list[type]:
    import_project_modules()
    return sorted(
        {c for c in _subclasses(forms.BaseForm) if _ours(c)},
        key=lambda c: (c.__module__, c.__name__),
    )


def serializer_classes() -> list[type]:
    """The serializers the API reads request bodies with: every write operation's
    request serializer, as the OpenAPI schema generator finds it."""
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.settings import spectacular_settings
    from rest_framework import serializers

    generator = SchemaGenerator()
    generator._initialise_endpoints()
    found = set()
    for path, _, method, view in generator._get_paths_and_endpoints():
        if method not in ("POST", "PUT", "PATCH"):
            continue
        view.request = spectacular_settings.GET_MOCK_REQUEST(method, path, view, None)
        body = view.schema.get_request_serializer()
        cls = body if isinstance(body, type) else type(body)
        if issubclass(cls, serializers.BaseSerializer) and _ours(cls):
            found.add(cls)
    return sorted(found, key=lambda c: (c.__module__, c.__name__))


def _label(name, field) -> str:
    from core.text_rules import field_label

    return field_label(name, field)


def form_text_fields() -> list[TextField]:
    rows = []
    for cls in form_classes():
        fields = dict(cls.base_fields)
        fields.update(getattr(cls, "dynamic_text_fields", lambda: {})())
        for name, field in fields.items():
            if isinstance(field, forms.CharField) and not isinstance(field, (forms.ChoiceField,)):
                rows.append(
                    TextField(
                        _workflow(cls), "form", cls, name, _label(name, field), field.max_length
                    )
                )
    return rows


def serializer_text_fields() -> list[TextField]:
    from rest_framework import serializers

    rows = []
    for cls in serializer_classes():
        try:
            fields = cls().get_fields()
        except Exception:  # noqa: BLE001 - a serializer that needs context is read-only here
            continue
        for name, field in fields.items():
            if isinstance(field, serializers.CharField) and not field.read_only:
                # The label the refusal names: the serializer's page wording when it has one.
                label = getattr(cls, "text_labels", {}).get(name) or _label(name, field)
                rows.append(TextField(_workflow(cls), "API", cls, name, label, field.max_length))
    return rows


def all_text_fields() -> list[TextField]:
    return form_text_fields() + serializer_text_fields()


def limits_table() -> str:
    """The table of text limits in docs/lab-admin/security.md (Markdown)."""
    lines = ["| workflow | where | field | limit (characters) |", "| --- | --- | --- | --- |"]
    for row in all_text_fields():
        limit = f"{row.limit:,}" if row.limit else "none"
        lines.append(f"| {row.workflow} | {row.where} | {row.label} (`{row.name}`) | {limit} |")
    return "\n".join(lines) + "\n"
