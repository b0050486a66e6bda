"""The OpenAPI examples the endpoints' schemas show, kept apart so that the endpoint
modules read as code."""

from drf_spectacular.utils import OpenApiExample

SCORES_EXAMPLE = dict(
    duty=5, intellect=3, adversity=6, mating=1, positivity=2, negativity=6, deception=2, sociality=5
)
CONTENT_EXAMPLE = {
    "stage": "school_age",
    "age": 9,
    "age_range": "6-11",
    "diamonds_dimension": "Negativity",
    "name": "The lost notebook",
    "category": "peer conflict",
    "intensity": "moderate",
    "description_for_agent": "A classmate reads your notebook aloud.",
    "setting_location": "The classroom before the bell.",
    "setting_time": "Monday morning",
    "setting_atmosphere": "Noisy, expectant.",
    "context_text": "You left your notebook on the desk ...",
    "trigger_sender": "Classmate",
    "trigger_message": "Listen to what's written here!",
    "action_required": "Decide what you say.",
    "note": "Entered from the workshop notes.",
}

SCENARIO_QUEUE_GET = [
    OpenApiExample(
        "A page of the queue",
        response_only=True,
        value={
            "count": 1,
            "next": None,
            "previous": None,
            "results": [
                {
                    "scenario_id": "SCN_SCHOOL_AGE_1",
                    "stage": "school_age",
                    "review_stage": "rating",
                    "your_status": "Pass 2: rate it",
                    "needs_you": True,
                }
            ],
        },
    )
]

SCENARIO_CREATE_POST = [OpenApiExample("A scenario", value=CONTENT_EXAMPLE, request_only=True)]

SCENARIO_SCREEN_POST = [
    OpenApiExample(
        "Approve",
        value={
            "decision": "approve",
            "logically_consistent": True,
            "psychologically_plausible": True,
            "character_agnostic": True,
            "note": "",
        },
        request_only=True,
    )
]

SCENARIO_REVISE_POST = [
    OpenApiExample(
        "A revision",
        value={
            "context_text": "You left your notebook on the desk before recess.",
            "note": "Removes the age anchor the flag names.",
        },
        request_only=True,
    )
]

SCENARIO_RATING_POST = [
    OpenApiExample("Ratings", value={"scores": SCORES_EXAMPLE, "note": ""}, request_only=True)
]

SCENARIO_REASSESS_POST = [
    OpenApiExample(
        "A proposal",
        value={"agreed": {"adversity": 5, "deception": 3}, "note": "Small loss."},
        request_only=True,
    )
]

SCENARIO_REASSESS_CONFIRM_POST = [
    OpenApiExample(
        "Confirm",
        value={"proposal": 3, "agreed": {"adversity": 5, "deception": 3}},
        request_only=True,
    )
]

SCENARIO_COVERAGE_GET = [
    OpenApiExample(
        "Coverage",
        response_only=True,
        value={
            "n_final": 0,
            "distribution": {"duty": [0, 0, 0, 0, 0, 0, 0]},
            "life_stages": {"school_age": 1},
            "agreement": [],
        },
    )
]

BLUEPRINT_EXAMPLE = {
    "title": "The lost notebook",
    "summary": "A classmate finds your notebook and reads it aloud.",
    "stage": "school_age",
    "diamonds_dimension": "Negativity",
}

BLUEPRINT_LIST_GET = [
    OpenApiExample(
        "A page of blueprints",
        response_only=True,
        value={
            "count": 1,
            "next": None,
            "previous": None,
            "results": [
                {
                    "id": 1,
                    **BLUEPRINT_EXAMPLE,
                    "status": "done",
                    "error": "",
                    "scenario_id": "SCN_SCHOOL_AGE_2",
                }
            ],
        },
    )
]

BLUEPRINT_LIST_POST = [OpenApiExample("A blueprint", value=BLUEPRINT_EXAMPLE, request_only=True)]
