"""A finished evaluation run from a predictions file (JSON or CSV, see
docs/lab-admin/evaluation.md): the whole file is rejected, and nothing stored, when any
row is wrong (seed 000 §3.1, L.1)."""

from __future__ import annotations

import csv
import io
import json

from django.db import transaction
from django.utils import timezone

from adjudication.mcq.models import McqItem
from core.plurals import agree, counted
from core.text_rules import NOTE, check_texts

from . import parsing
from .models import LABEL_MAX, EvaluationError, EvaluationPrediction, EvaluationRun, Setting

Status = EvaluationPrediction.Status
RunStatus = EvaluationRun.Status

#: Column names accepted for the letter in a predictions CSV.
LETTER_COLUMNS = ("decision_choice", "prediction", "answer", "choice")


def _file_error(*messages) -> EvaluationError:
    """An error in the file's content, named on the form's (and the API's) ``file`` field."""
    return EvaluationError({"file": list(messages)})


def _records_from_json(content: bytes) -> tuple[dict, list[tuple[str, str, dict]]]:
    """The file's metadata and its ``(where, question_id, record)`` rows; ``where`` names
    the row in the file (``predictions[3]``) for error messages."""
    try:
        data = json.loads(content.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise _file_error(f"The predictions file is not valid JSON: {exc}.") from None
    meta = {}
    if isinstance(data, dict) and "predictions" in data:
        meta = {k: v for k, v in data.items() if k != "predictions"}
        data = data["predictions"]
    records = []
    if isinstance(data, dict):
        for qid, value in data.items():
            records.append(
                (
                    f"predictions[{json.dumps(str(qid))}]",
                    str(qid),
                    value if isinstance(value, dict) else {"decision_choice": value},
                )
            )
    elif isinstance(data, list):
        for n, value in enumerate(data):
            if not isinstance(value, dict) or not value.get("question_id"):
                raise _file_error(f"predictions[{n}] has no question_id.")
            records.append((f"predictions[{n}]", str(value["question_id"]), value))
    else:
        raise _file_error("The predictions JSON must be an object or a list of records.")
    return meta, records


def _records_from_csv(content: bytes) -> list[tuple[str, str, dict]]:
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _file_error("The predictions CSV is not UTF-8 text.") from None
    reader = csv.DictReader(io.StringIO(text))
    fields = [f.strip().lower() for f in reader.fieldnames or []]
    letter = next((c for c in LETTER_COLUMNS if c in fields), None)
    if "question_id" not in fields or letter is None:
        raise _file_error(
            "The predictions CSV needs a question_id column and a letter column "
            f"({' or '.join(LETTER_COLUMNS)})."
        )
    records = []
    for line, row in enumerate(reader, start=2):
        row = {k.strip().lower(): (v or "").strip() for k, v in row.items() if k}
        value = row.get(letter, "")
        if value and parsing.normalize_choice(value) is None:
            raise _file_error(f"Line {line}: {letter} {value!r} is not A, B, C, D or blank.")
        if not row.get("question_id"):
            raise _file_error(f"Line {line}: question_id is empty.")
        records.append((f"line {line}", row["question_id"], {"decision_choice": value}))
    return records


def _text(value) -> str:
    if not value:
        return ""
    return value if isinstance(value, str) else json.dumps(value)


def _imported_answer(record: dict) -> parsing.ParsedAnswer:
    if "decision_choice" in record:
        choice = parsing.normalize_choice(record.get("decision_choice"))
        return parsing.ParsedAnswer(
            choice, EvaluationPrediction.ParsePath.IMPORTED if choice else parsing.INVALID
        )
    if record.get("refused"):
        return parsing.parse_response(None, refused=True)
    raw = record.get("raw_response") or record.get("response")
    if raw is not None and not isinstance(raw, str):
        raw = json.dumps(raw)  # a reply given as JSON rather than as its text
    return parsing.parse_response(raw)


@transaction.atomic
def evaluation_run_import(
    *, created_by, filename: str, content: bytes, label: str = "", setting: str = "", note: str = ""
) -> EvaluationRun:
    """A finished run from a predictions file (JSON or CSV, see
    docs/lab-admin/evaluation.md). The whole file is rejected, and nothing stored, when
    any row is wrong."""
    check_texts(
        {"label": label or "", "note": note or ""},
        {"label": LABEL_MAX, "note": NOTE},
        labels={"label": "Model label"},
        error=EvaluationError,
    )
    if filename.lower().endswith(".csv"):
        meta, records = {}, _records_from_csv(content)
    else:
        meta, records = _records_from_json(content)
    label = (label or str(meta.get("model") or "")).strip()
    setting = setting or str(meta.get("setting") or "")
    if not label:
        raise EvaluationError(
            {"label": ['Name the model: the file has no "model" and no label was given.']}
        )
    if setting not in Setting.values:
        raise EvaluationError(
            {
                "setting": [
                    f"Choose the setting; {setting or 'none'!r} is not one of "
                    f"{', '.join(Setting.values)}."
                ]
            }
        )
    if not records:
        raise _file_error("The predictions file has no predictions.")
    with_nul = [place for place, qid, _ in records if "\x00" in qid]
    if with_nul:
        raise _file_error(f"{with_nul[0]}: question_id holds a NUL character.")
    ids = [qid for _, qid, _ in records]
    where = {}
    for place, qid, _ in records:
        where.setdefault(qid, []).append(place)
    duplicates = sorted(q for q, places in where.items() if len(places) > 1)
    if duplicates:
        raise _file_error(
            f"Question {agree(len(duplicates), 'id', 'ids')} listed twice: "
            + ", ".join(f"{q} ({' and '.join(where[q])})" for q in duplicates[:10])
            + "."
        )
    items = {i.question_id: i for i in McqItem.objects.filter(question_id__in=ids)}
    unknown = [(place, q) for place, q, _ in records if q not in items]
    if unknown:
        raise _file_error(
            f"{counted(len(unknown), 'unknown question id')}: "
            + ", ".join(f"{place} question_id {q!r}" for place, q in unknown[:10])
            + "."
        )
    run = EvaluationRun.objects.create(
        label=label[:120],
        origin=EvaluationRun.Origin.IMPORTED,
        setting=setting,
        provider={"kind": "imported"},
        item_set=f"{len(records)} imported items",
        # It never ran: stored finished; its origin says it was imported.
        status=RunStatus.FINISHED,
        note=note,
        source_file=filename[:300],
        created_by=created_by,
        started_at=timezone.now(),
        finished_at=timezone.now(),
    )
    rows = []
    for _, qid, record in records:
        answer = _imported_answer(record)
        rows.append(
            EvaluationPrediction(
                run=run,
                item=items[qid],
                status=Status.ANSWERED if answer.choice else Status.INVALID,
                choice=answer.choice or "",
                parse_path=answer.path,
                raw_response=parsing.without_nul(_text(record.get("raw_response"))),
                parsed=parsing.without_nul(answer.parsed),
            )
        )
    EvaluationPrediction.objects.bulk_create(rows)
    return run
