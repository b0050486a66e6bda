"""The OpenAPI examples the endpoints' schemas show, kept apart so that the endpoint
modules read as code."""

from drf_spectacular.utils import OpenApiExample

QUEUE_EXAMPLE = {
    "count": 1,
    "next": None,
    "previous": None,
    "results": [
        {
            "id": 12,
            "question_id": "Q_CHAR_01_SCN_SCHOOL_AGE_1",
            "character": "CHAR_01",
            "scenario": "SCN_SCHOOL_AGE_1",
            "status": "flagged",
            "version": 1,
            "options": 4,
            "screening_outcome": "flagged",
            "concerns": ["R2"],
        }
    ],
}

ITEM_REVIEW_QUEUE_GET = [OpenApiExample("Queue", value=QUEUE_EXAMPLE, response_only=True)]

ITEM_EXAMPLE = {
    "id": 12,
    "question_id": "Q_CHAR_01_SCN_SCHOOL_AGE_1",
    "character": "CHAR_01",
    "scenario": "SCN_SCHOOL_AGE_1",
    "stage": "school_age",
    "status": "flagged",
    "version": 1,
    "correct_answer": "B",
    "options": [
        {
            "label": "A",
            "content": "I go to the park with Mom.",
            "is_correct": False,
            "is_generated": False,
            "source_character": "CHAR_04",
        }
    ],
    "screening": {
        "id": 3,
        "item_version": 1,
        "outcome": "flagged",
        "needs_human_review": True,
        "attempts": 1,
        "attempt_errors": [],
        "finished_at": "2026-01-05T10:00:00Z",
    },
    "checks": [{"rule_id": "R2", "status": "flag", "comment": "...", "label": "..."}],
    "issues": [],
    "assessments": {},
    "candidates": [],
    "versions": [],
    "decisions": [],
    "replacement_references": [{"id": 40, "character": "CHAR_05", "content": "..."}],
    "revisable": True,
}

ITEM_DETAIL_GET = [OpenApiExample("Item", value=ITEM_EXAMPLE, response_only=True)]

SCREEN_ITEM_POST = [
    OpenApiExample("Queued", value={"detail": "Screening queued."}, response_only=True)
]

REVIEW_ACTION_POST = [
    OpenApiExample(
        "Revise a distractor",
        value={
            "action": "revise_distractor",
            "version": 1,
            "label": "C",
            "content": "I water the plants early on Saturday, then join Mom.",
            "note": "R2: two distractors said the same",
        },
        request_only=True,
    ),
    OpenApiExample(
        "Retain",
        value={"action": "retain", "version": 2, "note": "The key holds."},
        request_only=True,
    ),
    OpenApiExample(
        "Decision",
        value={
            "id": 7,
            "item": 12,
            "action": "retain",
            "item_version": 2,
            "result_version": None,
            "reviewer": "senior-1",
            "note": "The key holds.",
            "decided_at": "2026-01-05T10:00:00Z",
        },
        response_only=True,
    ),
]

REVISE_DRAFT_GET = [
    OpenApiExample(
        "Draft",
        value={
            "label": "C",
            "content": "I water the plants first.",
            "note": "R2",
            "saved_at": "2026-01-05T10:00:00Z",
        },
        response_only=True,
    )
]

REVISE_DRAFT_PUT = [
    OpenApiExample(
        "Save",
        value={"label": "C", "content": "I water the plants first.", "note": "R2"},
        request_only=True,
    )
]

RUN_EXAMPLE = {
    "id": 2,
    "status": "done",
    "params": {"measure": "tfidf", "similarity_max": 0.8, "relevance_min": 0.05},
    "seed": 1234,
    "gate_override_reason": "",
    "total": 10,
    "processed": 10,
    "assembled": 9,
    "needs_completion": 1,
    "percent": 100,
    "error": "",
    "started_by": "admin",
    "created_at": "2026-01-05T10:00:00Z",
    "finished_at": "2026-01-05T10:01:00Z",
}

ASSEMBLY_RUN_DETAIL_GET = [
    OpenApiExample("Run", value=RUN_EXAMPLE | {"keys": {"A": 3, "B": 2, "C": 2, "D": 2}})
]

ASSEMBLY_RUN_LIST_GET = [
    OpenApiExample(
        "Runs",
        value={"count": 1, "next": None, "previous": None, "results": [RUN_EXAMPLE]},
        response_only=True,
    )
]

ASSEMBLY_RUN_LIST_POST = [
    OpenApiExample(
        "Start",
        value={"measure": "tfidf", "similarity_max": 0.8, "relevance_min": 0.05},
        request_only=True,
    ),
    OpenApiExample("Run", value=RUN_EXAMPLE, response_only=True),
]
