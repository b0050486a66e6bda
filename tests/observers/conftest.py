import pytest

from core.providers import clear_client_cache
from llm.testing.fake_server import FakeProviderServer
from llm.testing.observer_replies import ObserverResponder
from tests.generation.helpers import family_settings


@pytest.fixture
def observer_server():
    """The fake provider on loopback, answering observer prompts with its own observer."""
    with FakeProviderServer(responder=ObserverResponder()) as server:
        yield server


@pytest.fixture
def observer_families(settings, observer_server):
    """Every generation family against the fake server (response price 3 / 15 USD per
    million tokens)."""
    settings.HEARTBENCH_GENERATION_FAMILIES = family_settings(observer_server, timeout=5.0)
    yield settings.HEARTBENCH_GENERATION_FAMILIES
    clear_client_cache()
