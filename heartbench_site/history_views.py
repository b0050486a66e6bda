"""The decision history admins browse: every recorded change, newest first.

django-simple-history keeps one row per save of each model listed in
core/history.py: who (the request's user; none for a worker), when, and the
whole row after the change. Each entry here shows its changes field by field against
the object's previous row (before → after).
"""

from django.contrib.auth import get_user_model
from django.shortcuts import render

from core.history import HISTORY_TYPES, history_models
from core.roles import Role, role_required

PAGE_SIZE = 50
MAX_PAGE = 200


def _label(model) -> str:
    return f"{model._meta.app_label}.{model._meta.object_name}"


def history_entries(*, model_label: str = "", username: str = "", limit: int) -> list:
    """The ``limit`` newest (historical row, model) pairs: one query per model."""
    rows = []
    for model in history_models():
        if model_label and _label(model) != model_label:
            continue
        history = model.history.model.objects.select_related("history_user")
        if username:
            history = history.filter(history_user__username=username)
        newest = history.order_by("-history_date", "-history_id")[:limit]
        rows.extend((row, model) for row in newest)
    rows.sort(key=lambda pair: (pair[0].history_date, pair[0].history_id), reverse=True)
    return rows[:limit]


def with_changes(rows) -> list[dict]:
    """Each row with what it changed against the same object's previous row: one query
    per model on the page, however many rows it shows."""
    wanted = {}
    for row, model in rows:
        wanted.setdefault(model, set()).add(getattr(row, model._meta.pk.attname))
    earlier = {}
    for model, ids in wanted.items():
        pk = model._meta.pk.attname
        history = model.history.model.objects.filter(**{f"{pk}__in": ids})
        for past in history.order_by("history_date", "history_id"):
            earlier.setdefault((model, getattr(past, pk)), []).append(past)
    entries = []
    for row, model in rows:
        object_id = getattr(row, model._meta.pk.attname)
        before = None
        for past in earlier.get((model, object_id), []):
            if past.history_id == row.history_id:
                break
            before = past
        changes = []
        if before is not None:
            changes = [
                (change.field, change.old, change.new)
                for change in row.diff_against(before, foreign_keys_are_objs=False).changes
            ]
        entries.append(
            {
                "row": row,
                "model": _label(model),
                "verbose_name": model._meta.verbose_name,
                "object_id": object_id,
                "kind": HISTORY_TYPES.get(row.history_type, row.history_type),
                "changes": changes,
            }
        )
    return entries


@role_required(Role.ADMIN)
def decision_history(request):
    model_label = request.GET.get("model", "")
    username = request.GET.get("user", "")
    try:
        page = min(max(int(request.GET.get("page", 1)), 1), MAX_PAGE)
    except ValueError:
        page = 1
    rows = history_entries(model_label=model_label, username=username, limit=page * PAGE_SIZE + 1)
    shown = rows[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    return render(
        request,
        "history/list.html",
        {
            "entries": with_changes(shown),
            "page": page,
            "has_next": len(rows) > page * PAGE_SIZE and page < MAX_PAGE,
            "models": sorted(_label(m) for m in history_models()),
            "model_label": model_label,
            "username": username,
            "users": get_user_model()
            .objects.order_by("username")
            .values_list("username", flat=True),
        },
    )
