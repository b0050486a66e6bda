"""The repair instruction is appended to the memory's original generation prompt
(seed 000 App. B.6 "Repair procedure"): a memory generated on the platform is repaired
with the system and user prompts its generation call sent, over real HTTP to the fake
provider servers (one writes the memories, the other repairs them)."""

import pytest

from annotation.corpus.models import Memory
from annotation.memory_generation.services.runs import run_create, run_start
from audit.memory_quality import repair
from audit.memory_quality.models import MemoryCase, RepairAttempt
from audit.memory_quality.services.runs import audit_run_start
from core.tasks import enqueue_on_commit
from heartbench_site.celery import app
from llm.structured import schema_instruction
from llm.testing.fact_check import other_requests
from tests.memory_generation.fixtures_runs import frozen_profile, plan_for, slot_of

pytestmark = pytest.mark.django_db

DRIFT = " Years later I understood what that evening had really meant."


def faithful_rewrite() -> dict:
    """The generated memory's narrative without the planted drift: every fact kept, so
    the rewrite passes the fact check that is part of the loop by default."""
    [memory] = Memory.objects.all()
    return {"content_full": memory.content_full.replace(DRIFT, "")}


@pytest.fixture
def eager():
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


def test_a_repair_sends_the_stored_generation_prompt_then_the_repair_instruction(
    admin_user, memory_provider, responder, repair_model, eager, django_capture_on_commit_callbacks
):
    """seed 000 App. B.6: "only the defective field(s) are regenerated using an
    issue-specific instruction appended to the original generation prompt". The repair
    model receives the generation call's system prompt verbatim (L.3's forbidden
    expressions, the language for the age) and a user prompt that starts with the
    generation user prompt verbatim (the slot's age, tier and domain) and ends with the
    repair instruction."""

    def plant_drift(memory, slot):
        memory["content_full"] += DRIFT
        return memory

    responder.edit = plant_drift
    admin = admin_user
    profile = frozen_profile()
    run = run_create(user=admin, plan_ids=[plan_for(profile, {9: 1}).pk])
    with django_capture_on_commit_callbacks(execute=True):
        run_start(run_id=run.pk, user=admin)
    [generation] = memory_provider.requests
    slot = slot_of(generation)
    # what the memory generation prompt said, before the llm client's JSON paragraph
    generation_system = generation.system.split("\n\nReply with a single JSON value", 1)[0]
    generation_user = slot["user"]

    repair_model.enqueue(faithful_rewrite())
    with django_capture_on_commit_callbacks(execute=True):
        audit = audit_run_start(created_by=admin)
        enqueue_on_commit("audit.run_memory_audit", audit.pk, what="the audit run")

    [case] = MemoryCase.objects.filter(run=audit)
    assert case.status == MemoryCase.Status.REPAIRED
    [request] = other_requests(repair_model.requests)
    assert request.system.startswith(generation_system + "\n\nReply with a single JSON")
    assert request.system.count("Reply with a single JSON value") == 1
    assert (
        '"content_full"' in request.system
        and '"psych_conclusion"' not in (request.system[len(generation_system) :])
    )
    assert '"years later"' in request.system and "Childhood, ages 6 to 11" in request.system
    [(role, user)] = request.turns()
    assert role == "user" and user.startswith(generation_user)
    assert f"Intensity tier: {slot['tier']}" in user and f"Domain: {slot['domain']}" in user
    instruction = user.rsplit("## Repair instruction\n", 1)[1]
    assert instruction.startswith("- Perspective drift (omniscient narrator)")
    assert "strictly first-person in the moment" in instruction and "“Years later”" in instruction
    assert user.endswith(
        "Return only the regenerated field(s) as a JSON object, instead of the output "
        "format above: content_full."
    )
    # the memory to repair sits between the two, and the attempt keeps what was sent
    assert DRIFT.strip() in user[len(generation_user) : -len(instruction)]
    attempt = RepairAttempt.objects.get(case=case)
    assert (attempt.system_prompt, attempt.user_prompt) == (generation_system, user)


def test_the_stored_prompt_is_read_from_each_wire_format():
    """seed 000 App. B.6: the original generation prompt is the one the call sent,
    whichever provider the run used; later turns (a round's feedback) are not part of
    it, and a request without a system and a user prompt gives none."""
    system, user = "the system prompt", "Target age: 9\nDomain: health"
    schema = "\n\n" + schema_instruction({"type": "object"})  # the llm client's paragraph
    feedback = [{"role": "assistant", "text": "{}"}, {"role": "user", "text": "fix it"}]
    requests = [
        {"offline_demo": True, "system": system, "user": user, "schema": {}},
        {
            "system": system + schema,
            "messages": [{"role": "user", "content": [{"type": "text", "text": user}]}]
            + [
                {"role": t["role"], "content": [{"type": "text", "text": t["text"]}]}
                for t in feedback
            ],
        },
        {
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
                *({"role": t["role"], "content": t["text"]} for t in feedback),
            ]
        },
        {
            "systemInstruction": {"parts": [{"text": system}]},
            "contents": [{"role": "user", "parts": [{"text": user}]}]
            + [
                {"role": "model" if t["role"] == "assistant" else "user", "parts": [t]}
                for t in feedback
            ],
        },
    ]
    for request in requests:
        assert repair.stored_prompt(request) == (system, user), request
    assert repair.stored_prompt({}) is None
    assert repair.stored_prompt(None) is None
    assert repair.stored_prompt({"messages": [{"role": "user", "content": user}]}) is None


def test_a_slot_answered_at_a_later_round_is_repaired_on_its_first_rounds_prompt(
    admin_user, memory_provider, responder, repair_model, eager, django_capture_on_commit_callbacks
):
    """seed 000 App. B.6: the original generation prompt is what the slot was asked, not
    the feedback a refused answer got: when the stored memory came from the second round
    (its first answer named the wrong age), the repair starts from the first round's
    user prompt."""
    answers = {"n": 0}

    def wrong_age_then_drift(memory, slot):
        answers["n"] += 1
        if answers["n"] == 1:
            return {**memory, "timeline": f"school age ({slot['age'] + 1} years old)"}
        memory["content_full"] += DRIFT
        return memory

    responder.edit = wrong_age_then_drift
    profile = frozen_profile()
    run = run_create(user=admin_user, plan_ids=[plan_for(profile, {9: 1}).pk])
    with django_capture_on_commit_callbacks(execute=True):
        run_start(run_id=run.pk, user=admin_user)
    first, second = memory_provider.requests
    original, asked_again = slot_of(first)["user"], slot_of(second)["user"]
    assert asked_again.startswith(original) and asked_again != original

    repair_model.enqueue(faithful_rewrite())
    with django_capture_on_commit_callbacks(execute=True):
        audit = audit_run_start(created_by=admin_user)
        enqueue_on_commit("audit.run_memory_audit", audit.pk, what="the audit run")

    [request] = other_requests(repair_model.requests)
    [(_, user)] = request.turns()
    assert user.startswith(original)
    assert user[len(original) :].lstrip("\n").startswith("# Repair of the memory written for")
    assert asked_again[len(original) :].strip()[:40] not in user
