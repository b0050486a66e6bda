"""The item sets an evaluation run can be launched on: every final item, a list of
question ids, or a CSV's ``question_id`` column. Unknown or non-final ids are refused,
named."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

from django.db.models import QuerySet

from adjudication.mcq.models import McqItem
from core.plurals import counted

from .models import EvaluationError


def final_items() -> QuerySet:
    return McqItem.objects.filter(status=McqItem.Status.FINAL)


def items_for_question_ids(question_ids: Iterable[str]) -> QuerySet:
    """Final items by question id; unknown or non-final ids are named in the error."""
    wanted = list(dict.fromkeys(q.strip() for q in question_ids if q and q.strip()))
    if not wanted:
        raise EvaluationError("The item list is empty: give at least one question id.")
    found = dict(
        McqItem.objects.filter(question_id__in=wanted).values_list("question_id", "status")
    )
    unknown = [q for q in wanted if q not in found]
    not_final = [q for q in wanted if q in found and found[q] != McqItem.Status.FINAL]
    problems = []
    if unknown:
        problems.append(
            f"{counted(len(unknown), 'unknown question id')}: {', '.join(unknown[:10])}"
        )
    if not_final:
        problems.append(
            f"{counted(len(not_final), 'item')} not in the final set: {', '.join(not_final[:10])}"
        )
    if problems:
        raise EvaluationError("; ".join(problems) + ". Nothing was created.")
    return final_items().filter(question_id__in=wanted)


def question_ids_from_csv(content: bytes) -> list[str]:
    """The ``question_id`` column of an uploaded CSV (or its first column without a header)."""
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise EvaluationError("The item CSV is not UTF-8 text.") from None
    rows = [r for r in csv.reader(io.StringIO(text)) if any(c.strip() for c in r)]
    if not rows:
        raise EvaluationError("The item CSV is empty.")
    header = [c.strip().lower() for c in rows[0]]
    if "question_id" in header:
        column = header.index("question_id")
        rows = rows[1:]
    else:
        column = 0
    return [r[column].strip() for r in rows if len(r) > column and r[column].strip()]
