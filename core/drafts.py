"""Drafts of the forms that save themselves: what a person has typed, kept on the server
until they submit, so a closed tab or a lost connection loses nothing.

A workflow page whose form autosaves gives the form :func:`autosave_attrs` (htmx posts the
whole form on every change and after a pause in typing) and a draft endpoint that checks
the same permission as the form itself, then answers with :func:`autosave_response`.
Opening the page again, the view restores :func:`form_draft_values` into the form's
initial data; a successful final submit calls :func:`form_draft_clear`.

A draft belongs to one person and a namespaced key ("profile-review:CHAR_01"): every
read and write names the user, so nobody reads another person's draft. Drafts are not
decisions: they are not in the decision history and nothing downstream reads them.
"""

from collections.abc import Iterable

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.utils.html import escape

from core.text_rules import TEXT, field_label, text_problem

# How long the page waits after the last keystroke before it saves (the comparison
# form's rhythm); a change of a radio or a select saves at once.
AUTOSAVE_TRIGGER = "change, input delay:1000ms"
# A draft follows the text rules of its form (issue #24): a value over its field's limit
# (a long text's when the form names none) or holding a control character is refused
# whole, nothing saved, and the status line says why; never cut or stripped.
DRAFT_VALUE_MAX_CHARS = TEXT
NOT_SAVED = "Not saved: {}"
NOT_SAVED_YET = "Not saved yet — changes save automatically."


class FormDraft(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(
        max_length=200, help_text="The form and its object, e.g. 'profile-review:CHAR_01'."
    )
    data = models.JSONField(default=dict, help_text="Field name → value (a list when several).")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        app_label = "core"
        db_table = "heartbench_site_formdraft"  # first created by heartbench_site's migrations
        ordering = ["-updated_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="form_draft_one_per_user_and_key")
        ]

    def __str__(self):
        return f"{self.key} ({self.user})"


class DraftRefused(ValidationError):
    """A draft value breaks the text rules; nothing was saved. ``field`` names it, so the
    API answers 400 with the message under the field's name."""

    def __init__(self, text: str, *, field: str):
        super().__init__({field: [text]})
        self.text = text
        self.field = field


def form_text_limits(form) -> dict[str, tuple[str, int]]:
    """Field name → (label, limit) of a form's text fields (a form, or a form class for
    its declared fields): what its draft is held to."""
    from django import forms

    fields = form.fields if hasattr(form, "fields") else form.base_fields
    return {
        name: (field_label(name, field), field.max_length or DRAFT_VALUE_MAX_CHARS)
        for name, field in fields.items()
        if isinstance(field, forms.CharField)
    }


def _clean(field: str, values: list, limits: dict) -> str | list[str]:
    label, limit = limits.get(field) or (
        field.replace("_", " ").capitalize(),
        DRAFT_VALUE_MAX_CHARS,
    )
    cleaned = [str(v) for v in values]
    for value in cleaned:
        if problem := text_problem(value, label=label, limit=limit):
            raise DraftRefused(problem, field=field)
    return cleaned[0] if len(cleaned) == 1 else cleaned


@transaction.atomic
def form_draft_save(
    *, user, key: str, data, fields: Iterable[str], limits: dict | None = None
) -> FormDraft:
    """Keep the posted values of ``fields`` (a QueryDict, or a dict of lists) as typed.
    Fields absent from ``data`` are left out: an unticked radio group restores as none.
    ``limits`` (field → (label, limit), see :func:`form_text_limits`) holds each value
    to its form field's text rules; a value that breaks them raises ``DraftRefused`` and
    nothing is saved."""
    getlist = data.getlist if hasattr(data, "getlist") else (lambda f: data[f])
    limits = limits or {}
    clean = {f: _clean(f, getlist(f), limits) for f in fields if f in data and getlist(f)}
    draft, _ = FormDraft.objects.update_or_create(user=user, key=key, defaults={"data": clean})
    return draft


def form_draft_get(*, user, key: str) -> FormDraft | None:
    if not getattr(user, "is_authenticated", False):
        return None
    return FormDraft.objects.filter(user=user, key=key).first()


def form_draft_values(draft: FormDraft | None) -> dict:
    """The draft's values, ready to be a form's initial data (empty without a draft)."""
    return dict(draft.data) if draft is not None else {}


def form_draft_clear(*, user, key: str) -> None:
    FormDraft.objects.filter(user=user, key=key).delete()


def saved_status(saved_at) -> str:
    """ "Draft saved 14:05." (with the date when not today), or that nothing is saved yet."""
    if saved_at is None:
        return NOT_SAVED_YET
    saved = timezone.localtime(saved_at)
    if saved.date() == timezone.localdate():
        return f"Draft saved {saved:%H:%M}."
    return f"Draft saved {saved:%Y-%m-%d %H:%M}."


def autosave_status(draft: FormDraft | None) -> str:
    """The status line beside an autosaving form: true from the page's first paint."""
    return saved_status(draft.updated_at if draft is not None else None)


def autosave_attrs(draft_url: str, *, target: str = "#autosave-status") -> dict:
    """htmx attributes that save a form to ``draft_url``, for an element wrapping the
    form's fields (a crispy ``Div``): htmx posts the enclosing form's values. Not on the
    <form> itself: htmx checks a form's HTML validity before it posts, so a draft would
    not save until every required field is filled. The form's own submit is not a
    trigger, so the final submit still posts the whole page."""
    return {
        "hx-post": draft_url,
        "hx-trigger": AUTOSAVE_TRIGGER,
        "hx-target": target,
        "hx-swap": "innerHTML",
        "hx-sync": "this:replace",
        "data-autosave": "",
    }


def autosave_response(
    request, *, key: str, fields: Iterable[str], page_url: str, limits: dict | None = None
):
    """The answer of a draft endpoint, once the caller has checked that ``request.user``
    may fill this form: the status line for htmx, or back to the page (a GET, a typed
    address, or a browser without JavaScript). A draft that breaks the text rules is not
    saved: htmx gets "Not saved: <why>" in the status line, anything else a 400."""
    if request.method != "POST":
        return redirect(page_url)
    try:
        draft = form_draft_save(
            user=request.user, key=key, data=request.POST, fields=fields, limits=limits
        )
    except DraftRefused as refused:
        status = escape(NOT_SAVED.format(refused.text))
        if request.htmx:
            return HttpResponse(f'<span class="text-danger">{status}</span>')
        return HttpResponse(
            NOT_SAVED.format(refused.text), status=400, content_type="text/plain; charset=utf-8"
        )
    status = autosave_status(draft)
    if request.htmx:
        return HttpResponse(escape(status))
    return redirect(page_url)
