"""The OpenAPI examples the endpoints' schemas show, kept apart so that the endpoint
modules read as code."""

from drf_spectacular.utils import OpenApiExample

AUDIT_EXAMPLE = {
    "id": 3,
    "note": "spring audit",
    "status": "selecting",
    "items": 176,
    "created_at": "2026-01-05T10:00:00Z",
}

LABEL_AUDIT_LIST_GET = [
    OpenApiExample(
        "Audits",
        value={"count": 1, "next": None, "previous": None, "results": [AUDIT_EXAMPLE]},
        response_only=True,
    )
]

DETAIL_EXAMPLE = {
    "id": 3,
    "note": "spring audit",
    "status": "selecting",
    "seed": 31,
    "items_per_stratum": 2,
    "adjudicator": "audit-adjudicator",
    "created_at": "2026-01-05T10:00:00Z",
    "completed_at": None,
    "counts": {"selecting": 170, "approved": 4, "adjudicating": 2, "resolved": 0},
    "total": 176,
    "experts": [{"position": 1, "username": "auditor-1", "submitted": 6}],
    "strata": [
        {
            "character": "CHAR_01",
            "stage": "school_age",
            "stage_label": "School age",
            "available": 9,
            "drawn": 2,
        }
    ],
    "reproduced": True,
}

LABEL_AUDIT_DETAIL_GET = [OpenApiExample("Audit", value=DETAIL_EXAMPLE, response_only=True)]

ITEM_ROW_EXAMPLE = {
    "id": 51,
    "position": 1,
    "question_id": "Q_CHAR_01_SCN_SCHOOL_AGE_1",
    "character": "CHAR_01",
    "stage": "school_age",
    "version_audited": 2,
    "status": "resolved",
    "key_at_audit": "B",
    "experts_on_key": 2,
    "outcome": "usable_as_is",
    "decision": "usable_as_is",
}

LABEL_AUDIT_ITEMS_GET = [
    OpenApiExample(
        "Items",
        value={"count": 1, "next": None, "previous": None, "results": [ITEM_ROW_EXAMPLE]},
        response_only=True,
    )
]

LABEL_AUDIT_LIST_CREATE_POST = [
    OpenApiExample(
        "Create",
        value={
            "experts": [11, 12, 13],
            "adjudicator": 14,
            "items_per_stratum": 2,
            "seed": 31,
            "note": "spring audit",
        },
        request_only=True,
    ),
    OpenApiExample("Audit", value=DETAIL_EXAMPLE, response_only=True),
]

LABEL_OUTCOMES_GET = [
    OpenApiExample(
        "Outcomes",
        value={
            "rows": [{"key": "sampled", "label": "Items in the sample", "n": 1, "percent": 100}],
            "fleiss_kappa": None,
            "kappa_ci": None,
            "kappa_items": 1,
            "n_boot": 0,
        },
        response_only=True,
    )
]

EXPERT_ITEM_EXAMPLE = {
    "id": 51,
    "position": 1,
    "question_id": "Q_CHAR_01_SCN_SCHOOL_AGE_1",
    "character": "CHAR_01",
    "scenario": "SCN_SCHOOL_AGE_1",
    "options": [{"label": "A", "content": "I go to the park with Mom."}],
    "my_choice": "A",
    "my_note": "",
    "submitted": False,
    "draft_saved_at": "2026-01-05T10:00:00Z",
    "next_item": 52,
}

EXPERT_QUEUE_GET = [
    OpenApiExample(
        "Queue",
        value={
            "count": 1,
            "next": None,
            "previous": None,
            "results": [
                {
                    "id": 51,
                    "position": 1,
                    "question_id": "Q_CHAR_01_SCN_SCHOOL_AGE_1",
                    "character": "CHAR_01",
                    "stage": "School age",
                    "state": "todo",
                }
            ],
        },
        response_only=True,
    )
]

EXPERT_ITEM_GET = [OpenApiExample("Item", value=EXPERT_ITEM_EXAMPLE, response_only=True)]

EXPERT_DRAFT_PUT = [
    OpenApiExample("Draft", value={"choice": "A", "note": "Fits"}, request_only=True),
    OpenApiExample("Item", value=EXPERT_ITEM_EXAMPLE, response_only=True),
]

EXPERT_SELECTION_POST = [
    OpenApiExample("Submit", value={"choice": "B", "note": "Fits the profile."}, request_only=True),
    OpenApiExample(
        "Item",
        value=EXPERT_ITEM_EXAMPLE | {"my_choice": "B", "submitted": True},
        response_only=True,
    ),
]

ADJUDICATION_EXAMPLE = {
    "id": 51,
    "audit": 3,
    "position": 1,
    "question_id": "Q_CHAR_01_SCN_SCHOOL_AGE_1",
    "character": "CHAR_01",
    "stage": "school_age",
    "status": "resolved",
    "outcome": "usable_as_is",
    "version_audited": 2,
    "current_version": 2,
    "key_at_audit": "B",
    "experts_on_key": 2,
    "options": [{"label": "B", "content": "...", "is_key": True, "chosen_by": [1, 3]}],
    "selections": [
        {"position": 1, "username": "auditor-1", "choice": "B", "note": "", "on_key": True}
    ],
    "adjudication": {
        "id": 4,
        "decision": "usable_as_is",
        "note": "The dissent does not hold.",
        "new_key": "",
        "adjudicator": "audit-adjudicator",
        "result_version": None,
        "decided_at": "2026-01-05T10:00:00Z",
    },
}

ADJUDICATION_GET = [OpenApiExample("Item", value=ADJUDICATION_EXAMPLE, response_only=True)]

ADJUDICATION_POST = [
    OpenApiExample(
        "Keep",
        value={"decision": "usable_as_is", "note": "The dissent does not hold."},
        request_only=True,
    ),
    OpenApiExample(
        "Key change",
        value={"decision": "key_change", "new_key": "C", "note": "C fits better."},
        request_only=True,
    ),
    OpenApiExample("Decided", value=ADJUDICATION_EXAMPLE, response_only=True),
]
