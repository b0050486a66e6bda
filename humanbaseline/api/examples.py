"""The OpenAPI examples the endpoints' schemas show, kept apart so that the endpoint
modules read as code."""

from drf_spectacular.utils import OpenApiExample

SOURCE_COUNTS_GET = [
    OpenApiExample(
        "Counts",
        value={"counts": {"gemini": 4, "claude": 4, "gpt": 3, "expert_rewrite": 1, "(none)": 0}},
        response_only=True,
    )
]

FAMILIES_GET = [
    OpenApiExample(
        "One page",
        value={
            "count": 1,
            "next": None,
            "previous": None,
            "results": [
                {
                    "question_id": "Q_CHAR_01_SCN_SCHOOL_AGE_1",
                    "family": "claude",
                    "origin": "csv:families.csv",
                    "updated_at": "2026-12-05T08:00:00Z",
                }
            ],
        },
        response_only=True,
    )
]

FAMILIES_POST = [
    OpenApiExample("From the references", value={"from": "references"}, request_only=True),
    OpenApiExample(
        "Done",
        value={"count": 12, "message": "12 item families copied from their references."},
        response_only=True,
    ),
]

PREDICTIONS_GET = [
    OpenApiExample(
        "One page",
        value={
            "count": 1,
            "next": None,
            "previous": None,
            "results": [
                {
                    "model_label": "model-a",
                    "question_id": "Q_CHAR_01_SCN_SCHOOL_AGE_1",
                    "letter": "B",
                    "origin": "csv:predictions.csv",
                    "created_at": "2026-12-05T08:00:00Z",
                }
            ],
        },
        response_only=True,
    )
]

PREDICTIONS_POST = [
    OpenApiExample(
        "Stored",
        value={"count": 18, "message": "18 model predictions stored from p.csv."},
        response_only=True,
    )
]

SELECTION_EXAMPLE = {
    "id": 3,
    "seed": 20261012,
    "feasible": True,
    "failed_at": "",
    "n_items": 9,
    "n_candidates": 12,
    "n_without_family": 0,
    "created_by": "admin",
    "created_at": "2026-12-05T08:00:00Z",
}

SELECTION_LIST_GET = [
    OpenApiExample(
        "One page",
        value={"count": 1, "next": None, "previous": None, "results": [SELECTION_EXAMPLE]},
        response_only=True,
    )
]

SELECTION_LIST_POST = [
    OpenApiExample(
        "Three per family",
        value={
            "seed": 20261012,
            "quota_gemini": 3,
            "quota_claude": 3,
            "quota_gpt": 3,
            "quota_expert_rewrite": 0,
            "held_out_scenarios": ["SCN_SCHOOL_AGE_4"],
        },
        request_only=True,
    ),
    OpenApiExample(
        "Recorded",
        value={
            **SELECTION_EXAMPLE,
            "parameters": {"quotas": {"gemini": 3, "claude": 3, "gpt": 3}, "total": 9},
            "problems": [],
            "notes": [],
            "proposal": {},
            "objective": 0.0,
            "tables": {"stages": ["school_age"], "overall": {}, "sources": {}},
        },
        response_only=True,
    ),
]

SELECTION_DETAIL_GET = [
    OpenApiExample(
        "Feasible",
        value={
            **SELECTION_EXAMPLE,
            "parameters": {"n_items": 9, "tolerance": 1},
            "problems": [],
            "notes": [],
            "proposal": {},
            "objective": 0.0,
            "tables": {},
        },
        response_only=True,
    )
]

SELECTION_ITEMS_GET = [
    OpenApiExample(
        "One page",
        value={
            "count": 1,
            "next": None,
            "previous": None,
            "results": [
                {
                    "question_id": "Q_CHAR_01_SCN_SCHOOL_AGE_1",
                    "family": "gpt",
                    "character": "CHAR_01",
                    "stage": "school_age",
                }
            ],
        },
        response_only=True,
    )
]

STUDY_EXAMPLE = {
    "id": 1,
    "name": "Everyday decisions study",
    "status": "open",
    "selection": 3,
    "consent_version": "v1",
    "consent_text": "You may stop at any time.",
    "briefing": "You will read short life stories.",
    "pay_text": "£12 an hour of recorded study time, paid after you finalize.",
    "retrieval_method": "bm25",
    "k": 30,
    "invitation_url": "https://heartbench.example/baseline/join/0b6c…/",
    "n_items": 9,
    "n_practice": 1,
    "best_model": None,
    "report_status": None,
    "created_by": "admin",
    "created_at": "2026-12-05T08:00:00Z",
}

STUDY_LIST_GET = [
    OpenApiExample(
        "One page",
        value={
            "count": 1,
            "next": None,
            "previous": None,
            "results": [
                {
                    "id": 1,
                    "name": "Everyday decisions study",
                    "status": "open",
                    "selection": 3,
                    "n_participants": 4,
                    "n_finalized": 2,
                    "created_at": "2026-12-05T08:00:00Z",
                }
            ],
        },
        response_only=True,
    )
]

STUDY_LIST_POST = [
    OpenApiExample(
        "A study",
        value={
            "name": "Everyday decisions study",
            "selection": 3,
            "consent_version": "v1",
            "consent_text": "You may stop at any time.",
            "briefing": "You will read short life stories.",
            "pay_text": "£12 an hour of recorded study time, paid after you finalize.",
            "practice_count": 1,
            "retrieval_method": "bm25",
            "k": 30,
        },
        request_only=True,
    ),
    OpenApiExample("Created", value=STUDY_EXAMPLE, response_only=True),
]

STUDY_DETAIL_GET = [OpenApiExample("Open", value=STUDY_EXAMPLE, response_only=True)]

STUDY_STATUS_POST = [
    OpenApiExample("Close", value={"status": "closed"}, request_only=True),
    OpenApiExample("Closed", value={**STUDY_EXAMPLE, "status": "closed"}, response_only=True),
]

STUDY_ITEMS_GET = [
    OpenApiExample(
        "One page",
        value={
            "count": 1,
            "next": None,
            "previous": None,
            "results": [
                {
                    "position": 1,
                    "is_practice": False,
                    "question_id": "Q_CHAR_01_SCN_SCHOOL_AGE_1",
                    "character": "CHAR_01",
                    "stage": "school_age",
                    "retrieval_set": 12,
                }
            ],
        },
        response_only=True,
    )
]

PARTICIPANT_EXAMPLE = {
    "id": 7,
    "username": "p-017",
    "status": "started",
    "enrolled_via": "admin",
    "consent_version": "v1",
    "consent_decided_at": "2026-12-05T08:01:00Z",
    "started_at": "2026-12-05T08:03:00Z",
    "finalized_at": None,
    "n_items": 150,
    "n_answered": 42,
    "item_seconds": 1260.5,
    "n_sessions": 1,
    "session_seconds": 1402.0,
    "created_at": "2026-12-05T08:00:00Z",
}

PARTICIPANTS_GET = [
    OpenApiExample(
        "One page",
        value={
            "count": 1,
            "next": None,
            "previous": None,
            "results": [PARTICIPANT_EXAMPLE],
        },
        response_only=True,
    )
]

PARTICIPANTS_POST = [
    OpenApiExample(
        "An account",
        value={"username": "p-017", "password": "a long passphrase 17"},
        request_only=True,
    ),
    OpenApiExample(
        "Enrolled",
        value={**PARTICIPANT_EXAMPLE, "status": "invited", "n_answered": 0},
        response_only=True,
    ),
]

TIME_ON_TASK_GET = [
    OpenApiExample(
        "One page",
        value={
            "count": 2,
            "next": None,
            "previous": None,
            "results": [
                {
                    "kind": "item",
                    "participant": "p-017",
                    "position": 1,
                    "question_id": "Q_CHAR_01_SCN_SCHOOL_AGE_1",
                    "start": None,
                    "end": "2026-12-05T08:05:00Z",
                    "seconds": 31.5,
                },
                {
                    "kind": "session",
                    "participant": "p-017",
                    "position": None,
                    "question_id": "",
                    "start": "2026-12-05T08:03:00Z",
                    "end": "2026-12-05T08:26:00Z",
                    "seconds": 1380.0,
                },
            ],
        },
        response_only=True,
    )
]

CHOICE_EXAMPLE = {
    "id": 2,
    "model_label": "model-a",
    "method": "admin",
    "runs": [],
    "n_final_items": None,
    "tied_with": [],
    "reason": "",
    "after_answers": False,
    "chosen_by": "admin",
    "chosen_at": "2026-12-05T08:00:00Z",
}

BEST_MODEL_GET = [
    OpenApiExample(
        "One page",
        value={"count": 1, "next": None, "previous": None, "results": [CHOICE_EXAMPLE]},
        response_only=True,
    )
]

BEST_MODEL_POST = [
    OpenApiExample("Named in advance", value={"model_label": "model-a"}, request_only=True),
    OpenApiExample("Fixed", value=CHOICE_EXAMPLE, response_only=True),
]

REPORT_EXAMPLE = {
    "id": 4,
    "status": "done",
    "seed": 20261012,
    "n_boot": 10000,
    "n_permutations": 10000,
    "error": "",
    "requested_by": "admin",
    "created_at": "2026-12-05T09:00:00Z",
    "finished_at": "2026-12-05T09:00:40Z",
    "results": {"n_items": 150, "n_annotators": 4, "mean_accuracy": {"estimate": 0.8}},
    "rows": [
        {
            "section": "humans",
            "statistic": "mean annotator accuracy",
            "estimate": 0.8,
            "ci_low": 0.76,
            "ci_high": 0.84,
        }
    ],
}

REPORT_GET = [OpenApiExample("Done", value=REPORT_EXAMPLE, response_only=True)]

REPORT_POST = [
    OpenApiExample(
        "App. J's settings",
        value={"seed": 20261012, "n_boot": 10000, "n_permutations": 10000},
        request_only=True,
    ),
    OpenApiExample(
        "Queued",
        value={**REPORT_EXAMPLE, "status": "pending", "results": None, "rows": []},
        response_only=True,
    ),
]
