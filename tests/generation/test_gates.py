"""The generation gates (issue #18 point 3): a pair is taken only when the profile is
frozen, the scenario has completed review and the character's memory audit is
finalized; the launch page and the API show what blocks each pair and whom it waits
for; an admin overrides only explicitly, with a reason, and every override is a
recorded protocol deviation. Point 2: activation reads the audited corpus."""

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.generation.models import Candidate, GenerationRun
from annotation.generation.services.runs import (
    GenerationError,
    generation_run_create,
    generation_run_start,
)
from annotation.generation.services.units import generation_unit_execute
from annotation.scenario_review.models import ScenarioReview
from audit.memory_quality.models import AuditRun, MemoryCase
from audit.memory_quality.services.runs import audit_run_execute, audit_run_start
from core.deviations import ProtocolDeviation
from core.roles import Role
from tests.factories import UserFactory
from tests.pipeline_ready import audit_leaving_out_a_copy

from .helpers import frozen_character, offered_ids, scenario, stage_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    return UserFactory(username="gate-admin", roles=[Role.ADMIN])


def blocked_corpus():
    """CHAR_01 ready; CHAR_02 never audited; CHAR_03 unfrozen. SCN 1 reviewed; SCN 2 at
    pass 1 (screening); SCN 3 never reviewed."""
    frozen_character("CHAR_01", ages=[6])
    frozen_character("CHAR_02", ages=[6], audited=False)
    frozen_character("CHAR_03", ages=[6], frozen=False)
    scenario("SCN_SCHOOL_AGE_1")
    at_pass_1 = scenario("SCN_SCHOOL_AGE_2")
    ScenarioReview.objects.filter(scenario=at_pass_1).update(stage=ScenarioReview.Stage.SCREENING)
    scenario("SCN_SCHOOL_AGE_3", reviewed=False)


def test_a_blocked_pair_is_refused_naming_what_it_waits_for(providers, admin):
    blocked_corpus()

    with pytest.raises(GenerationError) as refused:
        generation_run_create(user=admin, families=["claude"])

    message = str(refused.value)
    assert "8 of the 9 chosen pairs are not ready" in message
    assert "CHAR_02: no finalized memory audit covered its memories" in message
    assert "an admin to run the memory audit" in message
    assert "CHAR_03: no frozen profile version" in message
    assert "SCN_SCHOOL_AGE_2: scenario review not complete (Pass 1: joint screening)" in message
    assert "SCN_SCHOOL_AGE_3: scenario review not complete (Pass 1: not started)" in message
    assert "the scenario reviewers" in message
    assert "CHAR_01:" not in message and "SCN_SCHOOL_AGE_1:" not in message
    assert not GenerationRun.objects.exists() and not ProtocolDeviation.objects.exists()

    # The ready pair alone is taken.
    run = generation_run_create(
        user=admin, families=["claude"], characters=["CHAR_01"], scenarios=["SCN_SCHOOL_AGE_1"]
    )
    assert run.units.count() == 1 and not ProtocolDeviation.objects.exists()


def test_the_audit_gate_says_whom_an_unfinished_audit_waits_for(providers, admin):
    character = frozen_character("CHAR_01", ages=[6, 7], audited=False)
    first = character.memories.get(sequence=1)
    character.memories.filter(sequence=2).update(content_full=first.content_full)  # flagged
    scenario()
    run = audit_run_start(created_by=admin, character_keys=["CHAR_01"])
    with pytest.raises(GenerationError, match=f"audit run #{run.pk} to finish"):
        generation_run_create(user=admin, families=["claude"])
    audit_run_execute(run_id=run.pk, dispatch_repairs=False)
    with pytest.raises(GenerationError, match="still open in audit run .* memory reviewers"):
        generation_run_create(user=admin, families=["claude"])
    MemoryCase.objects.filter(run=run).update(status=MemoryCase.Status.FALSE_POSITIVE)
    with pytest.raises(GenerationError, match=f"an admin to finalize audit run #{run.pk}"):
        generation_run_create(user=admin, families=["claude"])
    assert AuditRun.objects.get().finalized_at is None and not GenerationRun.objects.exists()


def test_an_override_needs_a_reason_and_records_each_blocked_pair(providers, admin):
    blocked_corpus()
    with pytest.raises(GenerationError, match="needs a reason"):
        generation_run_create(user=admin, families=["claude"], override_gates=True)
    assert not GenerationRun.objects.exists() and not ProtocolDeviation.objects.exists()

    run = generation_run_create(
        user=admin,
        families=["claude"],
        override_gates=True,
        override_reason="Pilot run for the annotator training set",
    )

    assert run.units.count() == 9
    # CHAR_03 has no frozen version: its latest one is used.
    used = run.units.get(character__key="CHAR_03", scenario__scenario_id="SCN_SCHOOL_AGE_1")
    assert used.profile_version.number == 1 and not used.profile_version.is_frozen
    overrides = {
        (d.subject, d.rule.split(":")[0])
        for d in ProtocolDeviation.objects.filter(stage="generation", kind="gate_override")
    }
    profile = "Generation uses a frozen profile version (profile review, App. B.3)"
    review = "Generation uses a scenario that completed review (App. C.2)"
    audit = "Generation reads the memories of a finalized memory audit (App. B.6)"
    expected = set()
    for scn in ("SCN_SCHOOL_AGE_1", "SCN_SCHOOL_AGE_2", "SCN_SCHOOL_AGE_3"):
        expected.add((f"CHAR_02 × {scn}", audit))
        expected.add((f"CHAR_03 × {scn}", profile))
    for char in ("CHAR_01", "CHAR_02", "CHAR_03"):
        for scn in ("SCN_SCHOOL_AGE_2", "SCN_SCHOOL_AGE_3"):
            expected.add((f"{char} × {scn}", review))
    assert overrides == expected
    unaudited = ProtocolDeviation.objects.filter(kind="unaudited_memories")
    assert [d.subject for d in unaudited] == ["CHAR_02"]
    assert all(
        d.reason == "Pilot run for the annotator training set" and d.recorded_by == admin
        for d in ProtocolDeviation.objects.all()
    )


def test_activation_never_offers_a_memory_the_audit_left_out(providers, fake_server, admin):
    character = frozen_character("CHAR_01", ages=[6, 7], audited=False)
    original = character.memories.get(sequence=1)
    copy = audit_leaving_out_a_copy(character, original=original)
    scenario(age=10)
    run = generation_run_create(user=admin, families=["claude"])
    generation_run_start(run_id=run.pk)

    unit = generation_unit_execute(unit_id=run.units.get().pk)

    assert unit.eligible_memory_ids == [original.memory_id, "MEM_CHAR_01_N_HIGH_0002"]
    assert copy.memory_id not in (unit.screened_memory_ids or [])
    shown = [i for r in fake_server.requests if stage_of(r) == "screening" for i in offered_ids(r)]
    assert copy.anonymized_id not in shown and original.anonymized_id in shown
    candidate = Candidate.objects.get(unit=unit)
    assert copy.memory_id not in candidate.activated_memory_ids
    assert not ProtocolDeviation.objects.exists()


# --- the launch page and the API -----------------------------------------------------------


def test_the_launch_page_lists_blocks_and_whom_they_wait_for(providers, admin, client):
    blocked_corpus()
    client.force_login(admin)
    body = client.get(reverse("corpus:generation-new")).content.decode()
    table = body[body.index('data-testid="blocked-pairs"') :]
    table = table[: table.index("</ul>")]
    assert "8 of 9 pairs blocked" in body
    # Each block names its subject in words (the id stays in an attribute for scripts).
    assert (
        '<li class="border-top py-1" data-gate="memory_audit_finalized" data-subject="CHAR_02">'
        "<strong>Character 2</strong>" in table
    )
    assert "an admin to run the memory audit and finalize it" in table
    assert 'data-gate="profile_frozen" data-subject="CHAR_03"><strong>Character 3<' in table
    assert (
        'data-gate="scenario_reviewed" data-subject="SCN_SCHOOL_AGE_3">'
        "<strong>School age scenario 3<" in table
    )
    assert "the scenario reviewers" in table
    assert "CHAR_01" not in table and "SCN_SCHOOL_AGE_1" not in table
    assert 'name="override_gates"' in body and 'name="override_reason"' in body

    # Only the ready pair: nothing blocks.
    estimate = client.post(
        reverse("corpus:generation-new"),
        {"estimate": "1", "families": ["claude"], "characters": ["CHAR_01"]},
        headers={"HX-Request": "true"},
    ).content.decode()
    assert 'data-testid="blocked-pairs"' in estimate  # SCN 2 and 3 still block CHAR_01
    estimate = client.post(
        reverse("corpus:generation-new"),
        {
            "estimate": "1",
            "families": ["claude"],
            "characters": ["CHAR_01"],
            "scenarios": ["SCN_SCHOOL_AGE_1"],
        },
        headers={"HX-Request": "true"},
    ).content.decode()
    assert 'data-testid="blocked-pairs"' not in estimate and 'data-testid="pairs-ready"' in estimate


def test_the_launch_form_refuses_then_overrides_with_a_reason(
    providers, admin, client, django_capture_on_commit_callbacks
):
    blocked_corpus()
    client.force_login(admin)
    url = reverse("corpus:generation-new")
    base = {"launch": "Launch run", "families": ["claude"]}

    refused = client.post(url, base).content.decode()
    assert "8 of the 9 chosen pairs are not ready" in refused
    no_reason = client.post(url, {**base, "override_gates": "on"}).content.decode()
    assert "Say why the gates are overridden" in no_reason
    assert not GenerationRun.objects.exists() and not ProtocolDeviation.objects.exists()

    with django_capture_on_commit_callbacks(execute=False):
        response = client.post(
            url, {**base, "override_gates": "on", "override_reason": "Dry run of the pipeline"}
        )
    run = GenerationRun.objects.get()
    assert response.status_code == 302 and run.units.count() == 9
    assert ProtocolDeviation.objects.filter(kind="gate_override").count() == 12
    assert ProtocolDeviation.objects.filter(kind="unaudited_memories").count() == 1


def test_the_launch_page_issues_a_fixed_number_of_queries(providers, admin, client):
    client.force_login(admin)
    url = reverse("corpus:generation-new")
    counts = []
    for n in (1, 4):
        for i in range(n):
            frozen_character(f"CHAR_{n}{i}", ages=[6], audited=False)
            frozen_character(f"CHAR_{n}{i + 5}", ages=[6], frozen=False)
            scenario(f"SCN_SCHOOL_AGE_{n}{i}", reviewed=False)
        client.get(url)
        with CaptureQueriesContext(connection) as ctx:
            body = client.get(url).content.decode()
        assert body.count(" data-gate=") == {1: 3, 4: 15}[n]
        counts.append(len(ctx.captured_queries))
    assert counts[0] == counts[1], counts


def test_the_api_shows_the_gates_and_refuses_a_blocked_launch(providers, admin):
    blocked_corpus()
    api = APIClient()
    api.force_authenticate(admin)

    gates = api.get(reverse("generation-api:gates"), {"characters": ["CHAR_01", "CHAR_02"]}).json()
    assert gates["pairs"] == 6 and gates["blocked_pairs"] == 5
    assert {(b["gate"], b["subject"]) for b in gates["blocks"]} == {
        ("memory_audit_finalized", "CHAR_02"),
        ("scenario_reviewed", "SCN_SCHOOL_AGE_2"),
        ("scenario_reviewed", "SCN_SCHOOL_AGE_3"),
    }
    assert all(b["waits_for"] for b in gates["blocks"])

    launch = reverse("generation-api:run-list")
    refused = api.post(launch, {"families": ["claude"]}, format="json")
    assert refused.status_code == 400
    assert "not ready for generation" in refused.json()["detail"]
    assert {b["subject"] for b in refused.json()["blocked"]} == {
        "CHAR_02",
        "CHAR_03",
        "SCN_SCHOOL_AGE_2",
        "SCN_SCHOOL_AGE_3",
    }
    no_reason = api.post(launch, {"families": ["claude"], "override_gates": True}, format="json")
    assert no_reason.status_code == 400 and "override_reason" in no_reason.json()["fields"]
    assert not GenerationRun.objects.exists() and not ProtocolDeviation.objects.exists()

    created = api.post(
        launch,
        {"families": ["claude"], "override_gates": True, "override_reason": "API dry run"},
        format="json",
    )
    assert created.status_code == 201, created.json()
    assert ProtocolDeviation.objects.filter(reason="API dry run").count() == 12 + 1
