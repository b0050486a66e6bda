"""Fixtures of the drafting tests: a fake provider server answering drafting prompts,
the drafting model configured against it, an admin and the review roles."""

import threading

import pytest
from django.contrib.auth.models import Group

from core.roles import Role
from llm import ProviderConfig
from llm.testing.fake_server import DemoResponder, FakeProviderServer
from tests.factories import UserFactory


class DraftingResponder:
    """Answers with the demo profile the prompt asks for, unless ``replies`` holds
    scripted answers (served first, one per request) or ``always`` is set."""

    def __init__(self):
        self.demo = DemoResponder(seed=7)
        self.replies: list = []
        self.always = None
        self._lock = threading.Lock()

    def __call__(self, req):
        with self._lock:
            if self.always is not None:
                return self.always
            if self.replies:
                return self.replies.pop(0)
        return self.demo(req)


@pytest.fixture(autouse=True)
def role_groups(db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)


@pytest.fixture
def responder():
    return DraftingResponder()


@pytest.fixture
def fake_server(responder):
    with FakeProviderServer(responder=responder) as server:
        yield server


def provider_for(server, **options) -> ProviderConfig:
    return ProviderConfig(
        kind="openai",
        model="fake-drafter",
        base_url=server.base_url("openai"),
        timeout=2.0,
        max_retries=0,
        backoff_base=0.01,
        backoff_cap=0.02,
        **options,
    )


@pytest.fixture
def drafting_provider(settings, fake_server):
    settings.HEARTBENCH_DRAFTING_PROVIDER = provider_for(fake_server)
    return settings.HEARTBENCH_DRAFTING_PROVIDER


@pytest.fixture
def drafting_admin(db):
    return UserFactory(username="drafting-admin", roles=[Role.ADMIN])


@pytest.fixture
def annotators(db):
    return [UserFactory(username=f"rev-{i}", roles=[Role.PRIMARY_ANNOTATOR]) for i in (1, 2, 3)]


@pytest.fixture
def senior(db):
    return UserFactory(username="senior", roles=[Role.ARBITRATOR])


def user_texts(server) -> list[str]:
    """The user turns of every request the fake server received, in order."""
    return ["\n".join(t for role, t in req.turns() if role == "user") for req in server.requests]
