"""Item versions: the one path by which an MCQ item's options or key change.

Item review (seed 000 App. D.3.1) and the reference-label audit (App. D.4) both edit
items through :func:`revise_item`; it bumps the version, stores the snapshot and, once the
transaction commits, queues the edited item's screening in full ("Routing and
resolution": an edited item is screened again). :func:`remove_item` takes an item out of
the final set, keeping it.
"""

from django.db import transaction

from adjudication.mcq.models import OPTION_LABELS, McqItem, McqItemVersion, McqOption
from core.tasks import enqueue_on_commit
from core.text_rules import NOTE, TEXT, check_text


class ItemEditRejected(ValueError):
    """An edit that would leave the item malformed; the message names the problem."""


def option_dicts(item: McqItem) -> list[dict]:
    return [
        {
            "label": o.label,
            "content": o.content,
            "is_correct": o.is_correct,
            "is_generated": o.is_generated,
            "source_character": o.source_character,
            "source_reference": o.source_reference_id,
        }
        for o in sorted(item.options.all(), key=lambda o: o.label)
    ]


def record_version(item: McqItem, *, origin: str, user=None, note: str = "") -> McqItemVersion:
    """Snapshot the item as it stands under its current ``version`` number (idempotent)."""
    version, _ = McqItemVersion.objects.get_or_create(
        item=item,
        number=item.version,
        defaults={
            "correct_answer": item.correct_answer,
            "options": option_dicts(item),
            "seed": item.seed,
            "assembly_params": item.assembly_params,
            "origin": origin,
            "note": note,
            "created_by": user,
        },
    )
    return version


def current_version(item: McqItem) -> McqItemVersion:
    """The snapshot of the item's current version (recorded now if it has none yet)."""
    return McqItemVersion.objects.filter(item=item, number=item.version).first() or record_version(
        item, origin=McqItemVersion.Origin.IMPORT
    )


def validate_options(options: list[dict], correct_answer: str) -> None:
    labels = [o.get("label") for o in options]
    if labels != list(OPTION_LABELS):
        raise ItemEditRejected(f"An item needs options A, B, C, D in order; got {labels}.")
    if correct_answer not in OPTION_LABELS:
        raise ItemEditRejected(f"The key must be one of A-D; got {correct_answer!r}.")
    for o in options:
        if not str(o.get("content", "")).strip():
            raise ItemEditRejected(f"Option {o['label']} has no text.")
    texts = [" ".join(str(o["content"]).split()).casefold() for o in options]
    if len(set(texts)) != len(texts):
        raise ItemEditRejected("Two options have the same text.")


def check_typed(note: str, options: list[dict] | None = None) -> None:
    """The text rules (issue #24) on what a person typed for an edit: the note and the
    new option texts (stored options, e.g. imported ones, are not re-checked)."""
    check_text(note or "", label="Note", limit=NOTE, error=ItemEditRejected)
    for o in options or ():
        label = f"Option {o.get('label')}"
        check_text(str(o.get("content", "")), label=label, limit=TEXT, error=ItemEditRejected)


@transaction.atomic
def revise_item(
    item: McqItem,
    *,
    user,
    origin: str,
    note: str = "",
    options: list[dict] | None = None,
    correct_answer: str | None = None,
    reference=None,
) -> McqItemVersion:
    """Make a new version of ``item`` with new option texts and/or key.

    ``options``: four dicts in label order with ``label`` and ``content`` and
    optionally ``is_generated``, ``source_character``, ``source_reference``; omitted
    keys keep the current option's value. The item goes to ``screening``.
    """
    check_typed(note, options)
    item = McqItem.objects.select_for_update().get(pk=item.pk)
    current = option_dicts(item)
    key = correct_answer or item.correct_answer
    if options is None:
        merged = current
    else:
        by_label = {o["label"]: o for o in current}
        merged = []
        for o in options:
            base = dict(by_label.get(o.get("label"), {}))
            base.update({k: v for k, v in o.items() if k != "is_correct"})
            merged.append(base)
    validate_options(merged, key)
    if merged == current and key == item.correct_answer and reference is None:
        raise ItemEditRejected("The edit changes nothing: the options and key are as they were.")

    record_version(item, origin=McqItemVersion.Origin.IMPORT, user=None)
    item.options.all().delete()
    McqOption.objects.bulk_create(
        McqOption(
            item=item,
            label=o["label"],
            content=o["content"],
            is_correct=o["label"] == key,
            is_generated=bool(o.get("is_generated", False)),
            source_character=o.get("source_character") or "",
            source_reference_id=o.get("source_reference"),
        )
        for o in merged
    )
    item.version += 1
    item.correct_answer = key
    if reference is not None:
        item.reference = reference
    item.status = McqItem.Status.SCREENING
    item.save(update_fields=["version", "correct_answer", "reference", "status"])
    version = record_version(item, origin=origin, user=user, note=note)
    # after commit: the edited item is screened again in full
    enqueue_on_commit(
        "adjudication.mcq_screen_item", item.pk, what=f"Screening of MCQ item {item.pk}"
    )
    return version


@transaction.atomic
def remove_item(item: McqItem, *, user, origin: str, note: str) -> McqItem:
    """Take ``item`` out of the final set; its versions and options stay for the record."""
    check_typed(note)
    item = McqItem.objects.select_for_update().get(pk=item.pk)
    record_version(item, origin=McqItemVersion.Origin.IMPORT, user=None)
    item.status = McqItem.Status.REMOVED
    item.save(update_fields=["status"])
    return item
