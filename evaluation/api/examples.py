"""The OpenAPI examples the endpoints' schemas show, kept apart so that the endpoint
modules read as code."""

from drf_spectacular.utils import OpenApiExample

RUN_EXAMPLE = {
    "id": 12,
    "label": "gpt-5.4",
    "setting": "naive_rag",
    "origin": "platform",
    "status": "running",
    "item_set": "all final items",
    "provider_key": "gpt",
    "retrieval_method": "bm25",
    "k": 30,
    "decoding": {"temperature": 0.0, "max_tokens": 4096, "max_attempts": 3},
    "note": "",
    "source_file": "",
    "created_by": "admin",
    "total": 673,
    "done": 240,
    "answered": 236,
    "invalid": 3,
    "leak_blocked": 0,
    "failed": 1,
    "percent": 36,
    "cost_usd": "0.412300",
    "budget_usd": "5.00",
    "stop_reason": "",
    "created_at": "2026-03-02T09:00:00Z",
    "started_at": "2026-03-02T09:00:01Z",
    "finished_at": None,
}

EVALUATION_RUN_DETAIL_GET = [OpenApiExample("A running run", value=RUN_EXAMPLE, response_only=True)]

EVALUATION_RUN_LIST_POST = [
    OpenApiExample(
        "Naive-RAG on the final set",
        value={"provider": "gpt", "setting": "naive_rag", "label": "gpt-5.4"},
        request_only=True,
    ),
    OpenApiExample(
        "Two items, no retrieval",
        value={
            "provider": "gpt",
            "setting": "no_retrieval",
            "item_set": "ids",
            "question_ids": ["SCN_SCHOOL_AGE_1__CHAR_01", "SCN_SCHOOL_AGE_1__CHAR_02"],
            "item_set_name": "pilot 2",
        },
        request_only=True,
    ),
    OpenApiExample(
        "With a budget",
        value={"provider": "gpt", "setting": "no_retrieval", "budget_usd": "5.00"},
        request_only=True,
    ),
    OpenApiExample(
        "The launched run",
        value=RUN_EXAMPLE | {"status": "running", "done": 0, "percent": 0},
        response_only=True,
        status_codes=["201"],
    ),
    OpenApiExample(
        "A field refused",
        value={
            "detail": ["List the question ids, or choose all final items."],
            "fields": {"question_ids": ["List the question ids, or choose all final items."]},
        },
        response_only=True,
        status_codes=["400"],
    ),
]

STOPPED_RUN = RUN_EXAMPLE | {
    "status": "stopped_at_budget",
    "cost_usd": "5.003100",
    "stop_reason": "Stopped at its budget of $5.00: its calls have cost $5.00. Resume it "
    "with a higher budget, or none, to finish it.",
}

EVALUATION_RUN_RESUME_POST = [
    OpenApiExample(
        "A cancelled run or failed calls (no body)",
        value={},
        request_only=True,
    ),
    OpenApiExample(
        "A run stopped at budget, with a higher budget",
        value={"budget_usd": "12.00"},
        request_only=True,
    ),
    OpenApiExample(
        "A run stopped at budget, with no budget",
        value={"budget_usd": None},
        request_only=True,
    ),
    OpenApiExample(
        "A run stopped at budget goes on",
        value={"queued": 433, "run": STOPPED_RUN | {"status": "running", "budget_usd": "12.00"}},
        response_only=True,
        status_codes=["200"],
    ),
    OpenApiExample(
        "A budget already spent",
        value={
            "detail": [
                "Run 12 would stop again at once. Stopped at its budget of $5.00: its calls "
                "have cost $5.00. Resume it with a higher budget, or none, to finish it."
            ]
        },
        response_only=True,
        status_codes=["400"],
    ),
    OpenApiExample(
        "Two failed calls queued again",
        value={"queued": 2, "run": RUN_EXAMPLE},
        response_only=True,
        status_codes=["200"],
    ),
    OpenApiExample(
        "Nothing to resume",
        value={"detail": ["Run 12 has a stored response for every item."]},
        response_only=True,
        status_codes=["400"],
    ),
]

EVALUATION_RUN_RETRY_POST = [
    OpenApiExample(
        "One failed call queued again",
        value={"queued": 1, "run": RUN_EXAMPLE},
        response_only=True,
        status_codes=["200"],
    ),
    OpenApiExample(
        "Nothing to retry",
        value={"detail": ["Run 12 has no failed items to retry."]},
        response_only=True,
        status_codes=["400"],
    ),
]

EVALUATION_RUN_CANCEL_POST = [
    OpenApiExample(
        "A running run stops",
        value=RUN_EXAMPLE | {"status": "cancelling"},
        response_only=True,
        status_codes=["200"],
    ),
    OpenApiExample(
        "A finished run",
        value={"detail": ["Run 12 is finished; only a pending or running run can be cancelled."]},
        response_only=True,
        status_codes=["400"],
    ),
]

PREDICTION_EXAMPLE = {
    "id": 3021,
    "question_id": "SCN_SCHOOL_AGE_1__CHAR_01",
    "status": "answered",
    "choice": "B",
    "correct": True,
    "parse_path": "json",
    "leak_reasons": [],
    "error_kind": "",
    "attempts": 1,
    "tokens_in": 5120,
    "tokens_out": 210,
    "latency_s": 2.4,
    "updated_at": "2026-03-02T09:03:10Z",
}

EVALUATION_PREDICTION_LIST_GET = [
    OpenApiExample(
        "A page of predictions",
        value={"count": 1, "next": None, "previous": None, "results": [PREDICTION_EXAMPLE]},
        response_only=True,
        status_codes=["200"],
    )
]

EVALUATION_PREDICTION_DETAIL_GET = [
    OpenApiExample(
        "An answered item",
        value=PREDICTION_EXAMPLE
        | {
            "user_prompt": "## Character\n...\n## Decision options\nA. ...",
            "raw_response": '{"decision_choice": "B", "rationale": "..."}',
            "parsed": {"decision_choice": "B", "rationale": "..."},
            "error_message": "",
            "prompt_hash": "3f2a...",
        },
        response_only=True,
    )
]

PREDICTION_IMPORT_POST = [
    OpenApiExample(
        "A CSV of letters",
        value={"file": "(predictions.csv)", "label": "qwen-3", "setting": "naive_rag"},
        request_only=True,
    ),
    OpenApiExample(
        "The imported run",
        value=RUN_EXAMPLE
        | {"origin": "imported", "status": "imported", "source_file": "predictions.csv"},
        response_only=True,
        status_codes=["201"],
    ),
    OpenApiExample(
        "A row refused",
        value={
            "detail": ["Line 3: decision_choice 'E' is not A, B, C, D or blank."],
            "fields": {"file": ["Line 3: decision_choice 'E' is not A, B, C, D or blank."]},
        },
        response_only=True,
        status_codes=["400"],
    ),
]

RUN_LIST = [
    OpenApiExample(
        "A page of runs",
        value={"count": 1, "next": None, "previous": None, "results": [RUN_EXAMPLE]},
        response_only=True,
        status_codes=["200"],
    )
]
