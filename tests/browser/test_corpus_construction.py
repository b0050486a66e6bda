"""Corpus construction walked in Chromium (issue 19, seed 000 §2.2 Stages 1–2): an admin
drafts two characters, a reviewer asks for a change, the admin redrafts, the senior
freezes; the admin plans and launches memory generation for one character (fake
provider server, small quota), watches it, cancels and resumes it without duplicates,
and the memories reach the memory audit with their provenance.

A real Celery worker does the drafting, generation and audit; the fake provider server
answers every call over loopback with the demo answers (one memory is spoiled with a
retrospective phrase so the audit has something to show)."""

import re

import pytest
from django.contrib.auth.models import Group

from annotation.corpus.models import Memory, ProfileVersion
from annotation.memory_generation.models import GeneratedMemory, MemoryCallRecord, MemoryRun
from annotation.profile_review.models import ChangeRequest
from annotation.profile_review.services import profile_review_save
from audit.memory_quality.models import MemoryCase
from core.roles import Role
from llm.testing.fake_server import DemoResponder, FakeProviderServer
from tests.browser.actions import submit
from tests.browser.confirming import submit_and_confirm
from tests.factories import DEFAULT_PASSWORD, UserFactory

from .test_profile_review import judge_all_criteria

pytestmark = [pytest.mark.browser, pytest.mark.worker]

TARGET = 16
CONCERN = "The description calls the vigilance constant; say when it shows."


class SpoilsOneMemory:
    """The demo answers, with the third memory answer opening on a phrase the present-
    moment rule forbids: the audit's criterion 1 flags it."""

    def __init__(self):
        self.demo = DemoResponder(seed=5)
        self.memories = 0

    def __call__(self, req):
        reply = self.demo(req)
        value = reply.value
        if isinstance(value, dict) and "content_full" in value and "behavior_policy" in value:
            self.memories += 1
            if self.memories == 3:
                value["content_full"] = "Years later I would still see it. " + value["content_full"]
        return reply


@pytest.fixture
def provider(monkeypatch):
    server = FakeProviderServer(latency_s=0.4, responder=SpoilsOneMemory()).start()
    env = {}
    for stage in ("DRAFTING", "MEMORY"):
        env |= {
            f"HEARTBENCH_{stage}_KIND": "anthropic",
            f"HEARTBENCH_{stage}_BASE_URL": server.base_url("anthropic"),
            f"HEARTBENCH_{stage}_API_KEY": "test-key",
            f"HEARTBENCH_{stage}_MODEL": f"fake-{stage.lower()}-model",
            f"HEARTBENCH_{stage}_MAX_RETRIES": "1",
            f"HEARTBENCH_{stage}_TIMEOUT": "10",
        }
    for name, value in env.items():
        monkeypatch.setenv(name, value)  # the live server reads them in this process
    yield server, env
    server.stop()


@pytest.fixture
def lab(transactional_db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    UserFactory(username="lab-admin", roles=[Role.ADMIN])
    for i in (1, 2, 3):
        UserFactory(username=f"annotator-{i}", roles=[Role.PRIMARY_ANNOTATOR])
    UserFactory(username="senior", roles=[Role.ARBITRATOR])
    UserFactory(username="memory-reviewer", roles=[Role.MEMORY_REVIEWER])


def wait_status(page, selector, status, timeout=90_000):
    page.locator(f'{selector} [data-status="{status}"]').wait_for(timeout=timeout)


def run_status(page, status, timeout=90_000):
    page.locator(f'[data-testid=run-status][data-status="{status}"]').wait_for(timeout=timeout)


def switch_to(page, live_server, username):
    """Log out whoever is in, then log in as ``username``."""
    if page.get_by_role("button", name="Log out").count():
        submit(page, page.get_by_role("button", name="Log out"))
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(DEFAULT_PASSWORD)
    submit(page, page.get_by_role("button", name="Log in"))


def filled(page) -> int:
    return int(page.get_by_test_id("slots-filled").inner_text().replace(",", ""))


def test_draft_review_redraft_freeze_then_generate_cancel_resume_and_audit(
    page, live_server, lab, provider, celery_worker_factory
):
    server, env = provider
    celery_worker_factory(extra_env=env, pool="threads", concurrency=2)
    page.on("dialog", lambda dialog: dialog.accept())  # hx-confirm: the admin confirms

    # 1. The admin drafts two characters of a custom design.
    switch_to(page, live_server, "lab-admin")
    page.goto(f"{live_server.url}/drafting/new/")
    page.locator("#id_design_1").check()
    page.locator("#id_custom_design").fill("CHAR_01: N high\nCHAR_02: E low")
    submit(page, page.locator("#submit-id-preview"))
    plan = page.get_by_test_id("drafting-plan")
    assert plan.locator("tr[data-key=CHAR_01]").count() == 1
    assert plan.locator("tr[data-key=CHAR_02]").count() == 1
    submit(page, page.locator("#submit-id-launch"))
    wait_status(page, "[data-testid=job-status]", "finished")
    drafts = {v.character.key: v for v in ProfileVersion.objects.select_related("character")}
    assert set(drafts) == {"CHAR_01", "CHAR_02"}
    assert drafts["CHAR_01"].neuroticism == 0.95 and drafts["CHAR_02"].extraversion == 0.10
    assert all(v.number == 1 and len(v.core_patterns) == 8 for v in drafts.values())

    # 2. Three reviewers; one asks for a change to the description.
    switch_to(page, live_server, "annotator-1")
    page.goto(f"{live_server.url}/review/profiles/CHAR_01/")
    form = page.locator("#change-request-form")
    form.get_by_label("Field").select_option("description")
    form.get_by_label("Passage").fill(drafts["CHAR_01"].description[:30])
    form.get_by_label("Concern").fill(CONCERN)
    form.get_by_label("Suggested correction").fill("Name the situations that trigger it.")
    form.get_by_role("button", name="Add change request").press("Enter")
    page.locator("[data-change-request]").wait_for()
    judge_all_criteria(page)
    page.get_by_label("Local revision needed").check()
    submit(page, page.get_by_role("button", name="Submit review"))
    for username in ("annotator-2", "annotator-3"):
        profile_review_save(
            character_key="CHAR_01",
            reviewer=UserFactory._meta.model.objects.get(username=username),
            recommendation="accept",
            criteria={
                name: "meets"
                for name in (
                    "trait_alignment",
                    "internal_coherence",
                    "occupational_plausibility",
                    "behavioral_specificity",
                    "interpretive_restraint",
                )
            },
            submit=True,
        )

    # 3. The admin redrafts the description with the request as guidance.
    switch_to(page, live_server, "lab-admin")
    page.goto(f"{live_server.url}/drafting/redraft/")
    page.locator("#redraft-CHAR_01").click()
    redraft = page.locator("#redraft-form")
    redraft.locator("#id_field").select_option("description")
    redraft.locator("#id_admin_note").fill("Keep the anchor; qualify the scope.")
    submit(page, redraft.locator("#submit-id-redraft"))
    wait_status(page, "[data-testid=job-status]", "finished")
    v2 = ProfileVersion.objects.get(character__key="CHAR_01", number=2)
    assert v2.source.startswith("redraft of v1")
    sent = [r.raw_body for r in server.requests]
    assert any(CONCERN in body for body in sent), "the change request reached the model"

    # 4. The senior accepts the request against the redraft and freezes it.
    switch_to(page, live_server, "senior")
    page.goto(f"{live_server.url}/review/profiles/CHAR_01/adjudicate/")
    request_id = ChangeRequest.objects.get(concern=CONCERN).pk
    resolve = page.locator(f"#resolve-{request_id}")
    resolve.get_by_label("Accept").check()
    resolve.get_by_role("button", name="Resolve").press("Enter")
    page.locator(f'#change-request-{request_id}[data-status="accepted"]').wait_for()
    page.locator("#freeze-form").get_by_label("Final suitability check", exact=False).check()
    submit_and_confirm(page, page.get_by_role("button", name="Freeze this version"))
    assert "v2 is frozen" in page.locator(".alert-success").inner_text()

    # 5. The admin plans a small quota and launches generation.
    switch_to(page, live_server, "lab-admin")
    page.goto(f"{live_server.url}/memory-generation/plans/new/")
    page.get_by_label("CHAR_01").check()
    page.get_by_label("Target memories per character").fill(str(TARGET))
    submit(page, page.get_by_role("button", name="Compute the plans"))
    page.get_by_test_id("launch-generation").first.click()
    page.wait_for_url("**/memory-generation/runs/new/**")
    page.locator("#id_concurrency").fill("1")
    submit(page, page.locator("#run-review"))
    assert str(TARGET) in page.get_by_test_id("run-confirmation").inner_text()
    submit(page, page.locator("#run-confirm"))
    page.wait_for_url(re.compile(r".*/memory-generation/runs/\d+/$"))
    run = MemoryRun.objects.get()

    # 6. Watch it, cancel midway, resume: every slot filled exactly once.
    page.wait_for_function(
        "() => Number(document.querySelector('[data-testid=slots-filled]').innerText) >= 3",
        timeout=60_000,
    )
    page.locator("#run-cancel").click()
    page.get_by_test_id("confirm-yes").click()  # the page's confirmation of hx-confirm
    run_status(page, "cancelled")
    stopped_at = filled(page)
    assert 3 <= stopped_at < TARGET
    assert Memory.objects.filter(character__key="CHAR_01").count() == stopped_at
    page.locator("#run-resume").click()
    page.get_by_test_id("confirm-yes").click()
    run_status(page, "finished")
    assert filled(page) == TARGET
    stored = Memory.objects.filter(character__key="CHAR_01")
    assert stored.count() == TARGET == GeneratedMemory.objects.filter(batch__run=run).count()
    assert MemoryCallRecord.objects.filter(batch__run=run, ok=True).count() == TARGET
    assert len({m.memory_id for m in stored}) == TARGET
    assert sorted(m.event_age for m in stored) == sorted(
        age for age, n in zip(range(6, 51), run.plans.get().quotas, strict=True) for _ in range(n)
    )

    # 7. The memory audit takes them up; the flagged one shows where it came from.
    page.goto(f"{live_server.url}/audit/runs/")
    submit(page, page.get_by_role("button", name="Run the audit"))
    page.get_by_test_id("run-status").filter(has_text="Finished").wait_for(timeout=90_000)
    spoiled = stored.get(content_full__startswith="Years later")
    switch_to(page, live_server, "memory-reviewer")
    page.goto(f"{live_server.url}/audit/?status=review")
    case = MemoryCase.objects.get(memory=spoiled)  # the queue names it by its summary
    page.locator(f'tr[data-case="{case.pk}"]').get_by_role("link").click()
    source = page.get_by_test_id("memory-source").inner_text()
    assert f"generated: run {run.pk}, batch " in source
    assert "memory prompt v1, fake-memory-model" in source
    assert "Years later" in page.get_by_test_id("evidence").first.inner_text()
