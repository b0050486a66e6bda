"""Fixtures of the fact-preservation tests: as the memory audit's (role groups, people,
the fake provider server on loopback as the repair model, eager Celery), the
fact check switched on, and a repair model that answers the fact check's calls with the
deterministic responder (``llm.testing.fact_check``) and each rewrite from a script."""

import pytest
from django.contrib.auth.models import Group

from core.roles import Role
from llm import ProviderConfig
from llm.testing.fact_check import FactCheckResponder
from llm.testing.fake_server import FakeProviderServer
from tests.factories import UserFactory

#: USD per million tokens of the repair model, in and out (what the fact check pays too).
REPAIR_PRICES = ("3", "15")


class Rewrites:
    """The repair model's rewrites in order, one per repair call; every prompt kept."""

    def __init__(self, *rewrites: dict) -> None:
        self.rewrites = list(rewrites)
        self.prompts: list[str] = []

    def __call__(self, req):
        self.prompts.append("\n".join(text for role, text in req.turns() if role == "user"))
        if not self.rewrites:
            raise LookupError("no rewrite scripted for this repair call")
        return self.rewrites.pop(0)


@pytest.fixture
def role_groups(db):
    """The role groups come from a data migration a transactional test may have flushed."""
    for role in Role:
        Group.objects.get_or_create(name=role.value)


@pytest.fixture
def person(role_groups):
    def make(*roles, **kwargs):
        return UserFactory(roles=list(roles), **kwargs)

    return make


@pytest.fixture
def admin_user(person):
    return person(Role.ADMIN)


@pytest.fixture
def fake_server():
    with FakeProviderServer() as server:
        yield server


@pytest.fixture
def eager_celery():
    from heartbench_site.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


@pytest.fixture
def fact_checking(settings):
    settings.HEARTBENCH_AUDIT_FACT_CHECK = True
    settings.HEARTBENCH_AUDIT_REPAIR_PRICE_IN, settings.HEARTBENCH_AUDIT_REPAIR_PRICE_OUT = (
        REPAIR_PRICES
    )
    settings.HEARTBENCH_AUDIT_CLASSIFIER_PROVIDER = None
    return settings


@pytest.fixture
def repair_model(settings, fake_server, fact_checking):
    """The fake server as the repair model: ``repair_model.script(*rewrites)`` sets what
    the repair calls answer; the fact check's calls are answered from the memory text."""
    settings.HEARTBENCH_AUDIT_REPAIR_PROVIDER = ProviderConfig(
        kind="openai",
        model="fake-repair",
        base_url=fake_server.base_url("openai"),
        timeout=5.0,
        max_retries=1,
        backoff_base=0.01,
        backoff_cap=0.05,
    )

    def script(*rewrites: dict) -> Rewrites:
        rewrites_ = Rewrites(*rewrites)
        fake_server.responder = FactCheckResponder(rewrites_)
        return rewrites_

    fake_server.script = script
    return fake_server
