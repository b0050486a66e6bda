"""Every write of the human baseline: keyword-only, atomic, guarded by status.

study (sources, predictions, the subset selection, the study), participation (a
participant's way through it), report (the best model fixed before the report, the
report), pools (recruitment pool ids, the completion code and URL), rights (withdrawal
and erasure). Callers use
``humanbaseline.services.<name>``.
"""

from .participation import (
    MAX_SECONDS_PER_REPORT,
    REPORT_ID,
    SESSION_IDLE_LIMIT,
    activity_touch,
    answer_save,
    baseline_finalize,
    baseline_session_start,
    briefing_complete,
    consent_decide,
    invitation_signup,
    participant_account_create,
    participant_enrol,
    participant_order,
    practice_answer,
    time_record,
)
from .pools import (
    completion_problems,
    completion_url,
    pool_from_query,
    pool_link_queries,
    study_completion_set,
)
from .report import best_model_fix, report_compute, report_request
from .rights import participant_erase, participant_withdraw
from .study import (
    SOURCES,
    item_families_from_references,
    item_families_import_csv,
    practice_reason_set,
    predictions_import_csv,
    reference_source,
    study_create,
    study_set_status,
    subset_select,
)

__all__ = [
    "MAX_SECONDS_PER_REPORT",
    "REPORT_ID",
    "SESSION_IDLE_LIMIT",
    "SOURCES",
    "activity_touch",
    "answer_save",
    "baseline_finalize",
    "baseline_session_start",
    "best_model_fix",
    "briefing_complete",
    "completion_problems",
    "completion_url",
    "consent_decide",
    "invitation_signup",
    "item_families_from_references",
    "item_families_import_csv",
    "participant_account_create",
    "participant_enrol",
    "participant_erase",
    "participant_order",
    "participant_withdraw",
    "pool_from_query",
    "pool_link_queries",
    "practice_answer",
    "practice_reason_set",
    "predictions_import_csv",
    "reference_source",
    "report_compute",
    "report_request",
    "study_completion_set",
    "study_create",
    "study_set_status",
    "subset_select",
    "time_record",
]
