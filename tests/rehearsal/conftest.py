"""The rehearsal's world: accounts, the fake provider server on loopback configured for
every stage that calls a model, and a real Celery worker with the same configuration."""

import json
import threading

import pytest
from django.contrib.auth.models import Group

from core.roles import Role
from llm.demo.answers import prompt_kind
from llm.testing.fake_server import DemoResponder, FakeProviderServer
from llm.testing.replies import Reply
from tests.factories import DEFAULT_PASSWORD, UserFactory

PASSWORD = DEFAULT_PASSWORD

FAMILY_KINDS = {"claude": "anthropic", "gpt": "openai", "gemini": "gemini"}
# who does what (App. B.3, B.6, C.1-2, D.2, D.5, App. J)
PEOPLE = {
    "admin": [Role.ADMIN],
    "expert-1": [Role.PRIMARY_ANNOTATOR],
    "expert-2": [Role.PRIMARY_ANNOTATOR],
    "expert-3": [Role.PRIMARY_ANNOTATOR],
    "senior": [Role.ARBITRATOR],
    "memrev-1": [Role.MEMORY_REVIEWER],
    "memrev-2": [Role.MEMORY_REVIEWER],
    "memrev-3": [Role.MEMORY_REVIEWER],
    "screener-1": [Role.SCENARIO_REVIEWER],
    "screener-2": [Role.SCENARIO_REVIEWER],
    "auditor-1": [Role.AUDIT_EXPERT],
    "auditor-2": [Role.AUDIT_EXPERT],
    "auditor-3": [Role.AUDIT_EXPERT],
    "audit-adjudicator": [Role.AUDIT_ADJUDICATOR],
    "student-1": [Role.BASELINE_PARTICIPANT],
}


def provider_env(server) -> dict[str, str]:
    """Every model the pipeline calls, on the fake server: character drafting, memory
    generation, the three generation families, the MCQ distractor selector and
    screener, the audit's repair and classifier, and one evaluation model."""
    env = {}
    for family, kind in FAMILY_KINDS.items():
        prefix = f"HEARTBENCH_{family.upper()}"
        env |= {
            f"{prefix}_KIND": kind,
            f"{prefix}_BASE_URL": server.base_url(kind),
            f"{prefix}_API_KEY": "rehearsal-key",
            f"{prefix}_MODEL": f"fake-{family}-response",
            f"{prefix}_ACTIVATION_MODEL": f"fake-{family}-activation",
            f"{prefix}_TIMEOUT": "20",
            f"{prefix}_MAX_RETRIES": "2",
            f"{prefix}_BACKOFF_BASE": "0.01",
            f"{prefix}_BACKOFF_CAP": "0.05",
        }
    for prefix, kind in (
        ("HEARTBENCH_MCQ_SELECTOR", "openai"),
        ("HEARTBENCH_MCQ_SCREENER", "anthropic"),
        ("HEARTBENCH_AUDIT_REPAIR", "openai"),
        ("HEARTBENCH_AUDIT_CLASSIFIER", "gemini"),
        ("HEARTBENCH_EVAL_FAKE", "openai"),
        ("HEARTBENCH_DRAFTING", "anthropic"),
        ("HEARTBENCH_MEMORY", "gemini"),
    ):
        env |= {
            f"{prefix}_KIND": kind,
            f"{prefix}_BASE_URL": server.base_url(kind),
            f"{prefix}_API_KEY": "rehearsal-key",
            f"{prefix}_MODEL": f"fake-{prefix.rsplit('_', 1)[-1].lower()}",
            f"{prefix}_TIMEOUT": "20",
            f"{prefix}_MAX_RETRIES": "2",
            f"{prefix}_BACKOFF_BASE": "0.01",
            f"{prefix}_BACKOFF_CAP": "0.05",
        }
    env["HEARTBENCH_EVALUATION_MODELS"] = "FAKE"
    return env


# The one candidate whose model gives itself away (issue 22): the first answer of this
# model for this character carries a planted identity leak in its final decision.
LEAKY_MODEL, LEAKY_CHARACTER = "fake-gpt-response", "CHAR_02"
PLANTED_LEAK = " As an AI model by OpenAI, I cannot feel this myself."


class RepairsThatChangeNothing:
    """The fake server's own answers, except that the repair model hands back the
    memories in ``held`` unchanged (a repair that fixes nothing), so the audit escalates
    them to a person, as it does when repair fails; and one candidate response carries
    a planted identity leak (``PLANTED_LEAK``), which the screening must catch."""

    def __init__(self, answers):
        self.answers = answers
        self.held: dict[str, dict] = {}
        self.planted: list[str] = []  # the scenario id of the leaky candidate
        self._lock = threading.Lock()

    def __call__(self, req):
        schema = req.schema() or {}
        if prompt_kind(schema) == "memory_repair":
            props = schema["properties"]
            user = "\n".join(text for role, text in req.turns() if role == "user")
            for memory_id, fields in self.held.items():
                if f'"{memory_id}"' in user:
                    return Reply(value={k: fields[k] for k in props})
        reply = self.answers(req)
        if prompt_kind(schema) == "candidate_response" and req.model == LEAKY_MODEL:
            value = reply.value
            with self._lock:
                if value.get("character_id") == LEAKY_CHARACTER and not self.planted:
                    self.planted.append(value.get("scenario_id", ""))
                    value = {**value, "final_decision": value["final_decision"] + PLANTED_LEAK}
            return Reply(value=value)
        return reply


@pytest.fixture
def fake_provider():
    # the server's own answers (the `python -m llm.testing.fake_server` default), no script
    with FakeProviderServer(
        responder=RepairsThatChangeNothing(DemoResponder(seed=18, flag_share=0.2))
    ) as server:
        yield server


@pytest.fixture
def pipeline_env(fake_provider, monkeypatch, settings):
    """The same provider configuration in this process (the live server's views) and
    for the worker process."""
    from heartbench_site.settings.base import _generation_families

    env = provider_env(fake_provider)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings.HEARTBENCH_GENERATION_FAMILIES = _generation_families(env)
    yield env
    from core.providers import clear_client_cache

    clear_client_cache()


@pytest.fixture
def people(transactional_db):
    """The lab's accounts (made by the site's administrator before the project starts)."""
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    for username, roles in PEOPLE.items():
        UserFactory(username=username, roles=roles)
    return PEOPLE


def dumps(value) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()
