"""The App. J report: the best model fixed before it, the report queued and computed."""

from django.db import transaction
from django.utils import timezone

from core.deviations import ProtocolDeviation, record_deviation
from core.plurals import agree, counted
from core.tasks import enqueue_on_commit
from core.text_rules import NOTE, check_text

from .. import selectors
from ..models import (
    COUNT_MAX,
    MODEL_LABEL_MAX,
    SEED_MAX,
    BaselineError,
    BaselineReport,
    BaselineStudy,
    BestModelChoice,
    Participation,
    check_whole,
)
from ..report import build_report


@transaction.atomic
def report_request(*, study: BaselineStudy, user, seed: int, n_boot: int, n_permutations: int):
    check_whole("seed", seed, SEED_MAX)
    check_whole("number of bootstrap resamples", n_boot, COUNT_MAX)
    check_whole("number of source permutations", n_permutations, COUNT_MAX)
    finalized = Participation.objects.counted().filter(study=study).count()
    if finalized < 2:
        raise BaselineError(
            f"{counted(finalized, 'participant')} {agree(finalized, 'has', 'have')} finalized; "
            "the report needs at least two."
        )
    report = BaselineReport.objects.create(
        study=study, seed=seed, n_boot=n_boot, n_permutations=n_permutations, requested_by=user
    )
    enqueue_on_commit(
        "humanbaseline.compute_report", report.pk, what=f"Baseline report {report.pk}"
    )
    return report


def report_compute(*, report_id: int) -> BaselineReport:
    """Compute a queued report (idempotent: a finished report is returned as it is)."""
    with transaction.atomic():
        report = BaselineReport.objects.select_for_update().get(pk=report_id)
        if report.status in (BaselineReport.Status.DONE, BaselineReport.Status.FAILED):
            return report
        report.status = BaselineReport.Status.RUNNING
        report.save(update_fields=["status"])
    try:
        data = selectors.report_inputs(study=report.study)
        results = build_report(
            **data, seed=report.seed, n_boot=report.n_boot, n_permutations=report.n_permutations
        )
    except Exception as error:  # the page shows what went wrong instead of spinning
        BaselineReport.objects.filter(pk=report_id).update(
            status=BaselineReport.Status.FAILED, error=str(error), finished_at=timezone.now()
        )
        raise
    # Only while still computing: a withdrawal meanwhile set the report aside (its inputs
    # may hold the withdrawn answers) and asked for a new one.
    BaselineReport.objects.filter(pk=report_id, status=BaselineReport.Status.RUNNING).update(
        status=BaselineReport.Status.DONE, results=results, finished_at=timezone.now()
    )
    report.refresh_from_db()
    return report


@transaction.atomic
def best_model_fix(*, study: BaselineStudy, user, run_ids=(), model_label: str = "", reason=""):
    """Fix the model App. J compares humans with, before the report: the Naive-RAG run
    among ``run_ids`` with the highest accuracy on the full final set (ties: the first
    label, the others named), or ``model_label`` named by the admin in advance.

    Once participants have answered, a new choice needs a ``reason``: it is recorded as a
    protocol deviation and listed on the report, never changed silently."""
    check_text(model_label or "", label="Model label", limit=MODEL_LABEL_MAX, error=BaselineError)
    check_text(reason or "", label="Reason", limit=NOTE, error=BaselineError)
    study = BaselineStudy.objects.select_for_update().get(pk=study.pk)
    run_ids = [int(pk) for pk in run_ids or ()]
    label, reason = (model_label or "").strip(), (reason or "").strip()
    if run_ids and label:
        raise BaselineError(
            "Fix the best model by either evaluation runs or a model label, not both."
        )
    if not run_ids and not label:
        raise BaselineError("Choose at least one evaluation run or name the model.")
    answered = selectors.study_has_answers(study=study)
    if answered and not reason:
        raise BaselineError(
            "Once participants have answered, the best model changes only with a reason: "
            "give one (the report shows it)."
        )
    fields = {"method": BestModelChoice.Method.ADMIN, "model_label": label}
    if run_ids:
        ranking, n_final, problems = selectors.full_benchmark_accuracy(run_ids)
        if problems:
            raise BaselineError(*problems)
        best = ranking[0]
        fields = {
            "method": BestModelChoice.Method.FULL_BENCHMARK,
            "model_label": best["label"],
            "runs": ranking,
            "n_final_items": n_final,
            "tied_with": sorted(
                {
                    r["label"]
                    for r in ranking[1:]
                    if r["accuracy"] == best["accuracy"] and r["label"] != best["label"]
                }
            ),
        }
    previous = BestModelChoice.objects.filter(study=study).order_by("-chosen_at", "-pk").first()
    choice = BestModelChoice.objects.create(
        study=study, reason=reason, after_answers=answered, chosen_by=user, **fields
    )
    if answered:
        before = previous.model_label if previous else "(none)"
        record_deviation(
            stage="human baseline",
            kind=ProtocolDeviation.Kind.GATE_OVERRIDE,
            subject=f"study {study.pk} ({study.name}): best model {before} → {choice.model_label}",
            rule="App. J: the best model is fixed before participants answer",
            reason=reason,
            by=user,
        )
    return choice
