"""The demo has a finished release hygiene screen whose planted personal data waits,
open, for the demo memory reviewer."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from audit.hygiene.demo import DEMO_NOTE, PLANTED
from audit.hygiene.models import HygieneFlag, HygieneRun
from audit.hygiene.rules import Rule
from audit.memory_quality.models import MemoryVersion
from core.llm_runs.models import RunStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(demo_built, db):
    """The demo, built once for this module (tests/conftest.py)."""


def test_the_demo_screen_is_finished_and_its_planted_flags_wait_for_the_reviewer(demo):
    run = HygieneRun.objects.get(note=DEMO_NOTE)
    assert run.status == RunStatus.FINISHED
    assert run.text_done == run.text_total > 0
    [version] = MemoryVersion.objects.filter(origin="demo_pii")
    assert PLANTED in version.fields["content_full"]
    planted = HygieneFlag.objects.filter(run=run, memory=version.memory)
    assert {(f.rule, f.status) for f in planted} >= {
        (Rule.EMAIL, HygieneFlag.Status.OPEN),
        (Rule.PHONE, HygieneFlag.Status.OPEN),
    }
    client = Client()
    client.force_login(get_user_model().objects.get(username="memory"))
    body = client.get(reverse("audit:hygiene-flags")).content.decode()
    assert "robin.demo@example.org" in body
