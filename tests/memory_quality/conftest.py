"""Fixtures of the audit tests: role groups, hand-written memories, the fake provider
server as the repair model, and Celery run eagerly in-process."""

import pytest
from django.contrib.auth.models import Group

from core.roles import Role
from llm import ProviderConfig
from llm.testing.fake_server import FakeProviderServer
from tests.factories import CharacterFactory, MemoryFactory, UserFactory

CONTEXT = (
    "A rainy Tuesday afternoon in the school library while I waited for my mother to pick me up."
)
SUMMARY = (
    "I waited alone in the library after school, watched the rain, and worried that nobody "
    "would come to take me home before dark."
)
CLEAN = (
    "The rain drummed on the tall library windows and I counted the drops racing down the "
    'glass. "Are you still here?" the librarian asked. My stomach tightened and my hands '
    "went cold around the strap of my bag. I said nothing and pressed my forehead to the "
    "window. That evening I told my mother about the drops, and the next day I brought a "
    "book to read while waiting."
)
DRIFT = CLEAN + " Years later I understood that she had been working two jobs."
# Another clean episode (its own facts): a memory of its own, or a rewrite that loses
# DRIFT's facts.
CLEAN_REWRITE = (
    "The rain hammered the library windows and I traced one drop with my finger. "
    '"Still waiting, kid?" the librarian asked, and I nodded, my throat tight. I did not '
    "know where my mother was; maybe the bus was late. My knees bounced under the table "
    "until her umbrella appeared at the door. That night I fell asleep quickly."
)
# The faithful repair of DRIFT: the marker gone, every other sentence (fact) of the
# original kept verbatim and one added, so it passes the fact check that is part of the
# loop by default (the fake server answers it from the memory text:
# ``llm.testing.fact_check``).
FAITHFUL_REWRITE = (
    CLEAN + " My knees bounced under the table until her umbrella appeared at the door."
)


@pytest.fixture
def role_groups(db):
    """The role groups come from a data migration; a transactional test elsewhere in the
    session may have flushed them. Not autouse: the pure-core tests need no database."""
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


def hand_written(character=None, **overrides):
    """A memory that passes every criterion unless ``overrides`` plant a defect."""
    fields = dict(
        context=CONTEXT,
        content_summary=SUMMARY,
        content_full=CLEAN,
        event_age=9,
        emotion_intensity=0.7,
    )
    fields.update(overrides)
    return MemoryFactory(character=character or CharacterFactory(key="CHAR_01"), **fields)


@pytest.fixture
def fake_server():
    with FakeProviderServer() as server:
        yield server


@pytest.fixture
def repair_model(settings, fake_server):
    settings.HEARTBENCH_AUDIT_REPAIR_PROVIDER = ProviderConfig(
        kind="openai",
        model="fake-repair",
        base_url=fake_server.base_url("openai"),
        timeout=5.0,
        max_retries=1,
        backoff_base=0.01,
        backoff_cap=0.05,
    )
    return fake_server


@pytest.fixture
def eager_celery():
    from heartbench_site.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous
