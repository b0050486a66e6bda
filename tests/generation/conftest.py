import pytest

from core.providers import clear_client_cache
from llm.testing.fake_server import FakeProviderServer

from .helpers import ScriptedProvider, family_settings


@pytest.fixture
def script():
    return ScriptedProvider()


@pytest.fixture
def fake_server(script):
    with FakeProviderServer(responder=script) as server:
        yield server


@pytest.fixture
def providers(settings, fake_server):
    """Every family configured against the fake server, with short timeouts."""
    settings.HEARTBENCH_GENERATION_FAMILIES = family_settings(fake_server, timeout=1.0)
    yield settings.HEARTBENCH_GENERATION_FAMILIES
    clear_client_cache()
