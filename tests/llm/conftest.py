"""Fixtures for the provider layer: a fake provider server on loopback, real HTTP.

No database: nothing here requests `db`.
"""

import pytest

from llm import make_client, reset_limiters
from llm.testing.fake_server import FakeProviderServer

from .helpers import config_for


@pytest.fixture(autouse=True)
def _fresh_limiters():
    # Ports are reused across tests; a stale limiter would carry an old limit over.
    reset_limiters()
    yield
    reset_limiters()


@pytest.fixture
def server():
    with FakeProviderServer() as s:
        yield s


@pytest.fixture
def client_for(server):
    made = []

    def build(kind, **overrides):
        client = make_client(config_for(server, kind, **overrides))
        made.append(client)
        return client

    yield build
    for client in made:
        client.close()
