import pytest

from core.providers import clear_client_cache
from llm.testing.fake_server import FakeProviderServer
from tests.generation.helpers import ScriptedProvider, family_settings


@pytest.fixture
def script():
    return ScriptedProvider()


@pytest.fixture
def fake_server(script):
    with FakeProviderServer(responder=script) as server:
        yield server


@pytest.fixture
def providers(settings, fake_server):
    """Every generation family configured against the fake server, with the helpers'
    prices (activation 1 / 5, response 3 / 15 USD per million tokens)."""
    settings.HEARTBENCH_GENERATION_FAMILIES = family_settings(fake_server, timeout=2.0)
    yield settings.HEARTBENCH_GENERATION_FAMILIES
    clear_client_cache()
