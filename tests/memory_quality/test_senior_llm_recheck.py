"""The senior expert's edit passes re-evaluation by the LLM judge before it is accepted
(seed 000 App. B.6): through the case page, over real HTTP to the fake provider server
as the classifier; the page says beforehand what will re-check the edit; the demo's
settings configure the offline classifier so a new user sees the step."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from audit.memory_quality import criteria
from audit.memory_quality.models import MemoryCase
from audit.memory_quality.services.review import case_review_decide
from core.roles import Role
from llm import ProviderConfig

from .conftest import CLEAN, DRIFT, hand_written
from .test_repair_protocol import CLASSIFIER_ONLY_DRIFT, haunted_is_drift, run_audit

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def confirmed(admin_user, person, eager_celery, django_capture_on_commit_callbacks):
    """A drifting memory, no repair model: a reviewer confirms it for the senior."""
    hand_written(content_full=DRIFT)
    case = MemoryCase.objects.get(run=run_audit(admin_user, django_capture_on_commit_callbacks))
    case_review_decide(
        case_id=case.pk, reviewer=person(Role.MEMORY_REVIEWER), decision="confirmed", reason=""
    )
    return case


@pytest.fixture
def senior(person):
    client = Client()
    client.force_login(person(Role.ARBITRATOR))
    return client


def edit(senior, case, content_full):
    memory = case.memory
    return senior.post(
        reverse("audit:case-edit", args=[case.pk]),
        {
            "context": memory.context,
            "content_summary": memory.content_summary,
            "content_full": content_full,
            "note": "",
        },
        follow=True,
    ).content.decode()


def recheck_note(page: str) -> str:
    return page.split('data-testid="edit-recheck"', 1)[1].split("</p>", 1)[0]


def test_the_llm_classifier_re_checks_the_senior_edit_and_a_flag_keeps_the_case_open(
    confirmed, senior, settings, fake_server
):
    """seed 000 App. B.6: "The senior professor edited these 71 memories, all of which
    subsequently passed re-evaluation by the LLM judge." Saving the edit on the case page
    sends it to the classifier (one call per criterion in use); a defect verdict keeps
    the case awaiting the senior's edit, and an edit the classifier passes closes it."""
    settings.HEARTBENCH_AUDIT_CLASSIFIER_PROVIDER = ProviderConfig(
        kind="anthropic",
        model="fake-classifier",
        base_url=fake_server.base_url("anthropic"),
        timeout=5.0,
        max_retries=1,
    )
    fake_server.responder = haunted_is_drift
    page = senior.get(reverse("audit:case-detail", args=[confirmed.pk])).content.decode()
    assert "Saving waits for the LLM classifier" in recheck_note(page)
    assert "fake-classifier" not in page

    page = edit(senior, confirmed, CLASSIFIER_ONLY_DRIFT)
    asked = [r.system for r in fake_server.requests]
    assert len(asked) == len(criteria.CRITERIA)
    assert all("one defect criterion" in system for system in asked)
    confirmed.refresh_from_db()
    assert confirmed.status == MemoryCase.Status.SENIOR
    [flag] = confirmed.flags.filter(current=True)
    assert (flag.criterion, flag.source) == (criteria.OMNISCIENT, "classifier")
    assert "Saved, not accepted" in page
    outcome = page.split('data-testid="edit-reaudits"', 1)[1].split("</ol>", 1)[0]
    assert "classifier" in outcome and "still flagged: not accepted" in outcome
    assert 'data-testid="edit-recheck"' in page  # the edit form is offered again

    page = edit(senior, confirmed, CLEAN)
    assert len(fake_server.requests) == 2 * len(criteria.CRITERIA)
    confirmed.refresh_from_db()
    assert confirmed.status == MemoryCase.Status.REVISED


def test_without_a_classifier_the_page_says_the_patterns_alone_re_check(confirmed, senior):
    """seed 000 App. B.6 asks for the LLM judge's re-evaluation: a platform without a
    classifier model tells the senior, before saving, that only the patterns re-check."""
    page = senior.get(reverse("audit:case-detail", args=[confirmed.pk])).content.decode()
    note = recheck_note(page)
    assert "No LLM classifier is configured" in note and "pattern checks alone" in note


def test_the_demo_settings_configure_the_offline_classifier():
    """seed 000 App. B.6: the demo (settings/local.py) has an LLM classifier, the offline
    demo provider, so a new user's senior edit passes the LLM re-check too."""
    show = (
        "import django, json; django.setup(); "
        "from audit.memory_quality.services.configuration import classifier_provider; "
        "c = classifier_provider(); print(json.dumps(c and [c.kind.value, c.model]))"
    )
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("HEARTBENCH_AUDIT_CLASSIFIER", "DATABASE_URL"))
    }
    env.update(
        DJANGO_READ_DOT_ENV_FILE="false",
        DJANGO_SETTINGS_MODULE="heartbench_site.settings.local",
        DATABASE_URL="sqlite:////tmp/unused-demo.sqlite3",
    )
    out = subprocess.run(
        [sys.executable, "-c", show], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == ["offline_demo", "offline-demo"]
