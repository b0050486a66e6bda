"""A call record's ``details`` keep every per-try field, read straight from the result
(``call_details`` no longer copies the whole result to pick them)."""

import llm
from core.llm_runs.services import call_details
from llm.records import AttemptRecord


def _result() -> llm.CallResult:
    return llm.CallResult(
        provider="openai",
        model="m",
        prompt_hash="h",
        ok=True,
        parsed={"a": 1},
        raw_response='{"a": 1}',
        request={"messages": [{"role": "user", "content": "x" * 1000}]},
        endpoint="chat_completions",
        rounds=2,
        attempt_count=2,
        finish_reason="stop",
        started_at="2026-12-07T03:00:00+00:00",
        attempts=[
            AttemptRecord(
                round=1,
                try_number=1,
                status_code=429,
                error_kind="rate_limited",
                error_message="slow\x00down",
                retry_after_s=1.5,
            ),
            AttemptRecord(
                round=2,
                try_number=1,
                status_code=200,
                tokens_in=10,
                tokens_out=3,
                finish_reason="stop",
                raw_response='{"a": 1}',
            ),
        ],
    )


def test_details_hold_the_workflow_keys_then_every_try():
    details = call_details(_result(), {"memories": 4})
    assert details == {
        "memories": 4,
        "endpoint": "chat_completions",
        "rounds": 2,
        "finish_reason": "stop",
        "started_at": "2026-12-07T03:00:00+00:00",
        "demo": False,
        # Every field of every try, NUL replaced so PostgreSQL can store it.
        "attempts": [
            {
                **AttemptRecord(round=1, try_number=1).as_dict(),
                "status_code": 429,
                "error_kind": "rate_limited",
                "error_message": "slow\ufffddown",
                "retry_after_s": 1.5,
            },
            {
                **AttemptRecord(round=2, try_number=1).as_dict(),
                "status_code": 200,
                "tokens_in": 10,
                "tokens_out": 3,
                "finish_reason": "stop",
                "raw_response": '{"a": 1}',
            },
        ],
    }


def test_details_match_the_full_copy_of_the_result():
    # The same keys and values as taking them from ``as_dict`` (what stored rows hold).
    result = _result()
    full = result.as_dict()
    details = call_details(result)
    for key in ("endpoint", "rounds", "finish_reason", "started_at", "demo"):
        assert details[key] == full[key]
    assert details["attempts"][1] == full["attempts"][1]
    assert "request" not in details and "parsed" not in details
