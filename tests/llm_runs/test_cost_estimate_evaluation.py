"""The cost estimate of an evaluation run before launch (issue #36): it is the arithmetic
of the prompts the run then sends (as the fake provider received them, real HTTP) and
the model's configured prices (HEARTBENCH_EVAL_<NAME>_PRICE_IN/_OUT), each call records
its cost at those prices, and a run's recorded cost falls within the estimate's margin."""

import json
import math
from decimal import Decimal

import pytest

from core.llm_runs.models import MILLION
from evaluation import estimate, services
from evaluation.estimate import ASSUMED_OUTPUT_TOKENS, evaluation_cost_estimate
from evaluation.models import EvaluationCall, EvaluationPrediction, Setting
from llm.testing.fake_server import FakeProviderServer
from llm.testing.replies import json_reply
from tests.evaluation.conftest import build_corpus, fake_env
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PRICE_IN, PRICE_OUT = Decimal("2.5"), Decimal("10")
ROW = "fake (openai, fake-eval)"


def answer(request):
    """A complete App. L.1 answer choosing A."""
    return json_reply(
        {
            "system_1_impulse": {
                "thought": "I promised the teacher.",
                "emotion": "duty",
                "citation": "Memory 2",
            },
            "system_2_rational": {
                "analysis": "Keeping my word matters more to me than one trip.",
                "plan": "Stay, water the plants, tell Mom kindly.",
            },
            "inner_consciousness": "I would feel awful letting the plants die.",
            "final_decision": "I stay home and water the plants.",
            "decision_choice": "A",
        }
    )


def priced_env(server, *, price_in=PRICE_IN, price_out=PRICE_OUT) -> dict:
    """The evaluation model ``fake`` on the fake server, with its prices."""
    return {
        **fake_env(server),
        "HEARTBENCH_EVAL_FAKE_PRICE_IN": str(price_in),
        "HEARTBENCH_EVAL_FAKE_PRICE_OUT": str(price_out),
    }


@pytest.fixture
def eval_server(monkeypatch):
    with FakeProviderServer(responder=answer) as server:
        for name, value in priced_env(server).items():
            monkeypatch.setenv(name, value)
        yield server


@pytest.fixture
def eager(settings):
    from heartbench_site.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


def run_all(capture, *, setting=Setting.NAIVE_RAG, budget_usd=None):
    """A run of every final item on ``fake``, executed in this process."""
    run = services.evaluation_run_create(
        created_by=UserFactory(), provider_key="fake", setting=setting, budget_usd=budget_usd
    )
    with capture(execute=True):
        services.evaluation_run_start(run_id=run.pk)
    run.refresh_from_db()
    return run


def sent_tokens_in(requests) -> list[int]:
    """Each received request's system prompt, user prompt and schema (compact JSON) in
    characters over four, rounded up: an independent count of what was sent."""
    counts = []
    for req in requests:
        user = "\n".join(text for role, text in req.turns() if role == "user")
        schema = json.dumps(req.schema(), separators=(",", ":")) if req.schema() else ""
        counts.append(math.ceil((len(req.system) + len(user) + len(schema)) / 4))
    return counts


@pytest.mark.usefixtures("eager")
def test_the_estimate_is_the_sent_prompts_characters_over_four_times_the_prices(
    eval_server, django_capture_on_commit_callbacks
):
    corpus = build_corpus()
    cost = evaluation_cost_estimate(setting=Setting.NAIVE_RAG, models=["fake"])

    run = run_all(django_capture_on_commit_callbacks)

    assert run.status == run.Status.FINISHED
    requests = eval_server.requests
    assert len(requests) == len(corpus["items"]) == 8
    tokens_in = sent_tokens_in(requests)
    # Every prompt carries its memory block (the Naive-RAG setting).
    assert all("## Retrieved autobiographical memories" in r.turns()[-1][1] for r in requests)
    expected = sum(
        (Decimal(t) * PRICE_IN + Decimal(ASSUMED_OUTPUT_TOKENS) * PRICE_OUT for t in tokens_in),
        Decimal(0),
    )
    expected /= MILLION
    assert [row.provider for row in cost.providers] == [ROW]
    assert cost.calls == 8 and cost.units == 8 and not cost.sampled
    assert cost.tokens_in == sum(tokens_in)
    assert cost.tokens_out == 8 * ASSUMED_OUTPUT_TOKENS
    assert cost.cost_usd == expected
    assert cost.providers[0].priced and cost.unpriced == []
    assert "assumed" in cost.output_basis["fake"]

    # Each call recorded its cost at the configured prices, from the tokens it reported.
    calls = list(EvaluationCall.objects.filter(prediction__run=run))
    assert len(calls) == 8
    for call in calls:
        assert call.tokens_in > 0 and call.tokens_out > 0
        expected_call = (call.tokens_in * PRICE_IN + call.tokens_out * PRICE_OUT) / MILLION
        assert call.cost_usd == expected_call.quantize(Decimal("0.000001"))
    units = EvaluationPrediction.objects.filter(run=run)
    assert sum(u.cost_usd for u in units) == sum(c.cost_usd for c in calls) > 0


@pytest.mark.usefixtures("eager")
def test_a_run_records_a_cost_within_the_estimates_margin(
    eval_server, django_capture_on_commit_callbacks
):
    build_corpus()
    run_all(django_capture_on_commit_callbacks)  # the model's answers are now known
    cost = evaluation_cost_estimate(setting=Setting.NAIVE_RAG, models=["fake"])
    assert "average of 8 earlier calls" in cost.output_basis["fake"]

    run = run_all(django_capture_on_commit_callbacks)

    recorded = sum(p.cost_usd for p in run.predictions.all())
    assert EvaluationCall.objects.filter(prediction__run=run).count() == cost.calls == 8
    assert recorded > 0
    assert cost.cost_low <= recorded <= cost.cost_high, (recorded, cost.cost_usd)


def test_a_large_item_set_is_estimated_from_an_even_sample_scaled_up(eval_server, monkeypatch):
    build_corpus(n_characters=4, n_scenarios=12)  # 48 final items
    sampled = evaluation_cost_estimate(setting=Setting.NO_RETRIEVAL, models=["fake"])
    monkeypatch.setattr(estimate, "SAMPLE_ITEMS", 100)
    every = evaluation_cost_estimate(setting=Setting.NO_RETRIEVAL, models=["fake"])

    assert (sampled.units, sampled.units_sampled, sampled.sampled) == (48, 40, True)
    assert (every.units, every.units_sampled, every.sampled) == (48, 48, False)
    assert sampled.calls == every.calls == 48
    assert abs(sampled.tokens_in - every.tokens_in) <= every.tokens_in * Decimal("0.02")


def test_a_model_without_prices_is_named_and_every_model_has_its_row(eval_server, monkeypatch):
    build_corpus()
    for name, value in fake_env(eval_server).items():
        monkeypatch.setenv(name.replace("_FAKE_", "_CHEAP_"), value)
    monkeypatch.setenv("HEARTBENCH_EVALUATION_MODELS", "FAKE,CHEAP")

    cost = evaluation_cost_estimate(setting=Setting.NO_RETRIEVAL)

    rows = {row.provider: row for row in cost.providers}
    cheap, demo = "cheap (openai, fake-eval)", "offline_demo (offline_demo, offline-demo)"
    assert list(rows) == [cheap, ROW, demo]
    assert cost.unpriced == [cheap, demo]
    assert rows[cheap].cost_usd == 0
    assert rows[ROW].cost_usd > 0 and rows[ROW].calls == 8
    # The same prompts for each model: the same input tokens.
    assert rows[cheap].tokens_in == rows[ROW].tokens_in
