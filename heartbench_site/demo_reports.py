"""The demo's statistics reports, computed in-process at the end of the demo build (after
every input they read exists), so a new user opening a statistics page sees current
figures at once rather than "being computed" or "stale". Running the build again
computes nothing that is already current."""

from adjudication.arbitration import stored_reports as arbitration_reports
from adjudication.judging import stored_reports as judge_reports
from adjudication.judging.models import JudgeRun
from adjudication.mcq import screener_agreement
from audit.memory_quality import classifier_agreement
from audit.reference_labels import stored_reports as label_reports
from audit.reference_labels.models import LabelAudit
from core.reports.services import compute_if_stale
from evaluation import stored_reports as evaluation_reports
from humanbaseline import selectors as baseline_selectors
from humanbaseline import services as baseline_services
from humanbaseline.models import BaselineStudy
from humanbaseline.report_state import report_state


def compute_demo_reports() -> None:
    compute_if_stale(arbitration_reports.KIND)
    compute_if_stale(evaluation_reports.ANALYSIS_KIND)
    compute_if_stale(screener_agreement.KIND)
    compute_if_stale(classifier_agreement.KIND)
    for run_id in JudgeRun.objects.values_list("pk", flat=True):
        compute_if_stale(judge_reports.KIND, judge_reports.key_for(run_id))
    for audit_id in LabelAudit.objects.values_list("pk", flat=True):
        compute_if_stale(label_reports.KIND, str(audit_id))
    # The baseline report was asked for before the demo's evaluation runs existed; ask
    # again with the same settings so it compares the humans with them.
    for study in BaselineStudy.objects.all():
        latest = baseline_selectors.latest_report(study=study)
        if latest is not None and latest.status == "done" and report_state(latest).stale:
            baseline_services.report_request(
                study=study,
                user=latest.requested_by,
                seed=latest.seed,
                n_boot=latest.n_boot,
                n_permutations=latest.n_permutations,
            )
