"""The OpenAPI examples the endpoints' schemas show, kept apart so that the endpoint
modules read as code."""

from drf_spectacular.utils import OpenApiExample

PROFILE_QUEUE_GET = [
    OpenApiExample(
        "A page of the queue",
        response_only=True,
        value={
            "count": 1,
            "next": None,
            "previous": None,
            "results": [
                {
                    "character": "CHAR_01",
                    "latest_version": 1,
                    "state": "reviewing",
                    "your_review": "draft",
                }
            ],
        },
    )
]

REVIEW_EXAMPLE = {
    "recommendation": "local_revision",
    "criteria": {
        "trait_alignment": "meets",
        "internal_coherence": "meets",
        "occupational_plausibility": "meets",
        "behavioral_specificity": "concern",
        "interpretive_restraint": "meets",
    },
    "explanation": "One pattern is too categorical.",
    "unresolved_concern": "",
    "missing_information": "",
    "submit": True,
}

PROFILE_REVIEW_DETAIL_POST = [
    OpenApiExample("Submit a review", value=REVIEW_EXAMPLE, request_only=True)
]

CHANGE_REQUEST_EXAMPLE = {
    "field": "description",
    "passage": "reads every situation",
    "concern": "Too categorical.",
    "suggested_correction": "Say 'tends to read'.",
}

CHANGE_REQUEST_CREATE_POST = [
    OpenApiExample("A change request", value=CHANGE_REQUEST_EXAMPLE, request_only=True)
]

CHANGE_REQUEST_RESOLVE_POST = [
    OpenApiExample(
        "Reject with a reason",
        value={"status": "rejected", "reason": "The pattern is observable as it is."},
        request_only=True,
    ),
    OpenApiExample(
        "The resolved request",
        response_only=True,
        value={
            "id": 7,
            "field": "description",
            "status": "rejected",
            "resolution_reason": "The pattern is observable as it is.",
            "resolved_by": "senior",
            "resolved_in_version": 1,
        },
    ),
]

PROFILE_OUTCOMES_GET = [
    OpenApiExample(
        "Outcomes",
        response_only=True,
        value={
            "total": 1,
            "rows": [
                {
                    "key": "accepted",
                    "label": "Accepted as-is by all reviewers",
                    "count": 1,
                    "percent": 100.0,
                    "characters": ["CHAR_01"],
                }
            ],
        },
    )
]

PROFILE_EDIT_POST = [
    OpenApiExample(
        "Soften one pattern",
        value={
            "description": "She tends to read situations carefully.",
            "note": "CR 7 accepted.",
        },
        request_only=True,
    )
]

PROFILE_FREEZE_POST = [
    OpenApiExample(
        "Freeze",
        value={"suitability_confirmed": True, "note": "Fit for memory generation."},
        request_only=True,
    ),
    OpenApiExample(
        "The frozen version",
        response_only=True,
        value={
            "character": "CHAR_01",
            "version": 2,
            "frozen_at": "2026-01-01T10:00:00Z",
            "frozen_by": "senior",
            "suitability_note": "Fit for memory generation.",
        },
    ),
]
