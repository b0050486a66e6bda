"""An evaluation run through every provider kind, over real HTTP to the fake server's demo
answers: the L.1 answer schema travels as structured output (OpenAI and compatible
response_format json_schema, Anthropic a tool, Gemini responseJsonSchema), so
every answer is valid and graded on the JSON path."""

import pytest

from evaluation import prompt
from evaluation.models import EvaluationPrediction, Setting
from llm.testing.fake_server import DemoResponder, FakeProviderServer

from .conftest import fake_env
from .test_runs import run_items

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]


@pytest.fixture
def demo_server():
    with FakeProviderServer(responder=DemoResponder(seed=5)) as server:
        yield server


def use_model(monkeypatch, server, kind, **extra):
    for name, value in {**fake_env(server, kind=kind), **extra}.items():
        monkeypatch.setenv(name, value)


def sent_schema(req, kind):
    body = req.body
    if kind in ("openai", "openai_compatible"):
        assert body["response_format"]["type"] == "json_schema"
        return body["response_format"]["json_schema"]["schema"]
    if kind == "anthropic":
        # Evaluation thinks at high effort (App. I/F), and the Messages API refuses a
        # forced tool while thinking: the answer tool is offered, not forced.
        assert body["thinking"]["type"] == "enabled"
        assert body["tool_choice"] == {"type": "auto"}
        return body["tools"][0]["input_schema"]
    return body["generationConfig"]["responseJsonSchema"]


@pytest.mark.parametrize("kind", ["openai", "openai_compatible", "anthropic", "gemini"])
def test_every_provider_kind_gets_the_schema_and_every_answer_is_valid(
    kind, monkeypatch, demo_server, admin_user, corpus, django_capture_on_commit_callbacks
):
    use_model(monkeypatch, demo_server, kind)
    run = run_items(
        admin_user, Setting.DISCLOSED_PROFILE, capture=django_capture_on_commit_callbacks
    )
    assert run.status == "finished"
    predictions = list(run.predictions.all())
    assert len(predictions) == len(corpus["items"])
    for prediction in predictions:
        assert prediction.status == EvaluationPrediction.Status.ANSWERED, prediction.error_message
        assert prediction.parse_path == EvaluationPrediction.ParsePath.JSON
        assert prediction.choice in "ABCD"
    for req in demo_server.requests:
        assert sent_schema(req, kind) == prompt.RESPONSE_SCHEMA
        # The L.1 system prompt goes out as written: no schema paragraph appended.
        assert req.system == prompt.SYSTEM_PROMPT


def test_a_server_configured_for_json_object_keeps_its_choice(
    monkeypatch, demo_server, admin_user, corpus, django_capture_on_commit_callbacks
):
    use_model(
        monkeypatch,
        demo_server,
        "openai_compatible",
        HEARTBENCH_EVAL_FAKE_RESPONSE_FORMAT="json_object",
    )
    run_items(
        admin_user,
        Setting.NO_RETRIEVAL,
        corpus["items"][:1],
        capture=django_capture_on_commit_callbacks,
    )
    (req,) = demo_server.requests
    assert req.body["response_format"] == {"type": "json_object"}
