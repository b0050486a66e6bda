"""After the final set (seed 000 §3, App. J): human baseline, evaluation runs, export."""

from collections import Counter

from django.db.models import Count, Exists, OuterRef, Q
from django.urls import reverse

from adjudication.mcq.models import McqItem
from evaluation.models import EvaluationPrediction, EvaluationRun
from humanbaseline.models import BaselineReport, BaselineStudy, Participation, SubsetSelection

from .rows import Blocker, Stage, Tally, plural


def baseline_stage() -> Stage:
    selections = SubsetSelection.objects.aggregate(
        total=Count("pk"), feasible=Count("pk", filter=Q(feasible=True))
    )
    participants = Participation.objects.filter(study_id=OuterRef("pk"))
    studies = list(
        BaselineStudy.objects.annotate(
            finalized=Count(
                "participants",
                filter=Q(participants__status=Participation.Status.FINALIZED),
                distinct=True,
            ),
            answering=Count(
                "participants",
                filter=Q(
                    participants__status__in=[
                        Participation.Status.INVITED,
                        Participation.Status.CONSENTED,
                        Participation.Status.STARTED,
                    ]
                ),
                distinct=True,
            ),
            reported=Exists(
                BaselineReport.objects.filter(
                    study_id=OuterRef("pk"), status=BaselineReport.Status.DONE
                )
            ),
            enrolled=Exists(participants),
        )
        .order_by("pk")
        .values_list("pk", "name", "status", "finalized", "answering", "reported", "enrolled")
    )
    stage = Stage(
        "baseline",
        "Human baseline",
        "§3, App. J",
        [
            Tally("participants finalized", sum(row[3] for row in studies), emphasis=True),
            Tally("studies", len(studies)),
            Tally("feasible subset selections", selections["feasible"]),
        ],
        links=[("Baseline studies", reverse("baseline:admin"))],
    )
    if not selections["feasible"]:
        stage.blockers.append(
            Blocker(
                "No feasible subset selection yet: select the study items (admin).",
                reverse("baseline:admin"),
            )
        )
    for study_id, name, status, finalized, answering, reported, enrolled in studies:
        url = reverse("baseline:study-detail", args=[study_id])
        if status == BaselineStudy.Status.OPEN and not enrolled:
            stage.blockers.append(Blocker(f"Study “{name}” waits for participants to enrol.", url))
        elif answering:
            stage.blockers.append(
                Blocker(
                    f"Study “{name}” waits for {plural(answering, 'participant')} to finish.",
                    url,
                )
            )
        elif finalized and not reported:
            stage.blockers.append(
                Blocker(
                    f"Study “{name}”: no report computed yet (admin).",
                    reverse("baseline:report", args=[study_id]),
                )
            )
    return stage


def evaluation_stage() -> Stage:
    unanswered = [EvaluationPrediction.Status.PENDING, EvaluationPrediction.Status.RUNNING]
    failed_status = EvaluationPrediction.Status.FAILED
    # Counted over the predictions not answered alone (the status index finds them), not
    # by joining every prediction of every run.
    failed, waiting = Counter(), Counter()
    for run_id, status, n in (
        EvaluationPrediction.objects.filter(status__in=[failed_status, *unanswered])
        .values_list("run_id", "status")
        .annotate(n=Count("pk"))
        .order_by()
    ):
        (failed if status == failed_status else waiting)[run_id] += n
    runs = [
        (pk, label, status, failed[pk], waiting[pk])
        for pk, label, status in EvaluationRun.objects.order_by("pk").values_list(
            "pk", "label", "status"
        )
    ]
    # An imported run is stored finished (its origin says it was imported).
    done = {EvaluationRun.Status.FINISHED, EvaluationRun.Status.FINISHED_WITH_FAILURES}
    stage = Stage(
        "evaluation",
        "Evaluation runs",
        "§3, App. E, I, L.1",
        [
            Tally("runs finished or imported", sum(r[2] in done for r in runs), emphasis=True),
            Tally("runs", len(runs)),
        ],
        links=[
            ("Evaluation runs", reverse("evaluation:run-list")),
            ("Analysis", reverse("evaluation:analysis")),
        ],
    )
    for run_id, label, status, failed, waiting in runs:
        url = reverse("evaluation:run-detail", args=[run_id])
        if status not in done:
            stage.blockers.append(
                Blocker(
                    f"Evaluation run #{run_id} ({label}) is {status}: "
                    f"{plural(waiting, 'item')} unanswered.",
                    url,
                )
            )
        elif failed:
            stage.blockers.append(
                Blocker(
                    f"{plural(failed, 'call')} of evaluation run #{run_id} ({label}) failed: "
                    "resume the run (admin).",
                    url,
                )
            )
    return stage


def export_stage(item_status: dict[str, int], deviations: int) -> Stage:
    final = item_status.get(McqItem.Status.FINAL, 0)
    stage = Stage(
        "export",
        "Export",
        "§2.4, App. D.3",
        [
            Tally("items in the final set", final, emphasis=True),
            Tally("protocol deviations in the manifest", deviations),
        ],
        links=[("Export the final set", reverse("export:home"))],
    )
    if not final:
        stage.blockers.append(
            Blocker(
                "No item is in the final set yet: finish item review first.", reverse("mcq:queue")
            )
        )
    return stage
