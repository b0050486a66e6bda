"""Reads of the evaluation workflow, with their joins spelled out (no N+1)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db.models import CharField, Count, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce, NullIf
from django.urls import reverse

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.models import McqItem, McqOption
from core.plurals import counted
from core.roles import Role, user_roles

from . import analysis
from .models import EvaluationCall, EvaluationPrediction, EvaluationRun, Setting

Status = EvaluationPrediction.Status
#: Rows that carry a response (or the leak check's refusal): the graded ones.
GRADED = (Status.ANSWERED, Status.INVALID, Status.LEAK_BLOCKED)
#: Runs whose predictions are results; an imported run is stored finished.
RESULT_STATUSES = (EvaluationRun.Status.FINISHED, EvaluationRun.Status.FINISHED_WITH_FAILURES)


def _scored(queryset):
    """Predictions that are scored: graded ones, and failed calls of a run that has
    finished (an admin's resume re-runs those; until then they count as incorrect, as
    the paper counts an invalid answer, §3.1)."""
    return queryset.filter(
        Q(status__in=GRADED) | Q(status=Status.FAILED, run__status__in=RESULT_STATUSES)
    )


def model_predictions(
    items, *, setting: str = Setting.NAIVE_RAG
) -> dict[str, dict[int, str | None]]:
    """``{model label: {item pk: "A".."D" or None}}`` for ``items`` (a queryset or
    iterable of McqItem or pks) under ``setting`` (default: the main Naive-RAG setting,
    which the human baseline is compared with, App. J).

    None means the model gave no valid answer (invalid, refused, the leak check refused
    the prompt, or the call failed in a finished run and was not re-run): count it
    incorrect. An item the model was never asked (not in its runs, still running) is
    absent. When several runs of a model cover an item, the latest run's response wins.
    """
    pks = [getattr(i, "pk", i) for i in items]
    rows = (
        _scored(EvaluationPrediction.objects.filter(item_id__in=pks, run__setting=setting))
        .order_by("run__created_at", "run_id")
        .values_list("run__label", "item_id", "choice")
    )
    out: dict[str, dict[int, str | None]] = {}
    for label, item_id, choice in rows:
        out.setdefault(label, {})[item_id] = choice or None
    return out


def evaluation_home_queues(*, user) -> dict:
    """The admin's home card: runs still working and runs finished with failed calls."""
    if Role.ADMIN not in user_roles(user):
        return {}
    counts = EvaluationRun.objects.aggregate(
        open=Count(
            "pk",
            filter=Q(
                status__in=[
                    EvaluationRun.Status.PENDING,
                    EvaluationRun.Status.RUNNING,
                    EvaluationRun.Status.CANCELLING,
                    EvaluationRun.Status.FINISHED_WITH_FAILURES,
                ]
            ),
        )
    )
    count = counts["open"]
    return {
        "evaluation_runs": {
            "count": count,
            "url": reverse("evaluation:run-list"),
            "label": f"{counted(count, 'evaluation run')} running or with failed items to resume",
        }
    }


@dataclass(frozen=True)
class RunProgress:
    total: int
    pending: int
    running: int
    answered: int
    invalid: int
    leak_blocked: int
    failed: int
    cancelled: int
    tokens_in: int
    tokens_out: int
    cost_usd: Decimal = Decimal("0")

    @property
    def done(self) -> int:
        return self.answered + self.invalid + self.leak_blocked + self.failed + self.cancelled

    @property
    def percent(self) -> int:
        return int(100 * self.done / self.total) if self.total else 100

    def share(self, n: int) -> float:
        return round(100 * n / self.total, 2) if self.total else 0.0

    @property
    def percent_answered(self):
        return self.share(self.answered)

    @property
    def percent_invalid(self):
        return self.share(self.invalid)

    @property
    def percent_leak(self):
        return self.share(self.leak_blocked)

    @property
    def percent_failed(self):
        return self.share(self.failed)

    @property
    def percent_cancelled(self):
        return self.share(self.cancelled)


def _progress_annotations():
    from django.db.models import Sum

    def n(status):
        return Count("predictions", filter=Q(predictions__status=status))

    return {
        "n_total": Count("predictions"),
        "n_pending": n(Status.PENDING),
        "n_running": n(Status.RUNNING),
        "n_answered": n(Status.ANSWERED),
        "n_invalid": n(Status.INVALID),
        "n_leak": n(Status.LEAK_BLOCKED),
        "n_failed": n(Status.FAILED),
        "n_cancelled": n(Status.CANCELLED),
        "n_tokens_in": Sum("predictions__tokens_in"),
        "n_tokens_out": Sum("predictions__tokens_out"),
        "n_cost_usd": Sum("predictions__cost_usd"),
    }


def _progress_of(run) -> RunProgress:
    return RunProgress(
        total=run.n_total,
        pending=run.n_pending,
        running=run.n_running,
        answered=run.n_answered,
        invalid=run.n_invalid,
        leak_blocked=run.n_leak,
        failed=run.n_failed,
        cancelled=run.n_cancelled,
        tokens_in=run.n_tokens_in or 0,
        tokens_out=run.n_tokens_out or 0,
        cost_usd=run.n_cost_usd or Decimal("0"),
    )


def run_queryset():
    """Every run, annotated with its progress counts (``with_progress`` reads them)."""
    return (
        EvaluationRun.objects.select_related("created_by")
        .annotate(**_progress_annotations())
        .order_by("-created_at", "-pk")  # Meta.ordering is dropped from GROUP BY queries
    )


def with_progress(runs):
    """``runs`` of ``run_queryset`` as a list, each with its ``progress``."""
    runs = list(runs)
    for run in runs:
        run.progress = _progress_of(run)
    return runs


def run_list():
    """Every run with its progress counts: one query."""
    return with_progress(run_queryset())


def run_get(*, run_id: int):
    run = (
        EvaluationRun.objects.select_related("created_by")
        .annotate(**_progress_annotations())
        .filter(pk=run_id)
        .first()
    )
    if run is not None:
        run.progress = _progress_of(run)
    return run


def _with_last_call(rows):
    """Each prediction with its latest call's ``latency_s`` (None without a call) and
    ``prompt_hash`` ("" without one), as the pages and the API show them."""
    last = EvaluationCall.objects.filter(prediction=OuterRef("pk")).order_by("-pk")
    return rows.annotate(
        latency_s=Subquery(last.values("latency_s")[:1]),
        prompt_hash=Coalesce(
            Subquery(last.values("prompt_hash")[:1]), Value(""), output_field=CharField()
        ),
    )


def run_predictions(*, run_id: int, status: str | None = None):
    rows = _with_last_call(EvaluationPrediction.objects.filter(run_id=run_id)).select_related(
        "item__character", "item__scenario"
    )
    if status:
        rows = rows.filter(status=status)
    return rows.order_by("item__question_id").defer("user_prompt", "raw_response", "parsed")


def prediction_get(*, run_id: int, prediction_id: int):
    return (
        _with_last_call(EvaluationPrediction.objects.all())
        .select_related(
            "run", "item__character", "item__scenario", "retrieval_set", "profile_version"
        )
        .filter(run_id=run_id, pk=prediction_id)
        .first()
    )


def prediction_calls(prediction) -> list:
    """The model calls a prediction made, oldest first (none for an imported one)."""
    return list(
        EvaluationCall.objects.filter(prediction=prediction)
        .defer("raw_response", "parsed", "request", "details")
        .order_by("pk")
    )


def analysis_runs(run_ids=None):
    """The runs the analysis compares: the given ones, else the latest finished or
    imported run of each (model, setting)."""
    runs = EvaluationRun.objects.filter(status__in=RESULT_STATUSES).order_by("-created_at", "-pk")
    if run_ids:
        return list(runs.filter(pk__in=run_ids))
    latest = {}
    for run in runs:
        latest.setdefault((run.label, run.setting), run)
    return sorted(latest.values(), key=lambda r: (r.label, Setting.values.index(r.setting)))


def prediction_table(runs) -> analysis.PredictionTable:
    """Rows → the arrays of :mod:`evaluation.analysis`: two queries (the runs are given).

    A failed call of a finished run is an answer of None (incorrect) and is listed in
    the column's ``failed``."""
    run_ids = [r.pk for r in runs]
    answers = {r.pk: {} for r in runs}
    failed = {r.pk: set() for r in runs}
    for run_id, item_id, choice, status in _scored(
        EvaluationPrediction.objects.filter(run_id__in=run_ids)
    ).values_list("run_id", "item_id", "choice", "status"):
        answers[run_id][item_id] = choice or None
        if status == Status.FAILED:
            failed[run_id].add(item_id)
    item_ids = sorted({i for a in answers.values() for i in a})
    # An imported item may have no reference link: its key's source is then the current
    # reference of its (character, scenario) pair.
    pair_source = ReferenceResponse.objects.filter(
        character=OuterRef("character"), scenario=OuterRef("scenario"), superseded_at__isnull=True
    ).values("source_family")[:1]
    items = (
        McqItem.objects.filter(pk__in=item_ids)
        .annotate(pair_source=Subquery(pair_source))
        .values_list(
            "pk",
            "correct_answer",
            "scenario__scenario_id",
            "character__key",
            "stage",
            Coalesce(NullIf("reference__source_family", Value("")), "pair_source"),
        )
    )
    key, scenario, character, stage, family = {}, {}, {}, {}, {}
    for pk, answer, scn, char, stg, fam in items:
        key[pk], scenario[pk], character[pk], stage[pk] = answer, scn, char, stg
        family[pk] = fam or analysis.SOURCE_NOT_RECORDED
    columns = tuple(
        analysis.Column(
            r.pk,
            r.label,
            r.setting,
            answers[r.pk],
            failed=frozenset(failed[r.pk]),
            family=analysis.model_family(r.label, (r.provider or {}).get("kind", "")),
        )
        for r in runs
    )
    return analysis.PredictionTable(
        tuple(item_ids),
        key,
        scenario,
        character,
        stage,
        family,
        columns,
        distractor_family=distractor_families(item_ids),
    )


def distractor_families(item_ids) -> dict[int, tuple[str, ...]]:
    """``{item pk: source families of its distractors in option order}`` (App. K.1): the
    family of the reference a distractor's text came from, else (an imported item) that
    of the current reference of its source character in the item's scenario; "not
    recorded" when neither records one."""
    options = (
        McqOption.objects.filter(item_id__in=item_ids, is_correct=False)
        .order_by("item_id", "label")
        .values_list(
            "item_id", "source_reference__source_family", "source_character", "item__scenario_id"
        )
    )
    rows = list(options)
    current = {
        (character, scenario): fam
        for character, scenario, fam in ReferenceResponse.objects.filter(
            superseded_at__isnull=True, scenario_id__in={r[3] for r in rows}
        ).values_list("character__key", "scenario_id", "source_family")
    }
    out: dict[int, tuple[str, ...]] = {}
    for item_id, linked, character, scenario in rows:
        fam = linked or current.get((character, scenario)) or analysis.SOURCE_NOT_RECORDED
        out[item_id] = (*out.get(item_id, ()), fam)
    return out
