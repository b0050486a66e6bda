"""The OpenAPI examples the endpoints' schemas show, kept apart so that the endpoint
modules read as code."""

from drf_spectacular.utils import OpenApiExample

RUN_EXAMPLE = {
    "id": 3,
    "status": "finished",
    "settings_version": 1,
    "note": "",
    "character_keys": [],
    "memory_total": 40,
    "memory_done": 40,
    "percent": 100,
    "created_at": "2026-01-01T10:00:00Z",
    "finished_at": "2026-01-01T10:02:00Z",
    "finalized_at": None,
    "budget_usd": "25.00",
    "stop_reason": "",
}

AUDIT_RUN_LIST_GET = [
    OpenApiExample(
        "A page of runs",
        response_only=True,
        value={"count": 1, "next": None, "previous": None, "results": [RUN_EXAMPLE]},
    )
]

AUDIT_RUN_LIST_POST = [
    OpenApiExample("Start a run", value={"characters": ["CHAR_01"], "note": ""}, request_only=True)
]

RUN_CLASSIFY_POST = [OpenApiExample("Criterion 6", value={"criterion": 6}, request_only=True)]

CASE_QUEUE_GET = [
    OpenApiExample(
        "A page of cases",
        response_only=True,
        value={
            "count": 1,
            "next": None,
            "previous": None,
            "results": [
                {
                    "id": 12,
                    "memory_id": "CHAR_01_M004",
                    "character": "CHAR_01",
                    "status": "review",
                    "run": 3,
                    "repair_attempts": 3,
                    "current_flags": [
                        {"criterion": 5, "field": "content_full", "detail": "Too long."}
                    ],
                }
            ],
        },
    )
]

CASE_DECIDE_POST = [
    OpenApiExample(
        "A false positive",
        value={
            "decision": "false_positive",
            "reason": "Within the guided range for this age.",
        },
        request_only=True,
    )
]

CASE_EDIT_POST = [
    OpenApiExample(
        "An edit",
        value={
            "context": "A rainy afternoon in the school library.",
            "content_summary": "I waited alone after school and worried.",
            "content_full": "The rain drummed on the windows ...",
            "note": "Removed the adult hindsight.",
        },
        request_only=True,
    )
]

SETTINGS_POST = [
    OpenApiExample(
        "Raise the repair attempts",
        value={"max_repair_attempts": 4, "note": "One more attempt per defect."},
        request_only=True,
    )
]
