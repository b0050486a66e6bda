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
from django.db import models, transaction
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.utils.html import escape

# How long the page waits after the last keystroke before it saves (the comparison
# form's rhythm); a change of a radio or a select saves at once.
AUTOSAVE_TRIGGER = "change, input delay:1000ms"
# A draft keeps at most this many characters of one field (a whole memory narrative
# fits many times over); NUL cannot be stored in jsonb, and no form accepts it anyway.
DRAFT_VALUE_MAX_CHARS = 20_000
NOT_SAVED_YET = "Not saved yet — changes save automatically."


class FormDraft(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(
        max_length=200, help_text="The form and its object, e.g. 'profile-review:CHAR_01'."
    )
    data = models.JSONField(default=dict, help_text="Field name → value (a list when several).")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        app_label = "heartbench_site"
        ordering = ["-updated_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="form_draft_one_per_user_and_key")
        ]

    def __str__(self):
        return f"{self.key} ({self.user})"


def _clean(values: list) -> str | list[str]:
    cleaned = [str(v).replace("\x00", "")[:DRAFT_VALUE_MAX_CHARS] for v in values]
    return cleaned[0] if len(cleaned) == 1 else cleaned


@transaction.atomic
def form_draft_save(*, user, key: str, data, fields: Iterable[str]) -> FormDraft:
    """Keep the posted values of ``fields`` (a QueryDict, or a dict of lists) as typed.
    Fields absent from ``data`` are left out: an unticked radio group restores as none."""
    getlist = data.getlist if hasattr(data, "getlist") else (lambda f: data[f])
    clean = {f: _clean(getlist(f)) for f in fields if f in data and getlist(f)}
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


def autosave_response(request, *, key: str, fields: Iterable[str], page_url: str):
    """The answer of a draft endpoint, once the caller has checked that ``request.user``
    may fill this form: the status line for htmx, or back to the page (a GET, a typed
    address, or a browser without JavaScript)."""
    if request.method != "POST":
        return redirect(page_url)
    draft = form_draft_save(user=request.user, key=key, data=request.POST, fields=fields)
    status = autosave_status(draft)
    if request.htmx:
        return HttpResponse(escape(status))
    return redirect(page_url)
