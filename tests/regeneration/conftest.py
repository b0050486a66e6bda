"""The regeneration tests' fixtures: the scripted fake provider of the generation tests
and the role groups."""

from tests.generation.conftest import fake_server, providers, script  # noqa: F401
