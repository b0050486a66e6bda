"""Reasoning effort per provider kind (seed 000 App. I and F: "Reasoning/thinking effort is
high" for evaluation), read from the request bodies the fake provider server received
over HTTP: each API's own field."""

import pytest

from .conftest import fake_env, run_one

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]

ANSWER = {"decision_choice": "A", "final_decision": "I do A."}


@pytest.mark.parametrize(
    ("kind", "read"),
    [
        ("openai", lambda body: body["reasoning_effort"]),
        ("openai_compatible", lambda body: body["reasoning_effort"]),
        ("anthropic", lambda body: body["thinking"]),
        ("gemini", lambda body: body["generationConfig"]["thinkingConfig"]),
    ],
)
def test_an_evaluation_call_asks_each_provider_for_high_reasoning_effort(
    kind, read, admin_user, corpus, fake_server, monkeypatch, django_capture_on_commit_callbacks
):
    """Seed 000 App. I ("Reasoning/thinking effort is high ... following Appendix F"):
    OpenAI and compatible endpoints get reasoning_effort, Anthropic a thinking budget,
    Gemini a thinking level; the run records the effort it asked for."""
    for name, value in fake_env(fake_server, kind=kind).items():
        monkeypatch.setenv(name, value)
    fake_server.responder = lambda req: ANSWER
    run = run_one(admin_user, corpus["items"][0], django_capture_on_commit_callbacks)
    assert run.decoding["reasoning_effort"] == "high"
    assert run.predictions.get().choice == "A"
    (request,) = fake_server.requests
    expected = {
        "openai": "high",
        "openai_compatible": "high",
        "anthropic": {"type": "enabled", "budget_tokens": 16384},
        "gemini": {"thinkingLevel": "high"},
    }[kind]
    assert read(request.body) == expected
    if kind == "anthropic":
        # The answer keeps its own max_tokens beside the thinking budget, and the API
        # takes no temperature and no forced tool while thinking.
        assert request.body["max_tokens"] == 4096 + 16384
        assert "temperature" not in request.body
        assert request.body["tool_choice"] == {"type": "auto"}
    else:
        assert (
            read(request.body)
            and request.body.get(
                "temperature", request.body.get("generationConfig", {}).get("temperature")
            )
            == 0
        )


def test_a_run_launched_without_reasoning_effort_sends_none(
    admin_user, corpus, fake_model, django_capture_on_commit_callbacks
):
    """Seed 000 App. F: the endpoint's default where a setting is not supported; a run
    asked for no effort records that and sends no field."""
    fake_model.responder = lambda req: ANSWER
    run = run_one(
        admin_user,
        corpus["items"][0],
        django_capture_on_commit_callbacks,
        decoding={"reasoning_effort": None},
    )
    assert run.decoding["reasoning_effort"] is None
    (request,) = fake_model.requests
    assert "reasoning_effort" not in request.body
