"""The OpenAPI examples the endpoints' schemas show, kept apart so that the endpoint
modules read as code."""

from drf_spectacular.utils import OpenApiExample

PAIR_ROW_EXAMPLE = {
    "id": 12,
    "character": "CHAR_07",
    "scenario": "S_0042",
    "round": 1,
    "status": "escalated",
    "escalation_reasons": ["no majority candidate"],
    "routed_at": "2026-12-05T09:30:00Z",
}

ARBITRATION_PAIR_LIST_GET = [
    OpenApiExample(
        "The queue",
        value={"count": 1, "next": None, "previous": None, "results": [PAIR_ROW_EXAMPLE]},
        response_only=True,
    )
]

ARBITRATION_PAIR_GET = [
    OpenApiExample(
        "An escalated pair",
        value={
            **PAIR_ROW_EXAMPLE,
            "flagged": False,
            "occupation": "Primary-school teacher",
            "description": "Careful, loyal, slow to ask for help.",
            "self_value_logic": "I am worth something when I keep my word.",
            "core_patterns": ["Keeps promises at a cost to herself"],
            "scenario_description": "Your teacher trusted you with the class plants.",
            "trigger_sender": "Best friend",
            "trigger_message": "Come to the lake with us this weekend!",
            "candidates": [
                {
                    "number": 1,
                    "family": "",
                    "summary": "I remember the cold library and feel torn.",
                    "emotional_tone": "torn",
                    "core_reasoning": "",
                    "final_decision": "I stay behind and water the plants.",
                    "memories": [{"memory_id": "M_07_003", "content_summary": "..."}],
                    "chosen_by": ["ana", "ben"],
                }
            ],
            "judgments": [],
            "decision": None,
            "history": [],
            "reference": None,
            "can_decide": True,
        },
        response_only=True,
    )
]

DECISION_EXAMPLE = {
    "id": 31,
    "kind": "edited",
    "arbitrator": "sam",
    "candidate": 2,
    "reason": "",
    "decided_at": "2026-12-05T10:02:00Z",
    "reopened_at": None,
    "reopened_by": None,
    "reopen_reason": "",
    "pair": 12,
    "pair_status": "resolved",
    "reference": {
        "id": 40,
        "decision_type": "edited",
        "provenance": "Edited by sam",
        "summary": "I remember the cold library and feel torn.",
        "emotional_tone": "torn",
        "core_reasoning": "",
        "final_decision": "I water the plants, then call Mina.",
        "word_edit_rate": 0.08,
        "keyed_word_edit_rate": 0.2,
        "source_family": "",
    },
    "warnings": [],
}

ARBITRATION_DECISION_POST = [
    OpenApiExample(
        "Edit candidate 2",
        value={
            "kind": "edited",
            "candidate": 2,
            "summary": "I remember the cold library and feel torn.",
            "emotional_tone": "torn",
            "core_reasoning": "",
            "final_decision": "I water the plants, then call Mina.",
            "guidance_followed": [101],
        },
        request_only=True,
    ),
    OpenApiExample("The decision", value=DECISION_EXAMPLE, response_only=True),
]

ARBITRATION_REOPEN_POST = [
    OpenApiExample(
        "Reopen",
        value={"reason": "The edit drops the scenario's deadline."},
        request_only=True,
    ),
    OpenApiExample(
        "The reopened decision",
        value=DECISION_EXAMPLE
        | {
            "reopened_at": "2026-12-05T11:00:00Z",
            "reopened_by": "admin",
            "reopen_reason": "The edit drops the scenario's deadline.",
            "pair_status": "escalated",
        },
        response_only=True,
    ),
]
